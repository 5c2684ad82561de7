package decay

import (
	"fmt"
	"time"

	"github.com/ctx0/ctx0/internal/config"
)

// Section is the section of the vault's config file that holds the
// decay's settings: the curator's, which archives by them.
const Section = "curator"

// Settings are how fast an observation fades and where it is let go.
//
//	curator:
//	  half_life: 60d   # a preference's confidence halves in this time without being seen again
//	  threshold: 0.25  # preferences below this confidence are archived and left out of the context block
type Settings struct {
	HalfLife  time.Duration
	Threshold float64
}

// DefaultSettings are the settings when the file says nothing.
func DefaultSettings() Settings {
	return Settings{HalfLife: 60 * 24 * time.Hour, Threshold: 0.25}
}

// ParseSettings reads half_life and threshold of the curator: section of
// the vault's config file f; what it leaves out takes its default.
func ParseSettings(f *config.File) (Settings, error) {
	s := DefaultSettings()
	p := f.Path()
	v, ok, err := f.Value(Section, "half_life")
	if err != nil {
		return s, err
	}
	if ok {
		str := fmt.Sprint(v)
		d, err := config.ParseDuration(str)
		if err != nil || d <= 0 {
			return s, fmt.Errorf("parse config %s: curator.half_life %q: want a positive duration such as 30d or 36h", p, str)
		}
		s.HalfLife = d
	}
	v, ok, err = f.Value(Section, "threshold")
	if err != nil {
		return s, err
	}
	if ok {
		var t float64
		switch x := v.(type) {
		case float64:
			t = x
		case int:
			t = float64(x)
		default:
			t = -1
		}
		if t <= 0 || t >= 1 {
			return s, fmt.Errorf("parse config %s: curator.threshold %v: want a number between 0 and 1", p, v)
		}
		s.Threshold = t
	}
	return s, nil
}
