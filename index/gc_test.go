package index

import (
	"runtime/debug"
	"testing"
)

// TestRelaxGC: overlapping walks raise the collector's target once, the
// last one restores what the process had, and a target already higher, or
// the collector off, is left as it is.
func TestRelaxGC(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	for _, tc := range []struct {
		name        string
		before, mid int
	}{
		{"default", 100, walkGCPercent},
		{"lower", 50, walkGCPercent},
		{"higher", 2 * walkGCPercent, 2 * walkGCPercent},
		{"off", -1, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(tc.before)
			first := relaxGC()
			second := relaxGC()
			if got := gcPercent(); got != tc.mid {
				t.Errorf("during two walks the target is %d, want %d", got, tc.mid)
			}
			first()
			if got := gcPercent(); got != tc.mid {
				t.Errorf("after the first walk ended the target is %d, want %d while the second runs", got, tc.mid)
			}
			second()
			if got := gcPercent(); got != tc.before {
				t.Errorf("after both walks the target is %d, want %d restored", got, tc.before)
			}
		})
	}
}

// gcPercent reads the collector's target without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
