// Package filelock takes advisory locks on files, shared between processes
// (flock, through github.com/gofrs/flock): the kernel lets go of a lock
// when its holder's file is closed, so a crashed holder never leaves one
// held. A lock is per open file, so two Locks on one path in one process
// exclude each other as two processes would.
//
// A wait blocks in the kernel (flock without LOCK_NB) rather than retrying:
// a waiter costs no CPU however many wait, and the kernel hands the lock
// over as soon as it is let go. Every wait ends with its context; the lock
// file and its folder are made when missing.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/gofrs/flock"
)

// Lock is a lock held on a file.
type Lock struct{ f *flock.Flock }

// Path is the lock file's path.
func (l *Lock) Path() string { return l.f.Path() }

// Unlock lets go of the lock.
func (l *Lock) Unlock() error {
	if err := l.f.Unlock(); err != nil {
		return fmt.Errorf("unlock %s: %w", l.f.Path(), err)
	}
	return nil
}

// Exclusive waits until ctx ends for the exclusive lock on the file at
// path; the error wraps ctx.Err() if ctx ends first.
func Exclusive(ctx context.Context, path string) (*Lock, error) {
	return wait(ctx, path, (*flock.Flock).TryLock, (*flock.Flock).Lock)
}

// Shared waits until ctx ends for a shared lock on the file at path, which
// other shared locks may hold too.
func Shared(ctx context.Context, path string) (*Lock, error) {
	return wait(ctx, path, (*flock.Flock).TryRLock, (*flock.Flock).RLock)
}

// TryExclusive takes the exclusive lock on the file at path if no one
// holds a lock on it; ok is false if someone does.
func TryExclusive(path string) (l *Lock, ok bool, err error) {
	return try(path, (*flock.Flock).TryLock)
}

// TryShared takes a shared lock on the file at path unless someone holds
// the exclusive one; ok is false if someone does.
func TryShared(path string) (l *Lock, ok bool, err error) {
	return try(path, (*flock.Flock).TryRLock)
}

// wait tries the lock once, then blocks for it in a goroutine, since a
// blocking flock cannot be interrupted by a context. A wait that ctx ends
// leaves that goroutine blocked; when it gets the lock at last it lets go
// of it at once, so a cancelled wait never keeps the lock.
func wait(ctx context.Context, path string, try func(*flock.Flock) (bool, error), block func(*flock.Flock) error) (*Lock, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	if ok, err := try(f); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	} else if ok {
		return &Lock{f}, nil
	}
	var (
		mu        sync.Mutex
		abandoned bool
		got       = make(chan error, 1)
	)
	go func() {
		err := block(f)
		// A signal to the thread may end the wait early: wait again.
		for errors.Is(err, syscall.EINTR) {
			err = block(f)
		}
		mu.Lock()
		defer mu.Unlock()
		if abandoned {
			if err == nil {
				f.Unlock()
			}
			return
		}
		got <- err
	}()
	select {
	case err := <-got:
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return &Lock{f}, nil
	case <-ctx.Done():
		mu.Lock()
		abandoned = true
		mu.Unlock()
		// The lock may have come between ctx's end and now.
		select {
		case err := <-got:
			if err == nil {
				f.Unlock()
			}
		default:
		}
		return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
	}
}

func try(path string, lock func(*flock.Flock) (bool, error)) (*Lock, bool, error) {
	f, err := open(path)
	if err != nil {
		return nil, false, err
	}
	ok, err := lock(f)
	if err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, false, nil
	}
	return &Lock{f}, true, nil
}

func open(path string) (*flock.Flock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return flock.New(path), nil
}
