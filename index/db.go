package index

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"

	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/ctx0/ctx0/internal/sqlitedb"
	"modernc.org/sqlite"
)

// livePragmas configure every connection to a live index: WAL, so readers
// never wait for a writer and never see half a write; a busy timeout, so
// processes queue rather than fail; NORMAL sync, since the index can always
// be rebuilt and a lost last transaction is caught by the next check;
// immediate transactions, so a writer takes the write lock up front; and
// the file mapped (up to 1 GiB, a vault of some 150,000 entries), so a read
// of a page the connection's cache lacks is a memory access rather than a
// pread and a copy. Most of a search's pages are such pages: a search
// reads a few hundred scattered across the file, the 100,000-entry index
// in BENCHMARKS.md takes 0.6 ms less a search mapped (about 12%). SQLite
// remaps as the file grows; it never shrinks in place (no VACUUM, no
// auto_vacuum), and a rebuild renames a new file over the old one, so a
// mapping never outlives its file's size. (Deleting the file is safe too;
// truncating it by hand under a running watcher is not.) The WAL is cut
// back to walLimit after each checkpoint (journal_size_limit), and folded
// into the database once it holds walPages pages (wal_autocheckpoint).
const livePragmas = "?_pragma=busy_timeout(" + busyTimeout + ")&_pragma=journal_mode(WAL)&_pragma=journal_size_limit(1048576)&_pragma=wal_autocheckpoint(256)&_pragma=synchronous(NORMAL)&_pragma=cache_size(-32000)&_pragma=mmap_size(1073741824)&_txlock=immediate"

// busyTimeout is how long, in ms, a connection waits for another's lock.
const busyTimeout = "10000"

// buildPragmas configure a rebuild's new file, which nobody reads until it
// is complete: no journal and no syncs, as a crash just leaves a temporary
// file to delete.
const buildPragmas = "?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)&_pragma=cache_size(-32000)"

// persistWAL opens connections that leave the -wal and -shm files in place
// when they close. SQLite otherwise deletes them by name as the last
// connection closes, and after another process has renamed a rebuilt index
// into place those names belong to the new file, not to the one this
// connection has open.
type persistWAL struct{ driver.Connector }

func (c persistWAL) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if fc, ok := conn.(sqlite.FileControl); ok {
		if _, err := fc.FileControlPersistWAL("main", 1); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return conn, nil
}

func openDB(path, pragmas string) (*sql.DB, error) {
	c, err := sqlite.NewConnector(path + pragmas)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	db := sql.OpenDB(persistWAL{c})
	// Two connections: a search runs its two rankings side by side on
	// them. More would split the page cache further.
	db.SetMaxOpenConns(2)
	return db, nil
}

// SQLite's primary result codes for a file that is damaged or is not a
// database at all.
const (
	sqliteCorrupt = 11
	sqliteNotADB  = 26
)

// isCorrupt reports whether err says the database file is damaged.
func isCorrupt(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqliteCorrupt, sqliteNotADB:
			return true
		}
	}
	return false
}

// withTx runs fn in a transaction of the index.
func withTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error {
	return sqlitedb.WithTx(ctx, db, fn)
}

// lockFile waits until ctx ends for an advisory lock (flock) on p, shared
// or exclusive. A crashed holder never leaves it held.
func lockFile(ctx context.Context, p string, shared bool) (unlock func(), err error) {
	take := filelock.Exclusive
	if shared {
		take = filelock.Shared
	}
	l, err := take(ctx, p)
	if err != nil {
		return nil, err
	}
	return func() { _ = l.Unlock() }, nil
}

// tryLockFile takes an exclusive advisory lock on p if no one holds it.
func tryLockFile(p string) (unlock func(), ok bool) {
	l, ok, err := filelock.TryExclusive(p)
	if err != nil || !ok {
		return nil, false
	}
	return func() { _ = l.Unlock() }, true
}

// sameFile reports whether p is still the file fi describes.
func sameFile(p string, fi os.FileInfo) bool {
	cur, err := os.Stat(p)
	return err == nil && fi != nil && os.SameFile(cur, fi)
}

// walLimit is the size the write-ahead log is cut back to once a
// checkpoint has folded it into the database: without a limit the file
// keeps the size of the largest batch ever written (megabytes after a
// rebuild's worth of updates), since connections here keep it when they
// close (see persistWAL). With one, SQLite also cuts it to nothing as the
// last connection closes.
const walLimit = 1 << 20 // journal_size_limit in livePragmas

// walPages is the size, in pages, at which a commit folds the write-ahead
// log into the database (SQLite's default is 1,000, 4 MB). Every process
// that opens the index first (a CLI command, when no watcher holds it)
// reads the whole log and checks each frame's checksum to rebuild SQLite's
// index of it: at 10,000 entries a remember adds some 45 pages, so at the
// default a command read 2 MB of log on average, 1.5 ms of a remember's
// CPU (perf record). At 256 pages (1 MB, walLimit) it reads a quarter of
// that, for a checkpoint every six remembers instead of every twenty.
const walPages = 256 // wal_autocheckpoint in livePragmas

// foldWAL folds the write-ahead log of db into the database and empties
// it (a TRUNCATE checkpoint), unless another process reads or writes the
// index at that moment: it does not wait for them.
//
// SQLite empties the log only when a write transaction begins after a
// checkpoint has folded all of it, in the same process. A command that
// writes and exits without closing the index (see cmd/ctx0's container)
// never gets there: the next process to open the index rebuilds SQLite's
// index of the log from scratch, which forgets that it was folded, so the
// log only grows, every process reads all of it first (12-25 ms at 19 MB,
// after some hundred `ctx0 index` runs at 100,000 entries), and every
// write folds all of it again once it passes walPages. A process that
// opens the index and finds the log past walLimit empties it here.
func foldWAL(ctx context.Context, db *sql.DB) {
	conn, err := db.Conn(ctx) // the timeout is a connection's
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err != nil {
		return
	}
	// A blocked checkpoint says so in its row, not as an error; either
	// way the log is left for the next opener.
	_, _ = conn.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	_, _ = conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA busy_timeout = `+busyTimeout)
}
