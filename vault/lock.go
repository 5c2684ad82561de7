package vault

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// lockFile serializes ctx0 writers of one vault. It is an advisory lock
// (flock), so a crashed writer never leaves it held.
const lockFile = ".ctx0/lock"

// lock waits for the vault's write lock until ctx ends.
func (v *Vault) lock(ctx context.Context) (unlock func(), err error) {
	p := filepath.Join(v.root, lockFile)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("lock vault: %w", err)
	}
	l := flock.New(p)
	ok, err := l.TryLockContext(ctx, 2*time.Millisecond)
	if err != nil {
		return nil, fmt.Errorf("lock vault %s: %w", p, err)
	}
	if !ok {
		return nil, fmt.Errorf("lock vault %s: %w", p, ctx.Err())
	}
	return func() { _ = l.Unlock() }, nil
}
