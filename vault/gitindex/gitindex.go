// Package gitindex stages and unstages a few paths in a git index file
// (.git/index) without decoding and re-encoding the whole index.
//
// ctx0 commits with go-git plumbing and then calls Apply for just the paths
// it changed, so that `git status` stays clean and whatever a person staged
// elsewhere stays staged. Decoding and re-encoding a 10,000-entry index with
// go-git's plumbing/format/index costs tens of milliseconds; Apply instead
// walks the entry headers to find byte ranges, copies the untouched entries
// verbatim and splices the changed ones in. See
// https://git-scm.com/docs/index-format.
//
// What Apply does, and how it matches `git add` / `git rm --cached`:
//
//   - Locking is git's: it creates index.lock exclusively (retrying for
//     about two seconds while a git command holds it), writes the new index
//     there, fsyncs it and renames it over index. On error the lock file is
//     removed and the index is left as it was.
//   - Versions 2, 3 and 4 are all spliced. In version 4 (path prefix
//     compression) an entry's name is stored relative to the previous
//     entry's, so the first untouched entry after each change has its name
//     re-encoded; the rest is still copied verbatim. go-git's decoder and
//     encoder are not used as a fallback for version 4: besides costing the
//     full decode and encode, the encoder writes no extensions at all (TREE
//     and REUC would be lost), has no assume-unchanged bit, and sorts by
//     name only with an unstable sort, which may reorder the stages of an
//     unmerged path. The version is kept; a missing index is created as
//     version 2.
//   - Updating a path drops all its entries, including the stages 1-3 of an
//     unresolved conflict, and adds one stage-0 entry. Like `git add`, an
//     added path also displaces index entries it conflicts with: a file
//     where it needs a directory ("a" when adding "a/b") and everything
//     under it when it was a directory ("a/..." when adding "a"). Dropped
//     unmerged stages are recorded in the resolve-undo extension (REUC) as
//     git does, so `git checkout -m PATH` can re-create the conflict.
//   - The cache tree (TREE) is invalidated along each changed path, exactly
//     like git's cache_tree_invalidate_path: the directories on the path get
//     entry count -1, and a subtree the path itself named is removed. The
//     rest stays valid, so git can still skip unchanged directories.
//   - Resolve-undo (REUC) is kept. The other optional extensions are dropped,
//     because they describe the entries by position or by file presence:
//     UNTR (untracked cache), FSMN (fsmonitor), EOIE and IEOT (entry
//     offsets), and any unknown one whose signature starts with 'A'..'Z'.
//     git rebuilds them when it needs them.
//   - Required extensions (signature not starting with 'A'..'Z') make Apply
//     fail without writing: a split index ("link", ErrSplitIndex), a sparse
//     index ("sdir", ErrSparseIndex) or any unknown one.
//   - The trailing checksum is verified before and recomputed after. If it
//     is all zero bytes (index.skipHash), it is neither verified nor
//     computed: a zero trailer is written again.
//   - Only SHA-1 repositories are supported (go-git v5's plumbing.Hash).
package gitindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Update is one path to stage or unstage.
type Update struct {
	Path   string            // slash-separated, relative to the work tree root
	Hash   plumbing.Hash     // blob hash; ignored when Remove
	Mode   filemode.FileMode // filemode.Regular usually; ignored when Remove
	Info   os.FileInfo       // os.Lstat of the work-tree file right after ctx0 wrote it: fills git's stat cache so `git status` doesn't rehash it; nil leaves it zero (git then rehashes the file once). Ignored when Remove.
	Remove bool              // drop the path from the index
}

// DefaultLockTimeout is how long Apply waits for another process's
// index.lock.
const DefaultLockTimeout = 2 * time.Second

// Apply writes updates into the index file of the repository whose git dir
// is gitDir (for a linked worktree, the worktree's own git dir, which holds
// its index). It does not write when updates change nothing (none, or only
// removals of paths the index lacks). Errors name the index file and wrap
// the cause: fs.ErrExist when another process held index.lock throughout,
// ctx.Err() when ctx ended first, ErrSplitIndex, ErrSparseIndex.
func Apply(ctx context.Context, gitDir string, updates []Update) (err error) {
	return ApplyWithLock(ctx, gitDir, updates, WaitLock(DefaultLockTimeout))
}

// WaitLock returns a Locker that creates the lock file, waiting with
// backoff while another process holds it, for up to timeout.
func WaitLock(timeout time.Duration) Locker {
	return func(ctx context.Context, lockPath string) (*os.File, error) {
		return lockIndex(ctx, lockPath, timeout)
	}
}

// A Locker creates git's lock file lockPath exclusively and returns it open
// for writing, or fails with an error wrapping fs.ErrExist when another
// process holds it.
type Locker func(ctx context.Context, lockPath string) (*os.File, error)

// ApplyWithLock is Apply with the lock file created by lock, for a caller
// that records which lock files it creates, so that one left by a killed
// process can be told from a running git command's.
func ApplyWithLock(ctx context.Context, gitDir string, updates []Update, lock Locker) error {
	p, err := PrepareWithLock(ctx, gitDir, updates, lock)
	if err != nil {
		return err
	}
	return p.Commit()
}

// Prepared is a new index written and synced into git's lock file,
// index.lock, but not yet in place: the index is unchanged until Commit.
// A caller that must order the index after another durable step (the
// branch moving) prepares it beside that step, and commits it after.
type Prepared struct {
	f                   *os.File // the lock file, open until Commit
	lockPath, indexPath string
	changed             bool

	// cache, when set, is given keep once the index is in place.
	cache *Cache
	keep  []byte
	stamp fileStamp // of the file keep is, when it was not rewritten
	old   []byte    // the kept index this one replaces
}

// Commit puts the prepared index in place by renaming the lock file over
// it (when nothing changed, it only releases the lock). It is not synced
// with its folder: a caller that must know the rename survives a power cut
// syncs the git dir.
func (p *Prepared) Commit() (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("update git index %s: %w", p.indexPath, err)
		}
	}()
	if p.f == nil {
		return nil
	}
	err = p.f.Close()
	p.f = nil
	if !p.changed || err != nil {
		if rmErr := os.Remove(p.lockPath); err == nil {
			err = rmErr
		}
		if err == nil && p.keep != nil {
			p.cache.put(p.indexPath, p.keep, p.stamp)
		}
		return err
	}
	if err := os.Rename(p.lockPath, p.indexPath); err != nil {
		os.Remove(p.lockPath)
		return err
	}
	if p.keep != nil {
		p.cache.putWritten(p.indexPath, p.keep, p.old)
	}
	return nil
}

// Changed tells whether Commit replaces the index (false: the updates
// changed nothing).
func (p *Prepared) Changed() bool { return p.changed }

// PrepareWithLock does what ApplyWithLock does short of the rename: it
// takes the lock with lock, writes the new index into it and fsyncs it,
// so that the rename Commit makes never exposes a half-written index. On
// error the lock file is removed and the index is left as it was.
func PrepareWithLock(ctx context.Context, gitDir string, updates []Update, lock Locker) (*Prepared, error) {
	return prepare(ctx, gitDir, updates, lock, nil)
}

// prepare is PrepareWithLock, reading the index from c when c holds it as
// it is on disk, and keeping the new one in c when c keeps what it writes.
func prepare(ctx context.Context, gitDir string, updates []Update, lock Locker, c *Cache) (_ *Prepared, err error) {
	indexPath := filepath.Join(gitDir, "index")
	defer func() {
		if err != nil {
			err = fmt.Errorf("update git index %s: %w", indexPath, err)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(updates) == 0 {
		return &Prepared{indexPath: indexPath}, nil
	}
	ops, err := prepareOps(updates)
	if err != nil {
		return nil, err
	}

	lockPath := indexPath + ".lock"
	f, err := lock(ctx, lockPath)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(lockPath)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// The index as this process last wrote it, when the file is still
	// that one: neither read nor its checksum verified again.
	data, kept := c.take(indexPath)
	var dst io.Writer = f
	var out *keptIndex
	if c.keeps() {
		out = &keptIndex{data: c.spare()}
		dst = io.MultiWriter(f, out)
	}
	var ix *indexFile
	if data == nil {
		var release func()
		data, release, err = readIndexFile(indexPath)
		switch {
		case err == nil:
			defer release()
		case errors.Is(err, fs.ErrNotExist):
		default:
			return nil, err
		}
	}
	var changed bool
	err = readMapped(func() (err error) {
		ix = newIndexFile()
		if data != nil {
			if ix, err = parseIndex(data); err != nil {
				return err
			}
		}
		if kept != nil {
			changed, err = splice(ix, ops, dst)
		} else {
			changed, err = checkAndSplice(ix, ops, dst)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if changed {
		if err := f.Sync(); err != nil {
			return nil, err
		}
	}
	p := &Prepared{f: f, lockPath: lockPath, indexPath: indexPath, changed: changed, cache: c}
	switch {
	case changed && out != nil:
		p.keep = out.data
		if kept != nil {
			p.old = kept.data
		}
	case !changed && kept != nil:
		p.keep, p.stamp = kept.data, kept.stamp // the file stays as it was
	}
	return p, nil
}

// lockIndex creates lockPath exclusively, retrying with backoff while another
// process holds it, for up to timeout.
func lockIndex(ctx context.Context, lockPath string, timeout time.Duration) (*os.File, error) {
	deadline := time.Now().Add(timeout)
	delay := time.Millisecond
	for {
		f, err := os.OpenFile(lockPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return nil, fmt.Errorf("%w (another git process seems to be running in this repository; if none is, remove the lock file)", err)
		}
		t := time.NewTimer(min(delay, wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		delay = min(2*delay, 100*time.Millisecond)
	}
}

// prepareOps validates updates, builds their entry headers and sorts them by
// path in git's order.
func prepareOps(updates []Update) ([]op, error) {
	if len(plumbing.ZeroHash) != hashLen {
		return nil, errors.New("only SHA-1 repositories are supported")
	}
	ops := make([]op, len(updates))
	added := make(map[string]bool, len(updates))
	for i, u := range updates {
		if err := checkPath(u.Path); err != nil {
			return nil, fmt.Errorf("path %q: %w", u.Path, err)
		}
		o := &ops[i]
		o.path = []byte(u.Path)
		o.remove = u.Remove
		if u.Remove {
			continue
		}
		mode := u.Mode
		switch mode {
		case filemode.Regular, filemode.Executable, filemode.Symlink, filemode.Submodule:
		case filemode.Deprecated:
			mode = filemode.Regular
		default:
			return nil, fmt.Errorf("path %q: mode %o cannot be staged", u.Path, uint32(u.Mode))
		}
		if u.Hash.IsZero() {
			return nil, fmt.Errorf("path %q: zero object hash", u.Path)
		}
		if u.Info != nil {
			fillStat(&o.hdr, u.Info)
		}
		be := binary.BigEndian
		be.PutUint32(o.hdr[modeOffset:], uint32(mode))
		copy(o.hdr[hashOffset:hashOffset+hashLen], u.Hash[:])
		be.PutUint16(o.hdr[flagsOffset:], uint16(min(len(u.Path), flagNameMask)))
		added[u.Path] = true
	}
	slices.SortFunc(ops, func(a, b op) int { return bytes.Compare(a.path, b.path) })
	for i := 1; i < len(ops); i++ {
		if bytes.Equal(ops[i-1].path, ops[i].path) {
			return nil, fmt.Errorf("path %q: updated twice", ops[i].path)
		}
	}
	for p := range added {
		for dir := p; ; {
			j := strings.LastIndexByte(dir, '/')
			if j < 0 {
				break
			}
			dir = dir[:j]
			if added[dir] {
				return nil, fmt.Errorf("path %q: staged as a file and as a directory of %q", dir, p)
			}
		}
	}
	return ops, nil
}

// checkPath applies the rules of git's verify_path that matter on any
// platform: a relative, normalized path without ".git" components.
func checkPath(p string) error {
	if p == "" {
		return errors.New("empty path")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return errors.New("NUL in path")
	}
	for comp := range strings.SplitSeq(p, "/") {
		switch {
		case comp == "":
			return errors.New("empty path component (absolute path, or a doubled or trailing slash)")
		case comp == "." || comp == "..":
			return fmt.Errorf("%q path component", comp)
		case strings.EqualFold(comp, ".git"):
			return errors.New(".git path component")
		}
	}
	return nil
}
