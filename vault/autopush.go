package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ctx0/ctx0/internal/clock"
	"github.com/ctx0/ctx0/internal/filelock"
)

// pushWantedFile says that commits wait to be pushed; pushLockFile is held
// by the one process pushing them. Many writes thus make one push, and a
// write that comes while a push runs is pushed by the same process. The
// pusher renames the record to pushTakenFile as its sync starts and
// removes that once the sync has pushed: a pusher killed in between leaves
// the push wanted.
const (
	pushWantedFile = ".ctx0/state/push-wanted"
	pushTakenFile  = ".ctx0/state/push-taken"
	pushLockFile   = ".ctx0/state/push.lock"
)

// WantPush records that the vault has commits to push, and reports whether
// a pusher should be started: none holds the push lock now. A pusher that
// holds it checks the record again after letting go (see PushWanted), so a
// write that comes as it finishes is never left behind.
func WantPush(root string) (start bool, err error) {
	p := filepath.Join(root, filepath.FromSlash(pushWantedFile))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return false, fmt.Errorf("want push: %w", err)
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		return false, fmt.Errorf("want push: %w", err)
	}
	l, ok, err := filelock.TryExclusive(filepath.Join(root, filepath.FromSlash(pushLockFile)))
	if err != nil {
		return false, fmt.Errorf("want push: %w", err)
	}
	if ok {
		l.Unlock()
	}
	return ok, nil
}

// PushIsWanted reports whether commits wait for a push that has not
// succeeded yet.
func PushIsWanted(root string) bool {
	for _, f := range []string{pushWantedFile, pushTakenFile} {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(f))); err == nil {
			return true
		}
	}
	return false
}

// PushOptions says how PushWanted works.
type PushOptions struct {
	Sync SyncOptions
	// Debounce lets a burst of writes land before the push (default 1s).
	Debounce time.Duration
	// MaxBackoff is the longest wait between attempts while the remote
	// cannot be reached (default 5 minutes); GiveUp is how long to keep
	// trying (default 1 hour). The record stays, so the next write or
	// session start tries again.
	MaxBackoff, GiveUp time.Duration
	Now                func() time.Time
	Sleep              func(ctx context.Context, d time.Duration) error
	Report             func(WatchEvent)
}

// PushWanted syncs while a push is wanted and no other process is pushing:
// the background half of automatic sync. It merges what the remote has
// (field by field, as Sync does) so the push can land, refuses a
// rewritten remote, and retries an unreachable one with back-off. A push
// that does not happen leaves the record in place; local commits are never
// touched by a failure.
func (v *Vault) PushWanted(ctx context.Context, o PushOptions) error {
	if o.Debounce <= 0 {
		o.Debounce = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 5 * time.Minute
	}
	if o.GiveUp <= 0 {
		o.GiveUp = time.Hour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = clock.Sleep
	}
	if o.Report == nil {
		o.Report = func(WatchEvent) {}
	}
	o.Sync.RefuseRewrite = true
	wanted := filepath.Join(v.root, filepath.FromSlash(pushWantedFile))
	for PushIsWanted(v.root) {
		if err := v.gone(); err != nil {
			return fmt.Errorf("push: %w", err)
		}
		l, ok, err := filelock.TryExclusive(filepath.Join(v.root, filepath.FromSlash(pushLockFile)))
		if err != nil {
			return fmt.Errorf("push: %w", err)
		}
		if !ok {
			return nil // another process pushes, and will see the record
		}
		err = v.pushWhileWanted(ctx, o, wanted)
		l.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// pushWhileWanted is PushWanted's work under the push lock.
func (v *Vault) pushWhileWanted(ctx context.Context, o PushOptions, wanted string) error {
	for PushIsWanted(v.root) {
		if err := o.Sleep(ctx, o.Debounce); err != nil {
			return nil
		}
		// Taken before the sync: a write during the sync records it
		// again, and this loop pushes that too. The taken record goes
		// once the push is made, so a pusher killed before that leaves
		// the push wanted (a record taken by a pusher that was killed is
		// pushed now).
		taken := filepath.Join(v.root, filepath.FromSlash(pushTakenFile))
		if err := os.Rename(wanted, taken); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("push: %w", err)
		}
		start, backoff, told := o.Now(), time.Duration(0), false
		for {
			res, err := v.Sync(ctx, o.Sync)
			ev := WatchEvent{Time: o.Now(), Trigger: "commit", Result: &res, Status: "synced", Recovered: told}
			if err == nil {
				o.Report(ev)
				if err := os.Remove(taken); err != nil && !errors.Is(err, os.ErrNotExist) {
					return fmt.Errorf("push: %w", err)
				}
				break
			}
			ev.Status, ev.Error = "offline", err.Error()
			backoff = min(max(2*backoff, o.Debounce), o.MaxBackoff)
			refused := errors.Is(err, ErrRewritten) || errors.Is(err, ErrUnrelated)
			if refused {
				ev.Status = "refused"
			}
			if err := v.gone(); err != nil {
				return fmt.Errorf("push: %w", err)
			}
			if refused || ctx.Err() != nil || o.Now().Sub(start)+backoff > o.GiveUp {
				ev.Error += "; the commits stay here and the next write or session start pushes them"
				o.Report(ev)
				return keepWanted(wanted, err)
			}
			if !told {
				ev.RetryIn = backoff
				o.Report(ev)
				told = true
			}
			if o.Sleep(ctx, backoff) != nil {
				return keepWanted(wanted, ctx.Err())
			}
		}
	}
	return nil
}

// gone says whether the vault was removed while a pusher waited out an
// unreachable remote: its git folder is the sign, since the pusher's own
// locks and log make the state folder again.
func (v *Vault) gone() error {
	if _, err := os.Stat(v.gitDir); err != nil {
		return fmt.Errorf("the vault is gone: %w", err)
	}
	return nil
}

// keepWanted puts the push record back after a push that did not happen,
// and returns err.
func keepWanted(wanted string, err error) error {
	if werr := os.WriteFile(wanted, nil, 0o644); werr != nil {
		return fmt.Errorf("%w (and keeping the push record: %v)", err, werr)
	}
	return err
}
