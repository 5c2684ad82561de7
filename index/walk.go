package index

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ctx0/ctx0/internal/inode"
	"github.com/ctx0/ctx0/vault"
)

// folderStamp is a folder of the vault and its mtime, taken before it was
// listed.
type folderStamp struct {
	path    string // slash-separated, "" for the vault root
	mtime   int64
	settled bool
	// Its change time and inode number, where known, for folderList (the
	// folders table has no column for them).
	ctime int64
	ino   uint64
}

// fileStamp is an entry file found by a walk.
type fileStamp struct {
	name  string
	stamp stamp
}

// walkTree lists the folders and entry files under the folder start ("" for
// the whole vault), skipping hidden folders as vault.Walk does.
func walkTree(ctx context.Context, root, start string, now time.Time) (folders []folderStamp, files []fileStamp, err error) {
	top := filepath.Join(root, filepath.FromSlash(start))
	if vault.CheckPath(root, start) != nil {
		return nil, nil, nil // under a link: nothing of the vault's
	}
	err = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == top && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil // removed while we walk
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		if d.IsDir() {
			if rel != "" && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			// WalkDir calls us before it lists the folder, so this mtime
			// is from before the listing, as the checks require.
			fi, err := d.Info()
			if err != nil {
				return filepath.SkipDir
			}
			s := stampOf(fi)
			folders = append(folders, folderStamp{path: rel, mtime: s.mtime, settled: s.settledAt(now), ctime: ctimeOf(fi), ino: inode.Of(fi)})
			return nil
		}
		name, ok := vault.NameOf(rel)
		if !ok || !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		files = append(files, fileStamp{name: name, stamp: stampOf(fi)})
		return nil
	})
	return folders, files, err
}

// listing is one folder as read by a check, with the stamps of its entry
// files, taken after the folder's own.
type listing struct {
	folderFiles
	stamp   folderStamp
	gone    bool
	folders []string // paths of the folders in it
}

// listFolder reads the folder f of the vault and stats its entry files.
func listFolder(ctx context.Context, root, f string, now time.Time) (listing, error) {
	abs := filepath.Join(root, filepath.FromSlash(f))
	l := listing{folderFiles: folderFiles{folder: f}, stamp: folderStamp{path: f}}
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()) || vault.CheckPath(root, f) != nil {
		// Gone, or not a folder, or under a link: no entries of the vault.
		l.gone = true
		return l, nil
	}
	if err != nil {
		return l, err
	}
	s := stampOf(fi)
	l.stamp.mtime, l.stamp.settled, l.stamp.ctime, l.stamp.ino = s.mtime, s.settledAt(now), ctimeOf(fi), inode.Of(fi)
	d, err := os.Open(abs)
	if errors.Is(err, fs.ErrNotExist) {
		l.gone = true
		return l, nil
	}
	if err != nil {
		return l, err
	}
	des, err := d.ReadDir(-1) // unsorted: nothing here needs an order
	d.Close()
	if err != nil {
		return l, err
	}
	for _, d := range des {
		if strings.HasPrefix(d.Name(), ".") {
			continue
		}
		rel := path.Join(f, d.Name())
		if d.IsDir() {
			l.folders = append(l.folders, rel)
			continue
		}
		if _, ok := vault.NameOf(rel); ok && d.Type().IsRegular() {
			l.files = append(l.files, d.Name())
		}
	}
	l.stamps, l.ok = make([]stamp, len(l.files)), make([]bool, len(l.files))
	// In as many parts as there are cores: a check after a write lists the
	// folder it wrote to, often one of thousands of files.
	part := max(statChunk/8, (len(l.files)+runtime.GOMAXPROCS(0)-1)/runtime.GOMAXPROCS(0))
	parallel(ctx, (len(l.files)+part-1)/part, func(k int) {
		lo, hi := k*part, min((k+1)*part, len(l.files))
		statIn(abs, l.files[lo:hi], l.stamps[lo:hi], l.ok[lo:hi])
	})
	return l, ctx.Err()
}

// listNames lists the folder f by its names, inode numbers and types alone
// (readDirents: no stat per file) and reports whether its entry files are
// those the index holds, by their folder's sum of nameSum (folder_sums).
// When they are not, or the system gives no inode numbers or types, same
// is false and the caller lists the folder with listFolder.
func listNames(ctx context.Context, db *sql.DB, root, f string, now time.Time) (l listing, same bool, err error) {
	abs := filepath.Join(root, filepath.FromSlash(f))
	l = listing{stamp: folderStamp{path: f}}
	fi, err := os.Lstat(abs)
	if err != nil || !fi.IsDir() || vault.CheckPath(root, f) != nil {
		return l, false, nil // listFolder says what it is
	}
	s := stampOf(fi)
	l.stamp.mtime, l.stamp.settled = s.mtime, s.settledAt(now)
	files, ok, err := readDirents(abs)
	if err != nil || !ok {
		return l, false, nil
	}
	// Outside the root, an entry's name is the folder's, "/" and the file's
	// name less ".md", when the folder's names are entries' names at all:
	// hashed in parts, no path is joined per file.
	_, entries := vault.NameOf(path.Join(f, "x.md"))
	prefix := fnvString(fnvString(fnvOffset, f), "/")
	var sum uint64
	for _, d := range files {
		if strings.HasPrefix(d.name, ".") {
			continue
		}
		if d.dir {
			l.folders = append(l.folders, path.Join(f, d.name))
			continue
		}
		if !d.reg {
			continue
		}
		if f == "" {
			if name, ok := vault.NameOf(d.name); ok {
				sum ^= nameSum(name, d.ino)
			}
			continue
		}
		if base, ok := strings.CutSuffix(d.name, ".md"); ok && entries {
			sum ^= nameSumFrom(fnvString(prefix, base), d.ino)
		}
	}
	var want int64
	err = db.QueryRowContext(ctx, `SELECT names FROM folder_sums WHERE path = ?`, f).Scan(&want)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	if err != nil {
		return l, false, err
	}
	return l, sum == uint64(want), ctx.Err()
}
