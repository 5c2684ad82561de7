package index

import (
	"context"
	"database/sql"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/ctx0/ctx0/vault"
)

// folderList is a folder's entry files as a listing found them, kept in the
// index (folder_files) so that the full check can stat them without listing
// the folder again while it has not changed: a folder's mtime moves
// whenever a name in it is added, removed or renamed (git's untracked cache
// rests on the same rule), and only an edit in place leaves it, which the
// stat of each file finds.
type folderList struct {
	path         string
	mtime, ctime int64    // the folder's, taken before it was listed
	ino          uint64   // the folder's inode number, 0 where the system has none
	files        []string // the base names of its entry files
}

// listOf is the record of the listing files of the folder s, and whether it
// may be kept: only when the folder's mtime and change time were older than
// now, taken before the listing began, by more than racyWindow. A change of
// its names after the listing gives the folder an mtime at or after the
// listing, so more than racyWindow after the one recorded, which it then
// differs from even where timestamps are that coarse; without the margin,
// a change in the same tick as the folder's last one, just after the
// listing, would leave the mtime as recorded and the record trusted. The
// change time is compared too, so that a tool that puts a folder's mtime
// back after changing its names (tar, rsync -t, touch -d) does not make the
// record trusted: the kernel moves it with every such change. The inode
// number is compared so that another folder moved into the path is not
// taken for the one recorded.
func listOf(s folderStamp, files []string, now time.Time) (folderList, bool) {
	l := folderList{path: s.path, mtime: s.mtime, ctime: s.ctime, ino: s.ino, files: files}
	return l, s.settled && stamp{mtime: s.ctime}.settledAt(now)
}

// folderFilesFormat is the version of folder_files' encoding of the files
// (their base names, each followed by a NUL, which no file name holds). A
// record of another version is not read: its folder is listed and its
// record written again.
const folderFilesFormat = 1

// folderFilesTable holds a folderList per folder whose listing could be
// kept. It is created when missing, so that an index made before it gains
// it at its next write rather than being rebuilt; until then the full check
// lists every folder, as before.
const folderFilesTable = `CREATE TABLE IF NOT EXISTS folder_files (
	path   TEXT PRIMARY KEY,
	mtime  INTEGER NOT NULL,
	ctime  INTEGER NOT NULL,
	ino    INTEGER NOT NULL,
	format INTEGER NOT NULL,
	files  BLOB NOT NULL
)`

// recordOf returns the function that finds the files of a folder in its
// record, if folder_files holds one of the folder's times s (see
// statFolders), or nil if the index has no such table. A record that
// cannot be read or is damaged is not found: the folder is listed, and its
// record written again.
func recordOf(ctx context.Context, db *sql.DB) (func(s folderStamp) ([]string, bool), error) {
	if ok, err := hasFolderFiles(ctx, db); err != nil || !ok {
		return nil, err
	}
	return func(s folderStamp) ([]string, bool) {
		var files string // one string: every name is a slice of it
		err := db.QueryRowContext(ctx, `SELECT files FROM folder_files WHERE path = ? AND mtime = ? AND ctime = ? AND ino = ? AND format = ?`,
			s.path, s.mtime, s.ctime, int64(s.ino), folderFilesFormat).Scan(&files)
		if err != nil {
			return nil, false
		}
		out, err := decodeFiles(s.path, files)
		return out, err == nil
	}, nil
}

// querier is a database or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// hasFolderFiles reports whether the index has the folder_files table.
func hasFolderFiles(ctx context.Context, q querier) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'folder_files'`).Scan(&n)
	return n > 0, err
}

// newLists returns those of lists that folder_files does not hold already
// (by the folders' times: a record damaged in its files is not seen).
func newLists(ctx context.Context, q querier, lists []folderList) ([]folderList, error) {
	if len(lists) == 0 {
		return nil, nil
	}
	known, err := loadListStamps(ctx, q)
	if err != nil {
		return nil, err
	}
	var out []folderList
	for _, l := range lists {
		if k, ok := known[l.path]; !ok || k.mtime != l.mtime || k.ctime != l.ctime || k.ino != l.ino {
			out = append(out, l)
		}
	}
	return out, nil
}

// loadListStamps reads the records of folder_files, but their files.
func loadListStamps(ctx context.Context, q querier) (map[string]folderList, error) {
	if ok, err := hasFolderFiles(ctx, q); err != nil || !ok {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT path, mtime, ctime, ino FROM folder_files WHERE format = ?`, folderFilesFormat)
	if err != nil {
		return nil, fmt.Errorf("read folder_files: %w", err)
	}
	defer rows.Close()
	out := map[string]folderList{}
	for rows.Next() {
		var l folderList
		var ino int64
		if err := rows.Scan(&l.path, &l.mtime, &l.ctime, &ino); err != nil {
			return nil, fmt.Errorf("read folder_files: %w", err)
		}
		l.ino = uint64(ino)
		out[l.path] = l
	}
	return out, rows.Err()
}

// listsOf is the records that a walk's folders and entry files make: those
// of the folders listOf keeps.
func listsOf(folders []folderStamp, files []fileStamp, now time.Time) []folderList {
	in := map[string][]string{}
	for _, f := range files {
		folder := vault.Folder(f.name)
		in[folder] = append(in[folder], path.Base(f.name)+".md")
	}
	var out []folderList
	for _, s := range folders {
		if l, ok := listOf(s, in[s.path], now); ok {
			out = append(out, l)
		}
	}
	return out
}

// putLists records lists, and drops the records of the folders drops and
// of those in them. It creates the table in an index made before it.
func putLists(ctx context.Context, tx *sql.Tx, lists []folderList, drops []string) error {
	if len(lists) == 0 && len(drops) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, folderFilesTable); err != nil {
		return fmt.Errorf("create folder_files: %w", err)
	}
	for _, d := range drops {
		if _, err := tx.ExecContext(ctx, `DELETE FROM folder_files WHERE path = ?1 OR (path >= ?1 || '/' AND path < ?1 || '0')`, d); err != nil {
			return fmt.Errorf("unrecord folder %s: %w", d, err)
		}
	}
	for _, l := range lists {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO folder_files(path, mtime, ctime, ino, format, files) VALUES (?, ?, ?, ?, ?, ?)`,
			l.path, l.mtime, l.ctime, int64(l.ino), folderFilesFormat, encodeFiles(l.files)); err != nil {
			return fmt.Errorf("record the files of folder %s: %w", l.path, err)
		}
	}
	return nil
}

// encodeFiles is the files of a record as folder_files holds them.
func encodeFiles(files []string) []byte {
	n := 0
	for _, f := range files {
		n += len(f) + 1
	}
	b := make([]byte, 0, n)
	for _, f := range files {
		b = append(append(b, f...), 0)
	}
	return b
}

// decodeFiles reads the files of the record of the folder f: each the base
// name of an entry file, followed by a NUL. A record that holds anything
// else is damaged. Below the root, a base name that ends in ".md" and does
// not begin with "." is an entry's (vault.NameOf), in a folder that holds
// entries; at the root, some such names are not (the vault's guide).
func decodeFiles(f, s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	if !strings.HasSuffix(s, "\x00") {
		return nil, fmt.Errorf("the record of folder %q does not end with a NUL", f)
	}
	files := strings.Split(s[:len(s)-1], "\x00")
	for _, name := range files {
		if !strings.HasSuffix(name, ".md") || strings.HasPrefix(name, ".") || strings.Contains(name, "/") {
			return nil, fmt.Errorf("the record of folder %q holds %q, not an entry file's name", f, name)
		}
		if f == "" {
			if _, ok := vault.NameOf(name); !ok {
				return nil, fmt.Errorf("the record of the vault's root holds %q, not an entry file's name", name)
			}
		}
	}
	return files, nil
}
