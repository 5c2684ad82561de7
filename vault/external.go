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
// or mtime moved.
func (v *Vault) externalChanges(ctx context.Context) ([]change, error) {
	idx, err := v.readGitIndex()
	if err != nil {
		return nil, err
	}
	tracked := make(map[string]bool, len(idx.Entries))
	var out []change
	for _, e := range idx.Entries {
		if e.Stage != 0 { // go-git names stage 0 nothing (its index.Merged is 1)
			return nil, fmt.Errorf("a git merge is in progress (%s is unmerged): finish it with git first", e.Name)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tracked[e.Name] = true
		full := filepath.Join(v.root, filepath.FromSlash(e.Name))
		fi, err := os.Lstat(full)
		if errors.Is(err, os.ErrNotExist) {
			out = append(out, change{path: e.Name})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("stat %s: %w", e.Name, err)
		}
		if !fi.Mode().IsRegular() || (int64(e.Size) == fi.Size() && e.ModifiedAt.Equal(fi.ModTime())) {
			continue
		}
		data, err := ReadFile(v.root, e.Name)
		if errors.Is(err, ErrLink) {
			continue // a tracked file now under a link: not ctx0's to commit
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", e.Name, err)
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
	})
	return out, err
}

// walkWorkTree calls fn for each file of the work tree that git does not
// ignore, outside .git, with its full and its slash-separated relative path.
func (v *Vault) walkWorkTree(fn func(full, rel string, d fs.DirEntry) error) error {
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
			if rel == ".git" || ignore.Match(parts, true) {
				return filepath.SkipDir
			}
			return nil
		}
		if ignore.Match(parts, false) {
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
// edits" commit, so a merge never overwrites it, and returns the files it
// withheld because they hold a secret. Call it under the vault lock.
func (v *Vault) commitExternalLocked(ctx context.Context) (*Commit, []Withheld, error) {
	changes, err := v.externalChanges(ctx)
	if err != nil {
		return nil, nil, err
	}
	changes, withheld := withholdSecrets(changes)
	c, err := v.commitChangesLocked(ctx, changes)
	return c, withheld, err
}

func (v *Vault) commitChangesLocked(ctx context.Context, changes []change) (*Commit, error) {
	records, pending, err := v.pendingConflicts()
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
