package config

import (
	"strings"
	"testing"
	"time"
)

// FuzzParseDuration: never panics; a day count is whole days.
func FuzzParseDuration(f *testing.F) {
	f.Add("30d")
	f.Add("36h")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err == nil && strings.HasSuffix(strings.TrimSpace(s), "d") && d%(24*time.Hour) != 0 {
			t.Errorf("%q is %v", s, d)
		}
	})
}
