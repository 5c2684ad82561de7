package curator

import (
	"fmt"
	"time"

	"github.com/ctx0/ctx0/internal/config"
	"github.com/ctx0/ctx0/vault/decay"
)

// Config is the curator: section of .ctx0/config.yaml. Durations are Go
// durations ("36h") or whole days ("30d").
//
//	curator:
//	  stale_after: 30d     # scratch and inbox entries untouched this long are archived
//	  summarize_after: 20  # new entries that make an incremental summary due
//	  compact_after: 1d    # incremental summaries older than this are rolled up
//	  half_life: 60d       # a preference's confidence halves in this time without being seen again
//	  threshold: 0.25      # preferences below this confidence are archived and left out of the context block
//	  every: 1d            # a full run is due this long after the last one
//	  clearly_newer: 1h    # a conflict side updated this much later than the other wins it
type Config struct {
	StaleAfter     time.Duration
	SummarizeAfter int
	CompactAfter   time.Duration
	HalfLife       time.Duration
	Threshold      float64
	Every          time.Duration
	ClearlyNewer   time.Duration
}

const day = 24 * time.Hour

// DefaultConfig is the curator's configuration when the file says nothing.
func DefaultConfig() Config {
	return Config{
		StaleAfter:     30 * day,
		SummarizeAfter: 20,
		CompactAfter:   day,
		HalfLife:       decay.DefaultSettings().HalfLife,
		Threshold:      decay.DefaultSettings().Threshold,
		Every:          day,
		ClearlyNewer:   time.Hour,
	}
}

type rawConfig struct {
	StaleAfter     string   `yaml:"stale_after"`
	SummarizeAfter int      `yaml:"summarize_after"`
	CompactAfter   string   `yaml:"compact_after"`
	HalfLife       string   `yaml:"half_life"`
	Threshold      *float64 `yaml:"threshold"`
	Every          string   `yaml:"every"`
	ClearlyNewer   string   `yaml:"clearly_newer"`
}

// ConfigSection is the section of the vault's config file that Config is.
const ConfigSection = decay.Section

// ParseConfig decodes the curator: section of the vault's config file f;
// what it leaves out takes its default.
func ParseConfig(f *config.File) (Config, error) {
	cfg := DefaultConfig()
	p := f.Path()
	var r rawConfig
	if err := f.Decode(ConfigSection, &r); err != nil {
		return cfg, err
	}
	for _, d := range []struct {
		key string
		s   string
		to  *time.Duration
	}{
		{"stale_after", r.StaleAfter, &cfg.StaleAfter},
		{"compact_after", r.CompactAfter, &cfg.CompactAfter},
		{"every", r.Every, &cfg.Every},
		{"clearly_newer", r.ClearlyNewer, &cfg.ClearlyNewer},
	} {
		if d.s == "" {
			continue
		}
		v, err := config.ParseDuration(d.s)
		if err != nil || v <= 0 {
			return cfg, fmt.Errorf("parse config %s: curator.%s %q: want a positive duration such as 30d or 36h", p, d.key, d.s)
		}
		*d.to = v
	}
	if r.SummarizeAfter < 0 {
		return cfg, fmt.Errorf("parse config %s: curator.summarize_after %d: want a positive count", p, r.SummarizeAfter)
	}
	if r.SummarizeAfter > 0 {
		cfg.SummarizeAfter = r.SummarizeAfter
	}
	// half_life and threshold are the decay model's, read by it.
	d, err := decay.ParseSettings(f)
	if err != nil {
		return cfg, err
	}
	cfg.HalfLife, cfg.Threshold = d.HalfLife, d.Threshold
	return cfg, nil
}
