// Package sessions keeps the machine-local record of agents' past
// sessions: which session files have been read and how far, their messages
// (redacted), the conversations they split into, and a full-text index
// over what was said. It sits beside the index of entries: the librarian
// fills it and files its conversations, the extractor reads it. It lives
// in an SQLite file under the vault's .ctx0/state/, which git ignores:
// transcripts never enter the vault.
//
// Ingesting is incremental and crash-safe. A file is read in chunks; each
// chunk's messages, its conversations and the offset reached are written in
// one transaction, so a process killed at any moment leaves every message
// stored exactly once, and the next run continues from the last commit.
// Several processes (a hook, a watcher, a person's command) may ingest at
// once: a chunk only commits if the file's offset is still the one it was
// read from.
package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/ctx0/ctx0/internal/sqlitedb"
	"github.com/ctx0/ctx0/vault"
	"modernc.org/sqlite"
)

// StateDir is where ctx0 keeps machine-local state, relative to the vault
// root. The vault's .gitignore leaves it out of git.
const StateDir = ".ctx0/state"

// DBFile is the state database, in StateDir. Until it exists nothing was
// ingested; Open creates it.
const DBFile = "ingest.db"

// Store is the ingest state of one vault. Its methods may be called from
// several goroutines.
type Store struct {
	db  *sql.DB
	dir string
	cfg Config
	// configured is set when WithConfig gave cfg.
	configured bool
	now        func() time.Time
	chunk      int

	mu       sync.Mutex
	projects map[string]string // by folder and recorded remote, see project
}

// Option adjusts an opened Store.
type Option func(*Store)

// WithClock makes the store read the time from now, for tests and for
// CTX0_NOW.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithConfig gives the store its configuration, the ingest section of
// the vault's config as the caller already read it; without it, Open
// reads the file.
func WithConfig(c Config) Option { return func(s *Store) { s.cfg, s.configured = c, true } }

// WithChunkSize sets how many bytes of a file one transaction reads, so
// tests can exercise many commits on a small file.
func WithChunkSize(n int) Option { return func(s *Store) { s.chunk = n } }

// defaultChunk bounds the memory and the work a crash can lose: a chunk's
// transaction commits in a few milliseconds.
const defaultChunk = 1 << 20

// pragmas: WAL, so a hook's short write and a long import interleave and
// readers never wait; a busy timeout, so processes queue instead of
// failing; immediate transactions, so a writer takes the lock up front and
// two writers never deadlock upgrading a read. NORMAL sync is enough: a
// commit lost to a power cut is read again from the session file, which
// stays the source of truth.
const pragmas = "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"

// Open opens the ingest state of the vault at root, creating it if needed,
// and returns conversations that a dead run left in processing to the
// queue.
func Open(ctx context.Context, root string, opts ...Option) (s *Store, err error) {
	s = &Store{now: time.Now, chunk: defaultChunk, projects: map[string]string{}}
	for _, o := range opts {
		o(s)
	}
	if !s.configured {
		// Through the vault's one way into its files: a config pushed as
		// a link is refused, not followed out of the vault.
		f, err := vault.ReadConfig(root)
		if err != nil {
			return nil, err
		}
		if s.cfg, err = ParseConfig(f); err != nil {
			return nil, err
		}
	}
	dir := filepath.Join(root, filepath.FromSlash(StateDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open ingest state: %w", err)
	}
	p := filepath.Join(dir, DBFile)
	c, err := sqlite.NewConnector(p + pragmas)
	if err != nil {
		return nil, fmt.Errorf("open ingest state %s: %w", p, err)
	}
	db := sql.OpenDB(c)
	// One connection: a CLI process does one thing at a time, and SQLite
	// takes one writer anyway.
	db.SetMaxOpenConns(1)
	s.db, s.dir = db, dir
	defer func() {
		if err != nil {
			db.Close()
		}
	}()
	if err := s.openLocked(ctx, p+".lock"); err != nil {
		return nil, fmt.Errorf("open ingest state %s: %w", p, err)
	}
	if err := s.recoverClaims(ctx); err != nil {
		return nil, fmt.Errorf("open ingest state %s: %w", p, err)
	}
	return s, nil
}

// Close closes the state database.
func (s *Store) Close() error { return s.db.Close() }

// openLocked makes the store's first connection and brings the schema up
// to date while holding an advisory lock (flock) on lockPath. SQLite's busy
// timeout does not cover two processes that create the file at once: the
// switch of a new database to WAL fails at once with "database is locked"
// for the loser (a hook and ingest --watch starting together on a new
// vault). Serializing the first connection and the migration avoids that;
// later statements queue on the busy timeout as usual.
func (s *Store) openLocked(ctx context.Context, lockPath string) error {
	l, err := filelock.Exclusive(ctx, lockPath)
	if err != nil {
		return err
	}
	defer func() { _ = l.Unlock() }()
	return s.migrate(ctx)
}

// ErrNewerState is returned for a state written by a newer ctx0.
var ErrNewerState = errors.New("ingest state was written by a newer ctx0; upgrade ctx0")

func (s *Store) migrate(ctx context.Context) error {
	if len(migrations) != schemaVersion {
		return fmt.Errorf("ingest state: %d migrations for schema version %d", len(migrations), schemaVersion)
	}
	return sqlitedb.Migrate(ctx, s.db, migrations, ErrNewerState)
}

// withTx runs fn in a transaction of the state database.
func (s *Store) withTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return sqlitedb.WithTx(ctx, s.db, fn)
}

// millis and fromMillis convert the stored times.
func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
