package decay

import (
	"math"
	"testing"
	"time"

	"github.com/ctx0/ctx0/internal/config"
	"github.com/ctx0/ctx0/vault/entry"
)

func TestStrengthAndConfidence(t *testing.T) {
	half := 60 * 24 * time.Hour
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pref := func(fields string) *entry.Entry {
		e, err := entry.Parse([]byte("---\ntype: preference\nsource: librarian\nupdated: 2026-01-01T00:00:00Z\n" + fields + "---\nx\n"))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for _, tc := range []struct {
		name string
		e    *entry.Entry
		at   time.Time
		want float64
	}{
		{"new, seen once", pref(""), t0, 0.5},
		{"once, a half-life on", pref(""), t0.Add(half), 0.25},
		{"three times, two half-lives on", pref("observations: 3\nlast_observed: 2026-01-01T00:00:00Z\n"), t0.Add(2 * half), 0.875 / 4},
		{"stated by the user", func() *entry.Entry { e := pref(""); e.Set("source", "user"); return e }(), t0.Add(10 * half), 1},
		{"pinned", func() *entry.Entry { e := pref(""); e.Set("pinned", true); return e }(), t0.Add(10 * half), 1},
		{"a note tagged style", func() *entry.Entry { e := pref(""); e.Set("type", "note"); e.Set("tags", []string{"style"}); return e }(), t0.Add(half), 0.25},
		{"a plain note", func() *entry.Entry { e := pref(""); e.Set("type", "note"); return e }(), t0.Add(10 * half), 1},
	} {
		if got := Confidence(tc.e, tc.at, half); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: confidence %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestParseSettings(t *testing.T) {
	for _, tc := range []struct {
		file string
		want Settings
		bad  bool
	}{
		{"", DefaultSettings(), false},
		{"curator:\n  every: 1d\n", DefaultSettings(), false},
		{"curator:\n  half_life: 30d\n  threshold: 0.5\n", Settings{30 * 24 * time.Hour, 0.5}, false},
		{"curator:\n  half_life: 36h\n", Settings{36 * time.Hour, 0.25}, false},
		{"curator:\n  half_life: soon\n", Settings{}, true},
		{"curator:\n  half_life: 0d\n", Settings{}, true},
		{"curator:\n  threshold: 1\n", Settings{}, true},
		{"curator:\n  threshold: high\n", Settings{}, true},
	} {
		f, err := config.Parse("config.yaml", []byte(tc.file))
		if err != nil {
			t.Fatalf("%q: %v", tc.file, err)
		}
		got, err := ParseSettings(f)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: no error", tc.file)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.file, got, err, tc.want)
		}
	}
}
