package vault

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/internal/filelock"
)

// A write and a fetch that wait for a lock another process holds say so,
// once, naming the lock, and go on when it is let go.
func TestWaitingForALockIsTold(t *testing.T) {
	n := 0
	for _, tt := range []struct {
		name, lock, holder string
		do                 func(context.Context, *Vault) error
	}{
		{"write", lockFile, "writing to this vault", func(ctx context.Context, v *Vault) error {
			n++
			_, _, err := v.Add(ctx, AddOptions{Name: fmt.Sprintf("notes/write-%d", n), Body: new("a write\n")})
			return err
		}},
		{"fetch", fetchLockFile, "fetching from a remote", func(ctx context.Context, v *Vault) error {
			unlock, _, _, err := v.lockFetch(ctx)
			if err == nil {
				unlock()
			}
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := testVault(t).Root()
			told := make(chan string, 4)
			v, err := Open(t.Context(), root, WithOnWait(func(what string) { told <- what }))
			if err != nil {
				t.Fatal(err)
			}
			// A flock is held per open file, so this one excludes the
			// vault's as another process's would.
			p := filepath.Join(root, filepath.FromSlash(tt.lock))
			other, err := filelock.Exclusive(t.Context(), p)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- tt.do(t.Context(), v) }()
			select {
			case what := <-told:
				if !strings.Contains(what, tt.holder) || !strings.Contains(what, p) {
					t.Errorf("told %q; want it to name %q and %s", what, tt.holder, p)
				}
			case err := <-done:
				t.Fatalf("did not wait for the lock: %v", err)
			case <-time.After(time.Minute):
				t.Fatal("not told of the wait")
			}
			other.Unlock()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if len(told) != 0 {
				t.Errorf("told more than once: %q", <-told)
			}
			// Nobody holds it now: nothing to tell.
			if err := tt.do(t.Context(), v); err != nil {
				t.Fatal(err)
			}
			if len(told) != 0 {
				t.Errorf("told of a wait for a free lock: %q", <-told)
			}
		})
	}
}
