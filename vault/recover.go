package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ctx0/ctx0/vault/gitindex"
)

// journalWrites records changes in the lock's journal before any of them
// reaches the work tree, and returns how many writes the journal held
// before, so the caller can drop this call's records once they are no
// longer needed. The content before each change is stored as a blob, so
// that recovery can put it back.
func (v *Vault) journalWrites(changes []change, blobs map[string]plumbing.Hash, before []saved) (int, error) {
	h := v.held
	if h == nil {
		return 0, nil
	}
	n := len(h.j.Writes)
	head, err := v.head()
	if err != nil {
		return n, err
	}
	if h.head.files == nil || h.head.hash != head.hash {
		h.head.hash, h.head.files = head.hash, v.headFiles(head.hash)
	}
	tree := h.head.files
	for i, c := range changes {
		if c.untrack {
			// Nothing on disk to finish or undo; a commit whose staging
			// lags is untracked again by the next commit of external edits.
			continue
		}
		w := journalWrite{Path: c.path}
		if before[i].data != nil {
			pre, err := v.storeBlob(before[i].data)
			if err != nil {
				return n, fmt.Errorf("store %s before writing it: %w", c.path, err)
			}
			w.Pre = pre.String()
		}
		if b := blobs[c.path]; c.data != nil && !b.IsZero() {
			w.Post = b.String()
		}
		w.Head = hashString(tree.hash(c.path))
		if w.Pre == w.Post && w.Head == w.Post {
			continue // nothing to finish or undo
		}
		h.j.Writes = append(h.j.Writes, w)
	}
	if len(h.j.Writes) == n {
		return n, nil
	}
	return n, h.save()
}

func hashString(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// recoverLocked repairs what the journal j of an earlier holder of the
// vault lock says it left half done. The caller holds the lock now, so the
// earlier holder is gone (it was killed, or failed after its commit); a
// journal naming a process that still runs is left alone all the same.
//
// For each file the holder was writing, the rule is: if HEAD has the new
// content, the commit was made, so the work tree and git's staging area are
// brought to it (each only where it still holds what was there before, so
// nothing a person did since is undone); if HEAD still has the old content,
// no commit was made, so a work-tree file that holds the holder's new
// content is put back as it was. Then git lock files the holder created are
// removed (removeDeadGitLocks), and so are its temporary files.
func (v *Vault) recoverLocked(ctx context.Context, j journal) error {
	if holderAlive(j) {
		v.recovered = append(v.recovered, fmt.Sprintf("the lock journal names process %s, which still runs without the lock; left what it did alone", j.Holder))
		return nil
	}
	who := "a ctx0 process that stopped"
	if pid, _, ok := strings.Cut(j.Holder, " "); ok {
		who = "ctx0 process " + pid + ", which stopped"
	}
	for _, p := range v.removeDeadGitLocks(j.GitLocks) {
		v.recovered = append(v.recovered, fmt.Sprintf("removed %s left by %s", p, who))
	}
	dirs := map[string]bool{}
	for _, w := range j.Writes {
		if checkRelPath(w.Path) == nil {
			dirs[filepath.Join(v.root, filepath.FromSlash(path.Dir(w.Path)))] = true
		}
	}
	for d := range dirs {
		for _, p := range removeStaleTemps(d) {
			v.recovered = append(v.recovered, fmt.Sprintf("removed the temporary file %s left by %s", v.rel(p), who))
		}
	}
	fixed, err := v.repairWrites(ctx, j.Writes)
	for _, f := range fixed {
		v.recovered = append(v.recovered, fmt.Sprintf("%s (left half written by %s)", f, who))
	}
	if err != nil {
		return fmt.Errorf("repair the write of %s: %w", who, err)
	}
	return nil
}

// repairWrites applies recoverLocked's rule to each write and returns what
// it did, one line each.
func (v *Vault) repairWrites(ctx context.Context, writes []journalWrite) ([]string, error) {
	if len(writes) == 0 {
		return nil, nil
	}
	head, err := v.head()
	if err != nil {
		return nil, err
	}
	tree := v.headFiles(head.hash)
	idx, err := v.readGitIndex()
	if err != nil {
		return nil, err
	}
	staged := make(map[string]string, len(idx.Entries))
	for _, e := range idx.Entries {
		if e.Stage == 0 {
			staged[e.Name] = e.Hash.String()
		}
	}
	var done []string
	var updates []gitindex.Update
	var changed []string
	for _, w := range writes {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		full := filepath.Join(v.root, filepath.FromSlash(w.Path))
		if !isInside(v.root, full) || checkRelPath(w.Path) != nil {
			continue
		}
		wt, err := fileBlobHash(full)
		if err != nil {
			return done, err
		}
		now := hashString(tree.hash(w.Path))
		switch {
		case now == w.Post:
			if wt != w.Post && wt == w.Pre {
				if err := v.putBlob(full, w.Post); err != nil {
					return done, fmt.Errorf("restore %s: %w", w.Path, err)
				}
				wt = w.Post
				changed = append(changed, w.Path)
				done = append(done, "wrote "+w.Path+" as its commit has it")
			}
			if staged[w.Path] != w.Post && staged[w.Path] == w.Head && wt == w.Post {
				u := gitindex.Update{Path: w.Path, Remove: w.Post == ""}
				if w.Post != "" {
					u.Hash, u.Mode = plumbing.NewHash(w.Post), filemode.Regular
					if fi, err := os.Lstat(full); err == nil {
						u.Info = fi
					}
				}
				updates = append(updates, u)
				done = append(done, "staged "+w.Path+" as its commit has it")
			}
		case now == w.Head && wt == w.Post && w.Pre != w.Post:
			if err := v.putBlob(full, w.Pre); err != nil {
				return done, fmt.Errorf("restore %s: %w", w.Path, err)
			}
			changed = append(changed, w.Path)
			done = append(done, "put "+w.Path+" back as it was before a write that made no commit")
		}
	}
	if len(updates) > 0 {
		if err := gitindex.ApplyWithLock(ctx, v.gitDir, updates, v.lockGitIndex); err != nil {
			return done, err
		}
	}
	if o, ok := v.catalog.(Observer); ok && len(changed) > 0 {
		if err := o.Changed(ctx, changed); err != nil {
			return done, err
		}
	}
	return done, nil
}

// checkRelPath refuses a journal path that is not a plain relative path.
func checkRelPath(p string) error {
	if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, ".git/") {
		return fmt.Errorf("path %q is not inside the vault", p)
	}
	return nil
}

// fileBlobHash is the git blob hash of the file at full, "" when absent.
func fileBlobHash(full string) (string, error) {
	data, err := os.ReadFile(full)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", full, err)
	}
	return plumbing.ComputeHash(plumbing.BlobObject, data).String(), nil
}

// putBlob makes the file at full hold blob h, or removes it when h is "".
func (v *Vault) putBlob(full, h string) error {
	if h == "" {
		if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		removeEmptyDirs(v.root, filepath.Dir(full))
		return nil
	}
	data, err := v.blob(plumbing.NewHash(h))
	if err != nil {
		return err
	}
	return writeFileAtomic(full, data)
}

// headFiles is the file finder of commit's tree (none for the zero hash
// or an unreadable commit: every path is then absent).
func (v *Vault) headFiles(commit plumbing.Hash) *headPaths {
	if commit.IsZero() {
		return nil
	}
	root, ok := v.warm.commitTree(commit)
	if !ok {
		c, err := object.GetCommit(v.repo.Storer, commit)
		if err != nil {
			return nil
		}
		root = c.TreeHash
	}
	return &headPaths{v: v, root: root, dirs: map[string][]object.TreeEntry{}}
}

// headPaths finds the blobs of paths in one tree, reading each folder on
// their way once, with vault's own tree decoder: the journal asks it of
// each write's path, and the folder a remember writes into holds 1,000
// entries at 10,000 (go-git's decoder took 0.4 ms of it).
type headPaths struct {
	v    *Vault
	root plumbing.Hash
	dirs map[string][]object.TreeEntry // "" is the root; nil: no such folder
}

// dir is the entries of folder d, nil when there is no such folder or it
// cannot be read.
func (hp *headPaths) dir(d string) []object.TreeEntry {
	if es, ok := hp.dirs[d]; ok {
		return es
	}
	var es []object.TreeEntry
	if d == "" {
		es, _ = hp.v.readTreeShared(hp.root)
	} else {
		parent, name := path.Split(d)
		for _, e := range hp.dir(strings.TrimSuffix(parent, "/")) {
			if e.Name == name && e.Mode == filemode.Dir {
				es, _ = hp.v.readTreeShared(e.Hash)
				break
			}
		}
	}
	hp.dirs[d] = es
	return es
}

// hash is the blob of p, zero when absent.
func (hp *headPaths) hash(p string) plumbing.Hash {
	if hp == nil {
		return plumbing.ZeroHash
	}
	d, name := path.Split(p)
	for _, e := range hp.dir(strings.TrimSuffix(d, "/")) {
		if e.Name == name {
			if e.Mode.IsFile() {
				return e.Hash
			}
			break
		}
	}
	return plumbing.ZeroHash
}

// Recovered says what opening the vault, or a write since, repaired of a
// ctx0 process that was killed while writing: one line each.
func (v *Vault) Recovered() []string { return slices.Clone(v.recovered) }

// rel is full relative to the vault root, slash-separated.
func (v *Vault) rel(full string) string {
	r, err := filepath.Rel(v.root, full)
	if err != nil {
		return full
	}
	return filepath.ToSlash(r)
}
