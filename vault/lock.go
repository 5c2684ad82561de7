package vault

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/ctx0/ctx0/internal/proc"
)

// lockFile serializes ctx0 writers of one vault. It is an advisory lock
// (flock), so a crashed writer never leaves it held; what the holder was
// doing is in its journal (journalFile), which the next holder reads.
const lockFile = ".ctx0/lock"

// lock waits for the vault's write lock until ctx ends. Taking it repairs
// what a killed holder left half done (recoverLocked).
func (v *Vault) lock(ctx context.Context) (unlock func(), err error) {
	unlock, ok, err := v.takeLock(ctx, true)
	if err == nil && !ok {
		err = fmt.Errorf("lock vault %s: %w", filepath.Join(v.root, lockFile), ctx.Err())
	}
	return unlock, err
}

// takeLock takes the vault lock, waiting for it until ctx ends if wait is
// set; ok is false when it was not taken. Goroutines of one process queue
// on v.sem first: a flock is per open file, so they would exclude each
// other anyway, but v.held must have one owner.
func (v *Vault) takeLock(ctx context.Context, wait bool) (unlock func(), ok bool, err error) {
	if wait {
		select {
		case v.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, false, nil
		}
	} else {
		select {
		case v.sem <- struct{}{}:
		default:
			return nil, false, nil
		}
	}
	release := func() { <-v.sem }
	// A vault removed under a long-running process (a pusher waiting out
	// the network) is not made again by its lock's folder.
	if _, err := os.Stat(v.gitDir); err != nil {
		release()
		return nil, false, fmt.Errorf("lock vault %s: %w", v.root, err)
	}
	p := filepath.Join(v.root, lockFile)
	var l *filelock.Lock
	if wait {
		l, err = v.waitLock(ctx, p, "another ctx0 process writing to this vault")
		ok = err == nil
	} else {
		l, ok, err = filelock.TryExclusive(p)
	}
	if err != nil || !ok {
		release()
		return nil, false, err
	}
	// Whoever held the lock before may have added packfiles (a sync's
	// fetch): look for them again.
	v.reloadPacks()
	h := &held{path: filepath.Join(v.root, filepath.FromSlash(journalFile))}
	unlock = func() {
		v.held = nil
		if len(h.j.Writes) == 0 {
			// Every write finished (or was put back): nothing to repair.
			// A write that failed after its commit keeps its record, so
			// the next command finishes it.
			h.done()
		}
		l.Unlock()
		release()
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o755); err != nil {
		unlock()
		return nil, false, fmt.Errorf("lock vault: %w", err)
	}
	if prev, found, err := readJournal(h.path); err != nil {
		unlock()
		return nil, false, err
	} else if found {
		if err := v.recoverLocked(ctx, prev); err != nil {
			// Keep the journal for the next try.
			l.Unlock()
			release()
			return nil, false, err
		}
	}
	h.j = journal{Holder: proc.Self().String()}
	v.held = h
	return unlock, true, nil
}

// recoverPending repairs what a killed writer left, if its journal is
// there and nobody holds the vault now; a command that only reads calls it
// on opening the vault, so that it never shows a half-made write. It costs
// one stat when there is nothing to do.
func (v *Vault) recoverPending(ctx context.Context) error {
	v.recoverFetch()
	if _, err := os.Stat(filepath.Join(v.root, filepath.FromSlash(journalFile))); err != nil {
		return nil
	}
	unlock, ok, err := v.takeLock(ctx, false)
	if err != nil || !ok {
		return err
	}
	unlock()
	return nil
}

// reloadPacks makes the repository list its packfiles again on the next
// read. go-git lists them once per process, so the objects of a pack that
// another process wrote later (a sync's fetch, a person's git fetch or git
// gc) are "not found" to a long-running one (ctx0 sync --watch, the MCP
// server) until it does: its writes and merges then fail on the commits
// they build on. Cheap: the pack indexes are read again, and only once.
func (v *Vault) reloadPacks() {
	if s, ok := v.repo.Storer.(interface{ Reindex() }); ok {
		s.Reindex()
	}
}

// waitLock takes the exclusive lock on the file at p, waiting until ctx
// ends; if another process holds it, it first tells onWait that it waits
// for holder.
func (v *Vault) waitLock(ctx context.Context, p, holder string) (*filelock.Lock, error) {
	l, ok, err := filelock.TryExclusive(p)
	if err != nil || ok {
		return l, err
	}
	if v.onWait != nil {
		v.onWait(fmt.Sprintf("%s (lock %s)", holder, p))
	}
	return filelock.Exclusive(ctx, p)
}
