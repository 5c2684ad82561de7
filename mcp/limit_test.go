package mcp

import (
	"errors"
	"os"
	"testing"
	"time"
)

// BenchmarkVaultLimiter is one remember's turn at the vault-wide limit with
// a full window behind it (600 calls a minute, under a limit the load
// scripts set).
func BenchmarkVaultLimiter(b *testing.B) {
	at := time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)
	l := newLimiter("remember", Rate{N: 100000, Per: time.Minute}, b.TempDir(), func() time.Time { return at })
	for range 600 {
		at = at.Add(50 * time.Millisecond)
		if _, err := l.allow(b.Context(), "remember"); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		at = at.Add(100 * time.Millisecond)
		if _, err := l.allow(b.Context(), "remember"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestVaultLimiterUndo: a call refused for another reason is forgotten,
// with the clock's nanoseconds too (the file keeps milliseconds).
func TestVaultLimiterUndo(t *testing.T) {
	l := newLimiter("remember", Rate{N: 2, Per: time.Minute}, t.TempDir(), time.Now)
	for range 5 {
		at, err := l.allow(t.Context(), "remember")
		if err != nil {
			t.Fatalf("a call after undone ones: %v", err)
		}
		l.undo(t.Context(), at)
	}
	for range 2 {
		if _, err := l.allow(t.Context(), "remember"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.allow(t.Context(), "remember"); err == nil {
		t.Fatal("a third call in the window was taken")
	}
}

// testClock is a clock that tests move.
type testClock struct{ at time.Time }

func (c *testClock) now() time.Time { return c.at }

// allows says whether l takes one more call now; a refusal must say when
// to try again.
func allows(t *testing.T, l *limiter) (time.Time, bool) {
	t.Helper()
	at, err := l.allow(t.Context(), "remember")
	var re *rateError
	switch {
	case err == nil:
		return at, true
	case errors.As(err, &re):
		if re.retry < time.Second || re.retry > l.rate.Per {
			t.Fatalf("try again in %v", re.retry)
		}
		return at, false
	default:
		t.Fatal(err)
		return at, false
	}
}

// The vault's limit is at most N calls in any window: exact, whichever call
// of the window is undone, and the retry is when the oldest call leaves it.
func TestVaultLimiterWindow(t *testing.T) {
	clock := &testClock{at: time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)}
	root := t.TempDir()
	l := newLimiter("remember", Rate{N: 3, Per: time.Minute}, root, clock.now)
	var ats []time.Time
	for range 3 {
		clock.at = clock.at.Add(10 * time.Second)
		at, ok := allows(t, l)
		if !ok {
			t.Fatal("a call under the limit was refused")
		}
		ats = append(ats, at)
	}
	// Undo the middle one: one more call fits, and no other.
	l.undo(t.Context(), ats[1])
	if _, ok := allows(t, l); !ok {
		t.Fatal("the call in place of an undone one was refused")
	}
	_, err := l.allow(t.Context(), "remember")
	var re *rateError
	if !errors.As(err, &re) {
		t.Fatalf("a fourth call in the window: %v", err)
	}
	// The oldest call (at 10:00:10) leaves the window at 10:01:10.
	if want := 40 * time.Second; re.retry != want {
		t.Errorf("try again in %v, want %v", re.retry, want)
	}
	clock.at = clock.at.Add(40 * time.Second)
	if _, ok := allows(t, l); !ok {
		t.Fatal("a call once the oldest left the window was refused")
	}
	if _, ok := allows(t, l); ok {
		t.Fatal("a call over the limit was taken")
	}

	// A second server with another limit (the config was changed) counts
	// the same calls.
	higher := newLimiter("remember", Rate{N: 4, Per: time.Minute}, root, clock.now)
	if _, ok := allows(t, higher); !ok {
		t.Fatal("a higher limit refused a call with three in its window")
	}
	if _, ok := allows(t, higher); ok {
		t.Fatal("a higher limit took a fifth call")
	}
	lower := newLimiter("remember", Rate{N: 2, Per: time.Minute}, root, clock.now)
	if _, ok := allows(t, lower); ok {
		t.Fatal("a lower limit took a call with four in the window")
	}
}

// A call costs one slot of the file, however many calls the window holds:
// the file neither grows nor is replaced.
func TestVaultLimiterFileFixed(t *testing.T) {
	clock := &testClock{at: time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)}
	l := newLimiter("remember", Rate{N: 1000, Per: time.Minute}, t.TempDir(), clock.now)
	allows(t, l)
	first, err := os.Stat(l.path)
	if err != nil {
		t.Fatal(err)
	}
	for range 600 {
		clock.at = clock.at.Add(time.Millisecond)
		allows(t, l)
	}
	fi, err := os.Stat(l.path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != first.Size() || !os.SameFile(fi, first) {
		t.Errorf("the file went from %d bytes to %d (same file: %v)", first.Size(), fi.Size(), os.SameFile(fi, first))
	}
}

// A damaged file is counts lost, never calls refused or a failure.
func FuzzVaultLimiterFile(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("ctx0ring\x03\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x10\x27\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		clock := &testClock{at: time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)}
		l := newLimiter("remember", Rate{N: 3, Per: time.Minute}, t.TempDir(), clock.now)
		if err := os.MkdirAll(l.path[:len(l.path)-len("/mcp-rate-remember")], 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(l.path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		taken := 0
		for range 5 {
			if at, ok := allows(t, l); ok {
				taken++
				clock.at = clock.at.Add(time.Millisecond)
				if taken == 1 {
					l.undo(t.Context(), at)
					taken--
				}
			}
		}
		if taken > 3 {
			t.Fatalf("%d calls taken in a window of 3", taken)
		}
	})
}
