package vault

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ctx0/ctx0/internal/atomicfile"
)

// errStale means a file changed between ctx0's read of it and its
// replacement: a person's editor or another tool wrote it. Nothing of the
// write was kept; update runs its change again on what is there now.
var errStale = errors.New("changed by another program while ctx0 was writing it")

// staleRetries is how many times update runs a change again on a file
// that keeps changing under it before it gives up.
const staleRetries = 50

// sameContent compares two versions of a file, nil meaning absent.
func sameContent(a, b []byte) bool {
	return (a == nil) == (b == nil) && bytes.Equal(a, b)
}

// replaceFile puts data at path, but only if the file there is still
// expect (nil: no file), so that ctx0 never renames over an edit it did not
// read. It returns errStale otherwise, leaving the file as it is. It
// returns the new file's stat. The file is not synced: the write path
// makes the files of a commit durable together before the commit
// (syncStaged).
//
// The check and the rename cannot be one step, so the window between them
// is closed from both sides: a new file is linked into place, which fails
// if one appeared; an existing file is read through an open handle and
// checked to be still the file at path just before the rename; after the
// rename, the handle, returned open, shows whether anything wrote to the
// old file (an `echo >> file` that opened it before the rename), and
// replaced.settle brings that write back.
func (v *Vault) replaceFile(path string, data, expect []byte) (os.FileInfo, *replaced, error) {
	tmp, err := atomicfile.WriteTempUnsynced(path, data, 0o644)
	if err != nil {
		return nil, nil, err
	}
	defer os.Remove(tmp) // gone already once linked or renamed
	if expect == nil {
		err := os.Link(tmp, path)
		switch {
		case err == nil:
			fi, err := os.Lstat(path)
			return fi, nil, err
		case errors.Is(err, os.ErrExist):
			return nil, nil, errStale
		}
		// No hard links on this file system: check, then rename.
		if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
			return nil, nil, errStale
		}
		if err := os.Rename(tmp, path); err != nil {
			return nil, nil, err
		}
		fi, err := os.Lstat(path)
		return fi, nil, err
	}
	old, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, errStale
	}
	if err != nil {
		return nil, nil, err
	}
	keep := false
	defer func() {
		if !keep {
			old.Close()
		}
	}()
	// The stat comes before the read: replaced.written compares against
	// it, so a write landing after the read must show as a change from it.
	before, err := old.Stat()
	if err != nil {
		return nil, nil, err
	}
	cur, err := io.ReadAll(old)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if v.afterReplaceRead != nil {
		v.afterReplaceRead()
	}
	if int64(len(cur)) != before.Size() || !bytes.Equal(cur, expect) {
		return nil, nil, errStale
	}
	if fi, err := os.Lstat(path); err != nil || !os.SameFile(fi, before) {
		return nil, nil, errStale // replaced by an editor that saves by rename
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, nil, err
	}
	keep = true
	fi, err := os.Lstat(path)
	return fi, &replaced{path: path, old: old, before: before, expect: expect}, err
}

// replaced is a file replaceFile renamed over, still open: a program that
// opened it before the rename may write to it a little later.
type replaced struct {
	path   string
	old    *os.File
	before os.FileInfo
	expect []byte
}

// written tells whether the replaced file changed since it was checked.
func (r *replaced) written() bool {
	after, err := r.old.Stat()
	return err != nil || after.Size() != r.before.Size() || !after.ModTime().Equal(r.before.ModTime())
}

// writersWait bounds how long settle waits for a program that opened the
// replaced file before the rename to close it: `echo >>` or an editor's
// save closes it in milliseconds; a program that keeps it open longer
// loses what it writes after that to a file nobody can see.
const writersWait = 2 * time.Second

// settle closes the replaced file, first merging into the file at its
// path, field by field, whatever was written to it since the check (the
// write stays in the work tree as that program's uncommitted edit). The
// write path calls it once its commit is made. A program that still has
// the replaced file open for writing may write to it later still, so
// settle first waits for it to close the file (waitForWriters), where the
// system can tell.
func (r *replaced) settle(v *Vault, rel string) {
	defer r.old.Close()
	waitForWriters(r.old, writersWait)
	if !r.written() {
		return
	}
	theirs, err := io.ReadAll(io.NewSectionReader(r.old, 0, 1<<62))
	if err != nil {
		return
	}
	for range staleRetries {
		cur, err := os.ReadFile(r.path)
		if err != nil {
			return
		}
		merged, _, err := v.MergeEntry(rel, r.expect, cur, theirs, [2]string{"ctx0", "concurrent edit"})
		if err != nil {
			return
		}
		_, next, err := v.replaceFile(r.path, merged, cur)
		if next != nil {
			next.settle(v, rel)
		}
		if !errors.Is(err, errStale) {
			return
		}
	}
}

// replaceMerging writes change c to the file at full, which held expect
// when the change was made. If another program edits the file meanwhile,
// a change decided on a read (c.based) is merged into the edit field by
// field, as sync merges, and written again, so that it converges however
// often the file changes; other changes fail with errStale. It returns the
// bytes it wrote.
func (v *Vault) replaceMerging(c change, full string, expect []byte) (os.FileInfo, *replaced, []byte, error) {
	data := c.data
	for range staleRetries {
		fi, r, err := v.replaceFile(full, data, expect)
		if !errors.Is(err, errStale) || !c.based || expect == nil {
			return fi, r, data, err
		}
		cur, err := os.ReadFile(full)
		if err != nil {
			return nil, nil, nil, errStale
		}
		out, cs, err := v.MergeEntry(c.path, expect, data, cur, [2]string{"ctx0", "concurrent edit"})
		if err != nil || len(cs) > 0 {
			return nil, nil, nil, errStale
		}
		expect, data = cur, out
	}
	return nil, nil, nil, errStale
}

// noteMerged puts the blobs of changes that replaceMerging merged (merged[i]
// not zero) where the commit and the journal take them from.
func (v *Vault) noteMerged(changes []change, merged []plumbing.Hash, blobs map[string]plumbing.Hash) error {
	found := false
	for i, h := range merged {
		if h.IsZero() {
			continue
		}
		found = true
		blobs[changes[i].path] = h
		if v.held != nil {
			for j := range v.held.j.Writes {
				if v.held.j.Writes[j].Path == changes[i].path {
					v.held.j.Writes[j].Post = h.String()
					v.held.onDisk.rewrite = true
				}
			}
		}
	}
	if !found || v.held == nil {
		return nil
	}
	return v.held.save()
}
