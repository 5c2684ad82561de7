package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/vault/gitindex"
)

// A change is one file that a write puts in the vault or takes out of it.
type change struct {
	path string // slash-separated, relative to the vault root
	data []byte // nil removes the file
	// base is the file as the change was decided on (nil: absent), when
	// based is set. If the file is no longer that when it is replaced, the
	// change is merged into what is there by field (replaceMerging), so a
	// change made from an old read never replaces a newer edit. Without
	// it, the file as the write path first reads it is the base, and a
	// file changed since fails the write with errStale.
	base  []byte
	based bool
	// disk is set for an edit made by another tool that is being
	// committed (externalChanges): the stat of the work-tree file taken
	// just before data was read from it. The file already holds data, so
	// it is staged as it is and not written again: writing it back would
	// rename a new file over the one that tool may still be writing (an
	// editor that truncates, then writes), and its write would land in a
	// file nobody sees. A stat from before the read makes git's staging
	// area describe the file no newer than data, so a write that comes
	// after the read shows as a change at the next look.
	disk os.FileInfo
	// untrack, with nil data, takes the path out of the commit and git's
	// staging area but leaves the file on disk: what ctx0 must never have
	// committed (machine-local state, a nested repository's files) that
	// another tool or an older ctx0 did.
	untrack bool
	// plain marks a file that is text but not an entry (a memory tool's
	// notes.txt): checked and redacted as text, as an entry's body is.
	plain bool
	// redacted marks data already redacted by the one who made it (a new
	// entry, newEntryChange), with what it replaced in counts: the write
	// path does not redact it again.
	redacted bool
	counts   map[string]int
}

// Commit describes a commit ctx0 made.
type Commit struct {
	Hash    string   `json:"commit"`
	Message string   `json:"message"`
	Paths   []string `json:"paths"`
	// Redacted counts the secrets replaced before the commit, by kind.
	Redacted map[string]int `json:"redacted,omitempty"`
	// Untracked lists the paths the commit took out of git's tracking,
	// their files kept: machine-local state or a repository's own files
	// that something other than ctx0 had committed.
	Untracked []string `json:"untracked,omitempty"`
}

// errRefMoved means another writer (a person's git commit) moved the branch
// between our read and our update.
var errRefMoved = errors.New("branch moved")

// apply is the write path: every ctx0 change to the vault goes through it.
// Under the vault lock it writes the files atomically, stores their blobs,
// builds new trees only along the changed paths from HEAD's tree (so the
// person's unrelated, uncommitted edits are never swept in, and the cost does
// not grow with the vault), writes the commit, moves the branch with a
// compare-and-swap, and stages the changed paths in .git/index so that `git
// status` stays clean.
//
// A crash between any two steps leaves the old commit or the new one; files
// written before the crash show up as uncommitted edits, never as a broken
// repository.
func (v *Vault) apply(ctx context.Context, msg string, changes []change) (Commit, error) {
	unlock, err := v.lock(ctx)
	if err != nil {
		return Commit{}, err
	}
	defer unlock()
	return v.applyLocked(ctx, msg, changes)
}

func (v *Vault) applyLocked(ctx context.Context, msg string, changes []change) (Commit, error) {
	if err := ctx.Err(); err != nil {
		return Commit{}, err
	}
	msg, redacted := redactChanges(msg, changes)
	blobs, err := v.storeBlobs(changes)
	if err != nil {
		return Commit{}, err
	}
	c, err := v.commitFiles(ctx, msg, changes, blobs, v.treePlan(ctx, msg, blobs))
	if c.Hash != "" {
		c.Redacted = redacted
	}
	return c, err
}

// storeBlobs stores the new content of changes, and returns each path's
// blob (the zero hash for a removal).
func (v *Vault) storeBlobs(changes []change) (map[string]plumbing.Hash, error) {
	blobs := make(map[string]plumbing.Hash, len(changes))
	for _, c := range changes {
		if c.data == nil {
			blobs[c.path] = plumbing.ZeroHash // remove
			continue
		}
		h, err := v.storeBlob(c.data)
		if err != nil {
			return nil, fmt.Errorf("store %s: %w", c.path, err)
		}
		blobs[c.path] = h
	}
	return blobs, nil
}

// treePlan commits HEAD's tree with blobs applied (path → blob, zero to
// remove), with message msg; nothing when the tree does not change.
func (v *Vault) treePlan(ctx context.Context, msg string, blobs map[string]plumbing.Hash) planFunc {
	return func(head headState) (plumbing.Hash, error) {
		var baseTree plumbing.Hash
		var parents []plumbing.Hash
		if !head.hash.IsZero() {
			t, ok := v.warm.commitTree(head.hash)
			if !ok {
				c, err := object.GetCommit(v.repo.Storer, head.hash)
				if err != nil {
					return plumbing.ZeroHash, fmt.Errorf("read HEAD commit %s: %w", head.hash, err)
				}
				t = c.TreeHash
			}
			baseTree = t
			parents = []plumbing.Hash{head.hash}
		}
		tree, err := v.writeTree(ctx, baseTree, blobs)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if tree == baseTree && len(parents) > 0 {
			// The files already held these bytes in git's eyes: no empty commit.
			return plumbing.ZeroHash, nil
		}
		return v.newCommit(tree, parents, msg)
	}
}

// planFunc returns the commit to move the branch to from head, writing it
// if it is new; the zero hash means there is nothing to commit.
type planFunc func(head headState) (plumbing.Hash, error)

// commitFiles writes changes into the work tree, commits the tree plan
// gives on the current HEAD, moves the branch, and stages the changed paths
// with blobs (their hashes; zero for removals).
func (v *Vault) commitFiles(ctx context.Context, msg string, changes []change, blobs map[string]plumbing.Hash, plan planFunc) (Commit, error) {
	s, err := v.stage(changes, blobs)
	if err != nil {
		return Commit{}, err
	}
	h, err := v.commitStaged(ctx, msg, []*staged{s}, plan)
	switch {
	case err != nil && h.IsZero():
		return Commit{}, err
	case err != nil:
		return Commit{Hash: h.String(), Message: msg}, err
	}
	return Commit{Hash: h.String(), Message: msg, Paths: s.paths()}, nil
}

// staged is one write's files, in the work tree and in the lock's journal,
// waiting for the commit that holds them.
//
// The order keeps a commit from ever standing without its files: files
// first (stage), then the branch, then git's staging area (commitStaged).
// Each change is in the lock's journal first, with its content before and
// after, so a process killed at any point is finished or undone by the next
// ctx0 command (recoverLocked).
type staged struct {
	changes   []change
	updates   []gitindex.Update
	undo      func() // puts the files back as they were
	settle    func() // brings back what other programs wrote to them meanwhile
	journaled int    // the journal's writes before this one's

	// written are the files it wrote, and dirs their folders, to be
	// synced before the commit (syncStaged).
	written, dirs []string
}

func (s *staged) paths() []string {
	paths := make([]string, len(s.changes))
	for i, c := range s.changes {
		paths[i] = c.path
	}
	return paths
}

// stage puts changes into the work tree, recorded first in the lock's
// journal. On failure nothing of it is left: the files are put back and
// their journal records dropped.
func (v *Vault) stage(changes []change, blobs map[string]plumbing.Hash) (*staged, error) {
	for _, c := range changes {
		if c.untrack {
			continue // nothing on disk is touched
		}
		if err := CheckPath(v.root, c.path); err != nil {
			return nil, fmt.Errorf("write %s: %w", c.path, err)
		}
		if c.data != nil {
			if err := checkTakeable(c.path, filemode.Regular); err != nil {
				return nil, fmt.Errorf("write %s: %w", c.path, err)
			}
		}
	}
	before, undo, err := v.snapshot(changes)
	if err != nil {
		return nil, err
	}
	s := &staged{changes: changes, undo: undo, settle: func() {}}
	if s.journaled, err = v.journalWrites(changes, blobs, before); err != nil {
		s.abandon(v)
		return nil, err
	}
	updates, written, settle, err := v.writeWorkTree(changes, blobs, before)
	s.settle = settle
	if err != nil {
		s.abandon(v)
		return nil, err
	}
	s.updates, s.written = updates, written
	for _, f := range written {
		s.dirs = append(s.dirs, filepath.Dir(f))
	}
	return s, nil
}

// syncing is told of the files and folders syncStaged makes durable,
// before it does; tests watch it.
var syncing = func(files, dirs []string) {}

// syncStaged makes the files that ss wrote durable, and then their
// folders, each once: the write path calls it before the branch moves, so
// that after a power cut a commit never stands without its files. The
// files are synced at once, so that the file system commits them in one
// journal commit or a few rather than one after another.
func syncStaged(ss []*staged) error {
	var files []string
	dirs := map[string]bool{}
	for _, s := range ss {
		files = append(files, s.written...)
		for _, d := range s.dirs {
			dirs[d] = true
		}
	}
	syncing(files, slices.Sorted(maps.Keys(dirs)))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i, f := range files {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := atomicfile.SyncFile(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				// Gone: another program removed it since; the
				// commit holds the blob all the same.
				errs[i] = fmt.Errorf("sync %s: %w", f, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for d := range dirs {
		if err := atomicfile.SyncDir(d); err != nil {
			return fmt.Errorf("sync folder %s: %w", d, err)
		}
	}
	return nil
}

// abandon puts back what s wrote (only files that still hold it), drops
// its journal records, and brings back what other programs wrote to the
// files meanwhile.
func (s *staged) abandon(v *Vault) {
	if v.held != nil {
		v.held.dropWrites(s.journaled)
	}
	s.undo()
	s.settle()
}

// commitStaged commits the tree plan gives on the current HEAD, moves the
// branch, and stages the files of ss in git's staging area. It returns the
// commit; the commit with an error when it stands but the staging area
// could not be brought up to date (the journal keeps the record, so the
// next ctx0 command does it). If the branch did not move, every write of ss
// is put back.
func (v *Vault) commitStaged(ctx context.Context, msg string, ss []*staged, plan planFunc) (commit plumbing.Hash, err error) {
	committed := false
	defer func() {
		if err != nil && !committed {
			for i := len(ss) - 1; i >= 0; i-- {
				ss[i].abandon(v)
			}
			return
		}
		// The record of these writes is kept only when the commit stands
		// but git's staging area lags: the next command stages them.
		if err == nil && v.held != nil && len(ss) > 0 {
			v.held.dropWrites(ss[0].journaled)
		}
		// Writes other programs made to the replaced files are brought
		// back once the commit is staged.
		for _, s := range ss {
			s.settle()
		}
	}()
	// git's staging area is locked before the branch moves, as `git commit`
	// does, so that a commit is never made that cannot then be staged.
	indexLockPath := filepath.Join(v.gitDir, "index.lock")
	indexLock, err := v.lockGitIndex(ctx, indexLockPath)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("update git index: %w", err)
	}
	defer releaseLockFile(indexLock, indexLockPath)

	// The waits on the disk overlap: the files' and their folders' fsyncs
	// and the new staging area's (written and synced into index.lock, not
	// yet in place) run while the trees and the commit are made and the
	// branch's new value is written and synced. Only then, in order, does
	// the branch move (once the files are durable: a commit never stands
	// without them) and the staging area follow it.
	synced := make(chan error, 1)
	go func() { synced <- syncStaged(ss) }()
	var updates []gitindex.Update
	for _, s := range ss {
		updates = append(updates, s.updates...)
	}
	type prepared struct {
		p   *gitindex.Prepared
		err error
	}
	staging := make(chan prepared, 1)
	go func() {
		locked := func(context.Context, string) (*os.File, error) { return indexLock, nil }
		p, err := v.gitIndex.Prepare(ctx, v.gitDir, updates, locked)
		staging <- prepared{p, err}
	}()
	var syncErr error
	syncDone := false
	filesDurable := func() error {
		if !syncDone {
			syncErr, syncDone = <-synced, true
		}
		return syncErr
	}
	defer func() {
		// Nothing runs on past the commit: an abandoned write's files are
		// put back only once their fsyncs are over.
		filesDurable()
	}()
	var pending prepared
	defer func() {
		if pending.p == nil && pending.err == nil {
			pending = <-staging
		}
	}()

	var moved plumbing.ReferenceName
	for attempt := 0; ; attempt++ {
		commit, moved, err = v.commitOnHead(ctx, msg, plan, filesDurable)
		if !errors.Is(err, errRefMoved) || attempt == 5 {
			break
		}
	}
	if err == nil {
		// A commit with nothing to change moves no branch: the files
		// must be durable all the same before the write is reported.
		err = filesDurable()
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	committed = true
	if v.onCommit != nil && (v.held == nil || !v.held.syncing) {
		v.onCommit(v)
	}
	pending = <-staging
	ierr := pending.err
	if ierr == nil {
		ierr = pending.p.Commit()
	}
	if ierr != nil {
		// The commit stands, and so do the files. Only git's staging area
		// is behind; the journal keeps the record, so the next ctx0
		// command brings it up to date.
		return commit, fmt.Errorf("%w (commit %s was made and its files are in place; the next ctx0 command stages them)", ierr, commit.String()[:10])
	}
	// The renames of the branch and of the staging area are made durable
	// together: the write is reported only once its commit survives a
	// power cut.
	if err := v.syncRenames(moved, pending.p.Changed()); err != nil {
		return commit, fmt.Errorf("%w (commit %s was made)", err, commit.String()[:10])
	}
	return commit, nil
}

// syncRenames makes durable the renames that put a commit in place: the
// branch's (its folder; none when no branch moved) and, when changed, git's
// staging area's (the git dir). Both folders are synced at once, so that
// the file system commits them together.
func (v *Vault) syncRenames(moved plumbing.ReferenceName, indexChanged bool) error {
	dirs := map[string]bool{}
	if moved != "" {
		dirs[filepath.Dir(filepath.Join(v.gitDir, filepath.FromSlash(moved.String())))] = true
	}
	if indexChanged {
		dirs[v.gitDir] = true
	}
	errs := make(chan error, len(dirs))
	for d := range dirs {
		go func() {
			if err := atomicfile.SyncDir(d); err != nil {
				errs <- fmt.Errorf("sync folder %s: %w", d, err)
				return
			}
			errs <- nil
		}()
	}
	var all []error
	for range dirs {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

// releaseLockFile closes f, the git lock file p, and removes p, unless it
// was renamed into place (p is no longer that file) or is gone.
func releaseLockFile(f *os.File, p string) {
	ours, err := f.Stat()
	f.Close()
	if fi, lerr := os.Lstat(p); err == nil && lerr == nil && os.SameFile(fi, ours) {
		os.Remove(p)
	}
}

// lockGitIndex takes .git/index.lock for gitindex, recorded in the journal.
func (v *Vault) lockGitIndex(ctx context.Context, p string) (*os.File, error) {
	return v.createGitLock(ctx, p, v.gitLockWait)
}

// writeWorkTree puts changes into the work tree and returns how to stage
// them, and the files it wrote. Big batches (a merge, an import) write
// files in parallel. Nothing is synced here: the commit syncs the files
// of all its writes together, and each folder once (syncStaged), rather
// than paying two fsyncs per file in turn.
//
// settle, which the caller runs once its commit is made, brings into the
// work tree what other programs wrote to the replaced files meanwhile
// (replaced.settle).
func (v *Vault) writeWorkTree(changes []change, blobs map[string]plumbing.Hash, before []saved) (_ []gitindex.Update, written []string, settle func(), _ error) {
	settles := make([]func(), len(changes))
	settle = func() {
		for _, s := range settles {
			if s != nil {
				s()
			}
		}
	}
	updates := make([]gitindex.Update, len(changes))
	merged := make([]plumbing.Hash, len(changes))
	errs := make([]error, len(changes))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, c := range changes {
		full := filepath.Join(v.root, filepath.FromSlash(c.path))
		if c.untrack {
			// git's staging area cannot hold a path git refuses: nothing
			// to take out of it.
			if gitPathError(c.path) == nil {
				updates[i] = gitindex.Update{Path: c.path, Remove: true}
			}
			continue
		}
		if c.disk != nil && c.data != nil {
			updates[i] = gitindex.Update{Path: c.path, Hash: blobs[c.path], Mode: filemode.Regular, Info: c.disk}
			continue
		}
		if c.data == nil {
			if cur, err := os.ReadFile(full); (err == nil || errors.Is(err, os.ErrNotExist)) && !sameContent(cur, before[i].data) {
				errs[i] = fmt.Errorf("remove %s: %w", c.path, errStale)
				break
			}
			if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs[i] = fmt.Errorf("remove %s: %w", c.path, err)
				break
			}
			removeEmptyDirs(v.root, filepath.Dir(full))
			updates[i] = gitindex.Update{Path: c.path, Remove: true}
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			expect := before[i].data
			if c.based {
				expect = c.base
			}
			info, r, data, err := v.replaceMerging(c, full, expect)
			if err != nil {
				errs[i] = fmt.Errorf("write %s: %w", c.path, err)
				return
			}
			if r != nil {
				settles[i] = func() { r.settle(v, c.path) }
			}
			h := blobs[c.path]
			if !bytes.Equal(data, c.data) {
				if h, err = v.storeBlob(data); err != nil {
					errs[i] = fmt.Errorf("store %s: %w", c.path, err)
					return
				}
				changes[i].data = data
				merged[i] = h
			}
			updates[i] = gitindex.Update{Path: c.path, Hash: h, Mode: filemode.Regular, Info: info}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, settle, err
	}
	if err := v.noteMerged(changes, merged, blobs); err != nil {
		return nil, nil, settle, err
	}
	kept := updates[:0]
	for i, u := range updates {
		if u.Path == "" {
			continue
		}
		kept = append(kept, u)
		if c := changes[i]; c.data != nil && c.disk == nil && !c.untrack {
			written = append(written, filepath.Join(v.root, filepath.FromSlash(c.path)))
		}
	}
	return kept, written, settle, nil
}

// commitOnHead moves the branch to the commit plan makes of the current
// HEAD, if nobody else moved it meanwhile, once durable (if not nil) says
// what the commit holds has reached the disk; it returns the commit and
// the reference it moved.
func (v *Vault) commitOnHead(ctx context.Context, msg string, plan planFunc, durable func() error) (plumbing.Hash, plumbing.ReferenceName, error) {
	head, err := v.head()
	if err != nil {
		return plumbing.ZeroHash, "", err
	}
	next, err := plan(head)
	if err != nil || next.IsZero() {
		return head.hash, "", err
	}
	if err := v.updateRef(ctx, head, next, v.signature(), msg, durable); err != nil {
		return plumbing.ZeroHash, "", err
	}
	return next, head.ref, nil
}

func (v *Vault) signature() object.Signature {
	a := v.Config().Author
	return object.Signature{Name: a.Name, Email: a.Email, When: v.now()}
}

// newCommit writes a commit object by the vault's author.
func (v *Vault) newCommit(tree plumbing.Hash, parents []plumbing.Hash, msg string) (plumbing.Hash, error) {
	if tree.IsZero() { // a vault emptied of every file still needs a root tree
		var err error
		if tree, err = v.storeTree(nil); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	sig := v.signature()
	c := &object.Commit{Author: sig, Committer: sig, Message: msg + "\n", TreeHash: tree, ParentHashes: parents}
	obj := v.repo.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	h, err := v.storeObject(obj)
	if err == nil {
		v.warm.putCommit(h, tree)
	}
	return h, err
}

// saved is a file as it was before a write: data nil when it did not exist.
type saved struct {
	full string
	data []byte
}

// snapshot records the current content of the files changes will touch and
// returns it with a function that puts them back.
func (v *Vault) snapshot(changes []change) (files []saved, undo func(), err error) {
	for _, c := range changes {
		full := filepath.Join(v.root, filepath.FromSlash(c.path))
		if c.untrack {
			files = append(files, saved{full: full})
			continue
		}
		data, err := os.ReadFile(full)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("read %s: %w", c.path, err)
		}
		files = append(files, saved{full, data})
	}
	return files, func() {
		for i, f := range files {
			if changes[i].disk != nil || changes[i].untrack {
				continue // committed as it was found: this write wrote nothing
			}
			// Only a file that still holds what this write put there is
			// put back: anything else is a later edit by someone else.
			if cur, err := os.ReadFile(f.full); (err == nil || errors.Is(err, os.ErrNotExist)) && !sameContent(cur, changes[i].data) {
				continue
			}
			if f.data == nil {
				os.Remove(f.full)
				removeEmptyDirs(v.root, filepath.Dir(f.full))
			} else {
				writeFileAtomic(f.full, f.data)
			}
		}
	}, nil
}

// storeBlob writes data as a blob object.
func (v *Vault) storeBlob(data []byte) (plumbing.Hash, error) {
	return v.storeBytes(plumbing.BlobObject, data)
}

// storeBytes writes data as an object of type t.
func (v *Vault) storeBytes(t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	obj := v.repo.Storer.NewEncodedObject()
	obj.SetType(t)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return v.storeObject(obj)
}

// writeTree returns the hash of tree base with edits applied (path → blob,
// zero hash to remove; a folder's path removes it whole), writing only the
// trees on the edited paths. An emptied subtree disappears, as in git.
func (v *Vault) writeTree(ctx context.Context, base plumbing.Hash, edits map[string]plumbing.Hash) (plumbing.Hash, error) {
	return v.writeTreeAt(ctx, "", base, edits)
}

// writeTreeAt is writeTree for the folder at prefix ("" or ending in /).
func (v *Vault) writeTreeAt(ctx context.Context, prefix string, base plumbing.Hash, edits map[string]plumbing.Hash) (plumbing.Hash, error) {
	if err := ctx.Err(); err != nil {
		return plumbing.ZeroHash, err
	}
	var entries []object.TreeEntry
	if !base.IsZero() {
		es, err := v.readTree(base)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", base, err)
		}
		entries = es
	}
	index := make(map[string]int, len(entries))
	for i, e := range entries {
		index[e.Name] = i
	}
	sub := map[string]map[string]plumbing.Hash{}
	files := map[string]plumbing.Hash{}
	for p, h := range edits {
		if dir, rest, ok := strings.Cut(p, "/"); ok {
			if sub[dir] == nil {
				sub[dir] = map[string]plumbing.Hash{}
			}
			sub[dir][rest] = h
			continue
		}
		files[p] = h
	}
	// Folders first, then files, so that a file may take the place of a
	// folder its edits empty, and a folder the place of a file deleted;
	// a file and a folder of one name at once is refused, never one
	// silently written over the other.
	for dir, subEdits := range sub {
		var subBase plumbing.Hash
		i, exists := index[dir]
		fileEdit, hasFileEdit := files[dir]
		switch {
		case exists && entries[i].Mode == filemode.Dir:
			subBase = entries[i].Hash
		case exists && !hasFileEdit && onlyRemovals(subEdits):
			continue // nothing there to remove
		case exists && !hasFileEdit:
			return plumbing.ZeroHash, fmt.Errorf("write tree: %s%s is a file, so it cannot hold a folder", prefix, dir)
		}
		h, err := v.writeTreeAt(ctx, prefix+dir+"/", subBase, subEdits)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		switch {
		case h.IsZero():
			if exists && entries[i].Mode == filemode.Dir {
				entries[i].Name = "" // emptied; a file may take its place below
			}
		case hasFileEdit && !fileEdit.IsZero():
			return plumbing.ZeroHash, fmt.Errorf("write tree: %s%s cannot be both a file and a folder", prefix, dir)
		case exists:
			entries[i] = object.TreeEntry{Name: dir, Mode: filemode.Dir, Hash: h}
			delete(files, dir) // the file's deletion, done
		default:
			index[dir] = len(entries)
			entries = append(entries, object.TreeEntry{Name: dir, Mode: filemode.Dir, Hash: h})
			delete(files, dir)
		}
	}
	for p, h := range files {
		i, ok := index[p]
		switch {
		case ok && h.IsZero():
			entries[i].Name = "" // dropped below (a folder too: untracked whole)
		case ok && entries[i].Name != "" && entries[i].Mode == filemode.Dir:
			return plumbing.ZeroHash, fmt.Errorf("write tree: %s%s is a folder, so it cannot be a file", prefix, p)
		case ok:
			entries[i] = object.TreeEntry{Name: p, Mode: filemode.Regular, Hash: h}
		case !h.IsZero():
			index[p] = len(entries)
			entries = append(entries, object.TreeEntry{Name: p, Mode: filemode.Regular, Hash: h})
		}
	}
	kept := entries[:0]
	for _, e := range entries {
		if e.Name != "" {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		return plumbing.ZeroHash, nil
	}
	sortTreeEntries(kept)
	return v.storeTree(kept)
}

// onlyRemovals tells whether edits only remove paths.
func onlyRemovals(edits map[string]plumbing.Hash) bool {
	for _, h := range edits {
		if !h.IsZero() {
			return false
		}
	}
	return true
}

// storeTree writes a tree object holding entries, sorted in git's order,
// and keeps entries for this process's later writes: the caller must not
// change them after.
func (v *Vault) storeTree(entries []object.TreeEntry) (plumbing.Hash, error) {
	b, err := encodeTree(entries)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h, err := v.storeBytes(plumbing.TreeObject, b)
	if err == nil {
		v.warm.putTree(h, entries)
	}
	return h, err
}

// sortTreeEntries orders entries the way git does: by name, with a folder
// compared as if its name ended in "/".
func sortTreeEntries(es []object.TreeEntry) {
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(es, func(i, j int) bool { return key(es[i]) < key(es[j]) })
}

// removeEmptyDirs removes dir and its parents up to (not including) root
// while they are empty, as git does when a checkout empties a folder.
func removeEmptyDirs(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// headState is what HEAD points at: a branch (possibly unborn) or, when
// detached, HEAD itself.
type headState struct {
	ref  plumbing.ReferenceName
	hash plumbing.Hash // zero on an unborn branch
}

func (v *Vault) head() (headState, error) {
	raw, err := v.repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return headState{}, fmt.Errorf("read HEAD: %w", err)
	}
	if raw.Type() == plumbing.HashReference {
		return headState{ref: plumbing.HEAD, hash: raw.Hash()}, nil
	}
	target, err := v.repo.Storer.Reference(raw.Target())
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return headState{ref: raw.Target()}, nil
	}
	if err != nil {
		return headState{}, fmt.Errorf("read %s: %w", raw.Target(), err)
	}
	return headState{ref: raw.Target(), hash: target.Hash()}, nil
}

// updateRef moves head.ref from head.hash to next, if it still holds
// head.hash, and logs the move in the reflog. durable, if not nil, is
// waited for before the move (see writeRef).
func (v *Vault) updateRef(ctx context.Context, head headState, next plumbing.Hash, who object.Signature, msg string, durable func() error) error {
	err := v.writeRef(ctx, head.ref, next, func() error {
		cur, err := v.head()
		if err != nil {
			return err
		}
		if cur.ref != head.ref || cur.hash != head.hash {
			return errRefMoved
		}
		return nil
	}, durable)
	if err != nil {
		return err
	}
	v.appendReflog(head, next, who, msg)
	return nil
}

// writeRef sets ref to next the way git does, so that ctx0 and a person's
// git commands exclude each other: take "<ref>.lock" with O_EXCL, run check
// (the compare of a compare-and-swap) while holding it, write the new value
// into the lock file, fsync, and rename it over the ref. go-git's own
// CheckAndSetReference truncates the ref file in place under flock, which
// git does not honour and which a crash can leave empty.
//
// durable, if not nil, is waited for between the fsync and the rename: a
// caller whose commit must not stand before its files are on disk syncs
// them meanwhile, and its error leaves the ref as it was.
func (v *Vault) writeRef(ctx context.Context, ref plumbing.ReferenceName, next plumbing.Hash, check func() error, durable func() error) error {
	return v.writeRefAs(ctx, v.held, ref, next.String(), check, durable)
}

// writeRefAs is writeRef for a ref whose file holds value (a hash, or
// "ref: " and a name), with its lock recorded in h's journal (none when h
// is nil: a writer outside the vault lock, such as a fetch).
func (v *Vault) writeRefAs(ctx context.Context, h *held, ref plumbing.ReferenceName, value string, check func() error, durable func() error) (err error) {
	refPath := filepath.Join(v.gitDir, filepath.FromSlash(ref.String()))
	if err := os.MkdirAll(filepath.Dir(refPath), 0o755); err != nil {
		return fmt.Errorf("update %s: %w", ref, err)
	}
	lockPath := refPath + ".lock"
	f, err := v.createGitLockAs(ctx, h, lockPath, v.gitLockWait)
	if err != nil {
		return fmt.Errorf("update %s: %w", ref, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(lockPath)
		}
	}()
	if err := check(); err != nil {
		return err
	}
	if _, err := f.WriteString(value + "\n"); err != nil {
		return fmt.Errorf("update %s: %w", ref, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("update %s: %w", ref, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("update %s: %w", ref, err)
	}
	if durable != nil {
		if err := durable(); err != nil {
			return err
		}
	}
	if err := os.Rename(lockPath, refPath); err != nil {
		return fmt.Errorf("update %s: %w", ref, err)
	}
	return nil
}

// staleLock is the age past which a ref lock file is taken to be a crashed
// writer's leftover: git holds one for milliseconds.
const staleLock = 10 * time.Second

// defaultGitLockWait is how long a write waits for a git command that holds
// one of git's lock files to finish: git holds one for milliseconds.
const defaultGitLockWait = 2 * time.Second

// appendReflog records the move in the branch's and HEAD's reflogs, as git
// does, so `git reflog` can bring back anything ctx0 replaced. A reflog that
// cannot be written does not undo the commit.
func (v *Vault) appendReflog(head headState, next plumbing.Hash, who object.Signature, msg string) {
	subject, _, _ := strings.Cut(msg, "\n")
	var line bytes.Buffer
	_, offset := who.When.Zone()
	sign := '+'
	if offset < 0 {
		sign, offset = '-', -offset
	}
	fmt.Fprintf(&line, "%s %s %s <%s> %d %c%02d%02d\tcommit: %s\n", head.hash, next, who.Name, who.Email,
		who.When.Unix(), sign, offset/3600, offset%3600/60, subject)
	logs := []string{path.Join("logs", head.ref.String())}
	if head.ref != plumbing.HEAD {
		logs = append(logs, "logs/HEAD")
	}
	for _, l := range logs {
		p := filepath.Join(v.gitDir, filepath.FromSlash(l))
		if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
			continue
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			continue
		}
		f.Write(line.Bytes())
		f.Close()
	}
}
