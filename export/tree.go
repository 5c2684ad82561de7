package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/ctx0/ctx0/internal/filelock"
)

// How a folder export is written, incrementally and atomically:
//
//  1. Under a lock beside the output folder, every file of the new export
//     is compared, byte for byte, with the file of the previous export at
//     the same path. If all are the same and no old file is gone, nothing
//     is written at all.
//  2. Otherwise the new export is built in a hidden folder beside the
//     output folder (same parent, so same file system): files that did not
//     change are hard links to the previous export's files, so they keep
//     their inode and mtime and cost no copy; changed files are written.
//  3. The new folder is swapped in with one rename: on Linux an atomic
//     exchange (renameat2 RENAME_EXCHANGE), so the output path always names
//     a whole export; elsewhere two renames, with a moment between them when
//     the path names nothing, but never half an export. The old tree is
//     then deleted.
//
// Files are never changed in place, which is what makes sharing inodes with
// the previous export safe. Nothing is fsynced: an export is derived data,
// and one left damaged by a power cut is repaired by the next export, which
// compares bytes, not times.

// plan says how to turn the folder out into the files of a new export.
type plan struct {
	out    string
	exists bool
	files  []file
	same   []bool   // files[i] is already in out, byte for byte
	stale  []string // files of out that the new export does not have
}

// compare reads the previous export in out, if any, against files.
func compare(ctx context.Context, out string, files []file) (*plan, error) {
	p := &plan{out: out, files: files, same: make([]bool, len(files))}
	old := map[string]bool{} // regular files of the previous export
	err := filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == out && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll
			}
			return err
		}
		if path == out {
			p.exists = true
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(out, path)
		old[filepath.ToSlash(rel)] = d.Type().IsRegular()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("export: read %s: %w", out, err)
	}
	err = parallel(ctx, len(files), nil, func(i int) {
		if old[files[i].path] {
			data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(files[i].path)))
			p.same[i] = err == nil && bytes.Equal(data, files[i].data)
		}
	})
	if err != nil {
		return nil, err
	}
	planned := make(map[string]bool, len(files))
	for _, f := range files {
		planned[f.path] = true
	}
	for path := range old {
		if !planned[path] {
			p.stale = append(p.stale, path)
		}
	}
	slices.Sort(p.stale)
	return p, nil
}

// changes counts the files that the new export writes or removes.
func (p *plan) changes() int {
	written, _, removed := p.counts()
	return written + removed
}

func (p *plan) counts() (written, unchanged, removed int) {
	for _, same := range p.same {
		if same {
			unchanged++
		}
	}
	return len(p.files) - unchanged, unchanged, len(p.stale)
}

// replace swaps in new versions of some of the files, which are written
// whatever the previous export held.
func (p *plan) replace(files []file) {
	for _, f := range files {
		for i := range p.files {
			if p.files[i].path == f.path {
				p.files[i], p.same[i] = f, false
			}
		}
	}
}

// apply builds the new export beside out and swaps it in; with no change,
// it does nothing.
func (p *plan) apply(ctx context.Context, progress func(done, total int)) (err error) {
	if p.changes() == 0 {
		return nil
	}
	parent, base := filepath.Dir(p.out), filepath.Base(p.out)
	tmp, err := os.MkdirTemp(parent, buildPrefix(base))
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := p.build(ctx, tmp, progress); err != nil {
		return err
	}
	if err := swap(tmp, p.out, p.exists); err != nil {
		return fmt.Errorf("export: put %s in place: %w", p.out, err)
	}
	// tmp now holds the previous export, if there was one.
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("export: remove the previous export: %w", err)
	}
	return nil
}

// build writes the new export into the empty folder dir: links to the
// files that did not change, new files for the rest.
func (p *plan) build(ctx context.Context, dir string, progress func(done, total int)) error {
	dirs := map[string]bool{}
	for _, f := range p.files {
		dirs[filepath.Dir(filepath.FromSlash(f.path))] = true
	}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	errs := make([]error, len(p.files))
	if err := parallel(ctx, len(p.files), progress, func(i int) { errs[i] = p.put(dir, i) }); err != nil {
		return err
	}
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("export: write %s: %w", p.files[i].path, err)
		}
	}
	return nil
}

// put writes file i into dir: a hard link to the previous export's file
// if it did not change (a copy with the same mtime where the file system
// has no hard links), else its new content.
func (p *plan) put(dir string, i int) error {
	f := p.files[i]
	dst := filepath.Join(dir, filepath.FromSlash(f.path))
	if !p.same[i] {
		return os.WriteFile(dst, f.data, 0o644)
	}
	src := filepath.Join(p.out, filepath.FromSlash(f.path))
	if os.Link(src, dst) == nil {
		return nil
	}
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, f.data, 0o644); err != nil {
		return err
	}
	return os.Chtimes(dst, fi.ModTime(), fi.ModTime())
}

// swap puts the folder tmp at out. If out exists, tmp ends up holding
// what out held.
func swap(tmp, out string, exists bool) error {
	if !exists {
		return os.Rename(tmp, out)
	}
	if err := exchange(tmp, out); err == nil {
		return nil
	}
	return swapByRenames(tmp, out)
}

// swapByRenames swaps the folders tmp and out where there is no atomic
// exchange: for a moment between the renames, out names nothing.
func swapByRenames(tmp, out string) error {
	old := tmp + "-old"
	if err := os.Rename(out, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		return errors.Join(err, os.Rename(old, out))
	}
	return os.Rename(old, tmp)
}

// buildPrefix starts the name of the hidden folders that exports to the
// folder base are built in.
func buildPrefix(base string) string { return "." + base + ".ctx0-export-" }

// lockOutput takes the lock that exports to out queue on, and removes the
// folders that exports killed mid-way left beside it. The lock is a hidden
// file beside out: out itself is replaced by every export.
func lockOutput(ctx context.Context, out string) (unlock func(), err error) {
	parent, base := filepath.Dir(out), filepath.Base(out)
	l, err := filelock.Exclusive(ctx, filepath.Join(parent, "."+base+".ctx0-export.lock"))
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", out, err)
	}
	siblings, _ := os.ReadDir(parent)
	for _, d := range siblings {
		if strings.HasPrefix(d.Name(), buildPrefix(base)) {
			os.RemoveAll(filepath.Join(parent, d.Name()))
		}
	}
	return func() { _ = l.Unlock() }, nil
}

// ErrIntoVault is returned for an output folder in or around the vault.
var ErrIntoVault = errors.New("the export would overwrite the vault")

// ErrNotExport is returned for an output folder that holds files but is
// not a ctx0 export, unless Force.
var ErrNotExport = errors.New("not a ctx0 export")

// checkOutput refuses an output folder that is the vault, is inside it or
// holds it, and, unless force, a folder that is neither empty nor a
// previous export. Even with force it refuses a git repository or a vault.
func checkOutput(root, out string, force bool) error {
	realRoot, err := realPath(root)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if within(out, realRoot) || within(realRoot, out) {
		return fmt.Errorf("export: %s: %w at %s; choose a folder outside it", out, ErrIntoVault, realRoot)
	}
	fi, err := os.Stat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("export: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("export: %s is a file, not a folder", out)
	}
	names, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if len(names) == 0 {
		return nil
	}
	if st, err := previousStats(out); err != nil || st.Generator == generator {
		return err
	}
	for _, keep := range []string{".git", ".ctx0/config.yaml"} {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(keep))); err == nil {
			return fmt.Errorf("export: %s holds %s: it is a repository or a vault, which an export never replaces", out, keep)
		}
	}
	if !force {
		return fmt.Errorf("export: %s: %w (it holds files but no %s); choose an empty or new folder, or replace it with --force", out, ErrNotExport, statsFile)
	}
	return nil
}

// realPath is p made absolute with its symbolic links resolved, as far as
// it exists.
func realPath(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var rest []string
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, rest...)...), nil
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}

// within tells whether p is dir or inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
