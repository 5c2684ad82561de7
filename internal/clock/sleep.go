// Package clock holds the one way ctx0 waits: a pause that ends early when
// its context does, for the loops that retry, poll or back off.
package clock

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx is done, and then returns ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
