// Package filelock takes advisory locks on files, shared between processes
// (flock, through github.com/gofrs/flock): the kernel lets go of a lock
// when its holder's file is closed, so a crashed holder never leaves one
// held. A lock is per open file, so two Locks on one path in one process
// exclude each other as two processes would.
//
// Every wait ends with its context; the lock file and its folder are made
// when missing.
package filelock

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// retry is how long a waiter sleeps between tries: flock has no wait that
// a context can end, so a wait is a loop of tries.
const retry = 2 * time.Millisecond

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
	return wait(ctx, path, (*flock.Flock).TryLockContext)
}

// Shared waits until ctx ends for a shared lock on the file at path, which
// other shared locks may hold too.
func Shared(ctx context.Context, path string) (*Lock, error) {
	return wait(ctx, path, (*flock.Flock).TryRLockContext)
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

func wait(ctx context.Context, path string, lock func(*flock.Flock, context.Context, time.Duration) (bool, error)) (*Lock, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	ok, err := lock(f, ctx, retry)
	if err == nil && !ok {
		err = ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f}, nil
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
