package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrLink is a path of the vault that goes through a symbolic link. ctx0
// reads, writes and indexes no file through a link, in the vault or out of
// it: a link could lead out of the vault (a file of the person's, a folder
// of secrets) and would make one file two entries. doctor lists them.
var ErrLink = errors.New("is a symbolic link, which ctx0 does not follow")

// ErrOutside is a path that leaves the vault.
var ErrOutside = errors.New("leads out of the vault")

// CheckPath is the one way into the vault's files: it refuses rel, a
// slash-separated path relative to the vault root, if it leaves the vault
// or if any part of it that exists is a symbolic link. Parts that do not
// exist yet (a file or folder about to be made) are fine. Every read, write
// and index of an entry's file checks its path here first.
func CheckPath(root, rel string) error {
	if rel == "" || rel == "." {
		return nil
	}
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return fmt.Errorf("%s: %w", rel, ErrOutside)
	}
	parts := strings.Split(path.Clean(rel), "/")
	p := root
	for i, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil {
			// Missing: what follows is to be made. Another error is the
			// caller's to meet when it opens the file.
			return nil
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return linkError(root, path.Join(parts[:i+1]...), p)
		}
		if !fi.IsDir() {
			return nil
		}
	}
	return nil
}

// linkError says that rel (at p) is a link, and where it leads.
func linkError(root, rel, p string) error {
	target, err := os.Readlink(p)
	if err != nil {
		return fmt.Errorf("%s %w", rel, ErrLink)
	}
	where := "in the vault"
	if leavesVault(root, p) {
		where = "outside the vault"
	}
	return fmt.Errorf("%s %w (it points to %s, %s)", rel, ErrLink, target, where)
}

// leavesVault tells whether the link at p resolves outside root (or does
// not resolve at all).
func leavesVault(root, p string) bool {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return true
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return true
	}
	rel, err := filepath.Rel(realRoot, real)
	return err != nil || !filepath.IsLocal(rel)
}

// Link is a symbolic link found in the vault's files.
type Link struct {
	Path    string `json:"path"`   // slash-separated, relative to the vault root
	Target  string `json:"target"` // as the link says it
	Outside bool   `json:"outside"`
}

// Links lists the symbolic links among the vault's files (its entries'
// folders and .ctx0; other hidden folders, such as .git or an editor's,
// are not ctx0's), which ctx0 does not follow: their targets are not
// entries.
func (v *Vault) Links(ctx context.Context) ([]Link, error) {
	var links []Link
	err := filepath.WalkDir(v.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a folder removed or unreadable while we walk
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() && p != v.root && strings.HasPrefix(d.Name(), ".") && p != filepath.Join(v.root, ".ctx0") {
			return filepath.SkipDir
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		rel, _ := filepath.Rel(v.root, p)
		target, _ := os.Readlink(p)
		links = append(links, Link{Path: filepath.ToSlash(rel), Target: target, Outside: leavesVault(v.root, p)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list links in %s: %w", v.root, err)
	}
	return links, nil
}

// ReadFile reads the file at rel, slash-separated, under the vault root,
// refused as CheckPath refuses it. It opens the file through os.Root, so a
// folder swapped for a link after the check still cannot lead the read
// out of the vault.
func ReadFile(root, rel string) ([]byte, error) {
	if err := CheckPath(root, rel); err != nil {
		return nil, err
	}
	f, err := os.OpenInRoot(root, filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		b.Grow(int(fi.Size()) + 1)
	}
	if _, err := b.ReadFrom(f); err != nil {
		return nil, &fs.PathError{Op: "read", Path: filepath.Join(root, filepath.FromSlash(rel)), Err: err}
	}
	return b.Bytes(), nil
}
