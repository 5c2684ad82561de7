package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/ctx0/ctx0/internal/atomicfile"
)

// externalChanges finds what other tools changed in the work tree since the
// last commit: files edited, added or deleted by a person's editor or an
// agent's file tools. Files git ignores are left out. It trusts git's stat
// cache in .git/index, as git status does, and hashes only files whose size
// or mtime moved. What ctx0 must never commit is left out (machine-local
// state, git repositories inside the vault, returned as nested), and a
// tracked file of that kind is untracked, its file kept.
func (v *Vault) externalChanges(ctx context.Context) (_ []change, nested []string, _ error) {
	idx, err := v.readGitIndex()
	if err != nil {
		return nil, nil, err
	}
	tracked := make(map[string]bool, len(idx.Entries))
	var out []change
	for _, e := range idx.Entries {
		if e.Stage != 0 { // go-git names stage 0 nothing (its index.Merged is 1)
			return nil, nil, fmt.Errorf("a git merge is in progress (%s is unmerged): finish it with git first", e.Name)
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		tracked[e.Name] = true
		if mustNotTrack(e.Name) {
			out = append(out, change{path: e.Name, untrack: true})
			continue
		}
		full := filepath.Join(v.root, filepath.FromSlash(e.Name))
		fi, err := os.Lstat(full)
		if errors.Is(err, os.ErrNotExist) {
			out = append(out, change{path: e.Name})
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("stat %s: %w", e.Name, err)
		}
		if !fi.Mode().IsRegular() || (int64(e.Size) == fi.Size() && e.ModifiedAt.Equal(fi.ModTime())) {
			continue
		}
		data, err := ReadFile(v.root, e.Name)
		if errors.Is(err, ErrLink) {
			continue // a tracked file now under a link: not ctx0's to commit
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", e.Name, err)
		}
		if plumbing.ComputeHash(plumbing.BlobObject, data) != e.Hash {
			out = append(out, change{path: e.Name, data: data, disk: fi})
		}
	}
	err = v.walkWorkTree(func(p, rel string, d fs.DirEntry) error {
		if tracked[rel] || !d.Type().IsRegular() || atomicfile.IsTemp(d.Name()) {
			return nil
		}
		fi, err := os.Lstat(p) // before the read: see change.disk
		if err != nil {
			return fmt.Errorf("stat %s: %w", rel, err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read %s: %w", rel, err)
		}
		out = append(out, change{path: rel, data: data, disk: fi})
		return nil
	}, func(rel string) { nested = append(nested, rel) })
	return out, nested, err
}

// mustNotTrack tells whether ctx0 untracks rel, a path git's staging area
// holds: machine-local state, and a path git itself refuses (the files of
// a repository inside the vault, committed by an older ctx0).
func mustNotTrack(rel string) bool {
	return IsMachineLocal(rel) || gitPathError(rel) != nil
}

// walkWorkTree calls fn for each file of the work tree that git does not
// ignore, outside .git, with its full and its slash-separated relative path.
// It leaves out machine-local state whatever .gitignore says, and, as git
// does, any folder that is a git repository of its own (it holds .git),
// which it names to nested (when not nil).
func (v *Vault) walkWorkTree(fn func(full, rel string, d fs.DirEntry) error, nested func(rel string)) error {
	ignore, err := v.ignoreMatcher()
	if err != nil {
		return err
	}
	return filepath.WalkDir(v.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(v.root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		parts := strings.Split(rel, "/")
		if d.IsDir() {
			if isDotGit(d.Name()) || IsMachineLocal(rel) || ignore.Match(parts, true) {
				return filepath.SkipDir
			}
			if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
				if nested != nil {
					nested(rel)
				}
				return filepath.SkipDir
			}
			return nil
		}
		if IsMachineLocal(rel) || gitPathError(rel) != nil || ignore.Match(parts, false) {
			return nil
		}
		return fn(p, rel, d)
	})
}

func (v *Vault) readGitIndex() (*index.Index, error) {
	idx := &index.Index{Version: 2}
	f, err := os.Open(filepath.Join(v.gitDir, "index"))
	if errors.Is(err, os.ErrNotExist) {
		return idx, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read git index: %w", err)
	}
	defer f.Close()
	if err := index.NewDecoder(f).Decode(idx); err != nil {
		return nil, fmt.Errorf("read git index: %w", err)
	}
	return idx, nil
}

// commitExternalLocked commits what other tools changed, as one "external
// edits" commit, so a merge never overwrites it. Call it under the vault
// lock.
//
// It returns what it left out: folders that are repositories of their own,
// and files that hold a secret.
func (v *Vault) commitExternalLocked(ctx context.Context) (*Commit, externalLeftOut, error) {
	var left externalLeftOut
	changes, nested, err := v.externalChanges(ctx)
	left.nested = nested
	if err != nil {
		return nil, left, err
	}
	changes, left.withheld = withholdSecrets(changes)
	c, err := v.commitChangesLocked(ctx, changes)
	return c, left, err
}

// externalLeftOut is what an external-edits commit did not take.
type externalLeftOut struct {
	nested   []string   // folders that are git repositories of their own
	withheld []Withheld // files other than entries that hold a secret
}

func (v *Vault) commitChangesLocked(ctx context.Context, changes []change) (*Commit, error) {
	records, pending, err := v.pendingConflicts(ctx)
	if err != nil {
		return nil, err
	}
	changes = append(changes, records...)
	if len(changes) == 0 {
		return nil, v.removePending(pending)
	}
	msg := fmt.Sprintf("external edits: %d file(s) changed by other tools", len(changes))
	for i, c := range changes {
		if i == 20 {
			msg += fmt.Sprintf("\n  … and %d more", len(changes)-20)
			break
		}
		if i == 0 {
			msg += "\n"
		}
		msg += "\n  " + c.path
	}
	c, err := v.applyLocked(ctx, msg, changes)
	if err != nil {
		return nil, err
	}
	for _, ch := range changes {
		if ch.untrack {
			c.Untracked = append(c.Untracked, ch.path)
		}
	}
	if err := v.removePending(pending); err != nil {
		return &c, err
	}
	if o, ok := v.catalog.(Observer); ok {
		if err := o.Changed(ctx, c.Paths); err != nil {
			return &c, err
		}
	}
	return &c, nil
}
