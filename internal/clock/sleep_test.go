package clock

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSleepEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	// An hour's pause on a cancelled context returns at once, with the
	// context's error: the loops that call Sleep stop when asked to.
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep on a cancelled context: %v, want context.Canceled", err)
	}
}

func TestSleepWaitsItsTime(t *testing.T) {
	if err := Sleep(t.Context(), time.Millisecond); err != nil {
		t.Fatalf("Sleep of a millisecond: %v", err)
	}
}
