// Package index is ctx0's search index: an SQLite database with an FTS5
// table at .ctx0/index.db, derived from the vault's files and never written
// by hand. Deleting it loses nothing; it is rebuilt on the next command.
//
// The index is never stale. Every ctx0 write tells it the paths it changed
// (it is the vault's Catalog and Observer). Changes made by other tools are
// found by checks before each use: writes make the cheap check (the mtimes
// of the vault's folders, which move when a file is added, removed or
// replaced by an editor that saves by rename), reads the full check (the
// size and mtime of every file, then the content hash of those that moved)
// unless a watcher (Watch, `ctx0 index --watch`) is running, which follows
// every change as it happens and syncs with each reader before it reads.
// The watcher also runs other processes' searches, with its caches warm.
package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctx0/ctx0/vault"
)

// File is the index's place in a vault.
const File = ".ctx0/index.db"

// Index is an open index of a vault. Its methods are safe for concurrent
// use, and several processes may use one index at once.
type Index struct {
	*shared
	// checked is set on the view Checked returns, whose reads skip
	// their own check.
	checked bool
}

// shared is an open index, shared by its checked views.
type shared struct {
	v        *vault.Vault
	root     string
	path     string
	notify   func(string)
	progress func(done, total int)
	now      func() time.Time // the real clock, which files' mtimes are compared with
	clock    func() time.Time // the clock of recorded times (see WithClock)

	mu    sync.Mutex
	db    *sql.DB
	ident os.FileInfo // the file db has open, to notice another process's rebuild
	last  Report      // what the last check of this process found
	// retired are handles on files since replaced, kept open a while for
	// the goroutines that may still be using them (see retire).
	retired []retired
	// syncs reaches this index's own running watcher, if Watch runs:
	// readers in the same process sync with it without a second watch.
	syncs chan syncRequest
	// written holds the entry files this process's write path has just
	// indexed (Changed), as they were when read, while its watcher runs:
	// the watcher skips the event of each that is still that file (see
	// takeWritten).
	written map[string]os.FileInfo
	// watching is set while Watch runs, from before its first check.
	watching bool
	// active is when the watcher last heard from a reader or of a change,
	// in Unix nanoseconds (see WatchIdle).
	active atomic.Int64
	// wantMin and want are WithWatcherWanted's; wanted is set once want
	// was called.
	wantMin int
	want    func(files int)
	wanted  bool
}

type retired struct {
	db *sql.DB
	at time.Time
}

// Option adjusts an opened index.
type Option func(*Index)

// WithNotify sends one-line notices for people (such as "the index was
// missing; rebuilding it") to fn.
func WithNotify(fn func(msg string)) Option {
	return func(ix *Index) {
		if fn != nil {
			ix.notify = fn
		}
	}
}

// WithProgress reports a rebuild's progress to fn: done of total files.
func WithProgress(fn func(done, total int)) Option {
	return func(ix *Index) {
		if fn != nil {
			ix.progress = fn
		}
	}
}

// WithClock sets the clock of the times the index records (when it was
// built), for reproducible output. The checks compare files' mtimes with
// the real clock whatever it says.
func WithClock(now func() time.Time) Option { return func(ix *Index) { ix.clock = now } }

// Open opens the index of v, building it first if it is missing, damaged
// or made for another schema version; while a watcher runs, that waits
// until the file is first used.
func Open(ctx context.Context, v *vault.Vault, opts ...Option) (*Index, error) {
	ix := &Index{shared: &shared{
		v: v, root: v.Root(), path: filepath.Join(v.Root(), filepath.FromSlash(File)),
		notify: func(string) {}, progress: func(int, int) {}, now: time.Now, clock: time.Now,
	}}
	for _, o := range opts {
		o(ix)
	}
	// A running watcher keeps the file usable, and may answer this
	// process's searches without it: open it when first used.
	if _, ok := ix.RunningWatcher(); ok {
		return ix, nil
	}
	if _, err := ix.handle(ctx); err != nil {
		return nil, err
	}
	return ix, nil
}

// Close closes the index.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, r := range ix.retired {
		r.db.Close()
	}
	ix.retired = nil
	if ix.db == nil {
		return nil
	}
	err := ix.db.Close()
	ix.db = nil
	return err
}

// Path is the index file.
func (ix *Index) Path() string { return ix.path }

// Lock files next to the index, all matched by the vault's .gitignore
// pattern .ctx0/index.db-*: writeLock serializes the processes that write
// the index (a rebuild holds it throughout, so others wait rather than
// rebuild twice); openLock keeps a rebuild from renaming a new file into
// place while a process is between opening the file and its WAL.
func (ix *Index) writeLock() string { return ix.path + "-lock" }
func (ix *Index) openLock() string  { return ix.path + "-open" }

// tryOpen opens the index file if it is a usable index, or says why not.
// ix.mu is held.
func (ix *Index) tryOpen(ctx context.Context) (reason string, err error) {
	unlock, err := lockFile(ctx, ix.openLock(), true)
	if err != nil {
		return "", fmt.Errorf("open index: %w", err)
	}
	defer unlock()
	fi, err := os.Stat(ix.path)
	if errors.Is(err, fs.ErrNotExist) {
		return "is missing", nil
	}
	if err != nil {
		return "", fmt.Errorf("open index %s: %w", ix.path, err)
	}
	db, err := openDB(ix.path, livePragmas)
	if err != nil {
		return "", err
	}
	var version int
	err = db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version)
	switch {
	case isCorrupt(err):
		db.Close()
		return fmt.Sprintf("is damaged (%v)", err), nil
	case err != nil:
		db.Close()
		return "", fmt.Errorf("open index %s: %w", ix.path, err)
	case version != schemaVersion:
		db.Close()
		return fmt.Sprintf("was made for schema version %d, and this ctx0 uses %d", version, schemaVersion), nil
	}
	if wal, err := os.Stat(ix.path + "-wal"); err == nil && wal.Size() > walLimit {
		foldWAL(ctx, db)
	}
	if ix.db != nil {
		ix.retire(ix.db)
	}
	ix.db, ix.ident = db, fi
	return "", nil
}

// retireGrace is how long a replaced handle stays open: another goroutine
// may have taken it just before and not yet started its query.
const retireGrace = time.Minute

// retire stops handing out db and closes it once the grace is over, at a
// later retire or at Close. ix.mu is held.
func (ix *Index) retire(db *sql.DB) {
	now := ix.now()
	keep := ix.retired[:0]
	for _, r := range ix.retired {
		if now.Sub(r.at) > retireGrace {
			r.db.Close()
		} else {
			keep = append(keep, r)
		}
	}
	ix.retired = append(keep, retired{db, now})
}

// handle returns the database, reopening it if another process has
// replaced the file since (a rebuild) or removed it, and rebuilding it if
// it is unusable.
func (ix *Index) handle(ctx context.Context) (*sql.DB, error) {
	return ix.open(ctx, false)
}

// open is handle for a caller that may hold the write lock (held).
func (ix *Index) open(ctx context.Context, held bool) (*sql.DB, error) {
	ix.mu.Lock()
	if ix.db != nil && sameFile(ix.path, ix.ident) {
		defer ix.mu.Unlock()
		return ix.db, nil
	}
	if ix.db != nil {
		ix.retire(ix.db)
		ix.db = nil
	}
	reason, err := ix.tryOpen(ctx)
	db := ix.db
	ix.mu.Unlock()
	if err != nil || reason == "" {
		return db, err
	}
	if err := ix.rebuild(ctx, reason, held); err != nil {
		return nil, err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.db, nil
}

// damaged handles an error from the database: if it says the file is
// damaged, the index is rebuilt and retry is true.
func (ix *Index) damaged(ctx context.Context, err error) (retry bool, _ error) {
	if !isCorrupt(err) {
		return false, err
	}
	if rerr := ix.rebuild(ctx, fmt.Sprintf("is damaged (%v)", err), false); rerr != nil {
		return false, rerr
	}
	return true, nil
}
