package mcp

import (
	"testing"
	"time"
)

// BenchmarkVaultLimiter is one remember's turn at the vault-wide limit with
// a full window behind it (the default 600 calls a minute): the file of
// call times is read and written on every call.
func BenchmarkVaultLimiter(b *testing.B) {
	at := time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)
	l := newLimiter("remember", Rate{N: 1 << 30, Per: time.Minute}, b.TempDir(), func() time.Time { return at })
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
