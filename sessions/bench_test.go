package sessions

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"modernc.org/sqlite"

	"github.com/ctx0/ctx0/transcript"
)

// benchFiles are the published sessions and their total size.
func benchFiles(b *testing.B) ([]File, int64) {
	var files []File
	var size int64
	for _, d := range []string{"claude-code", "codex"} {
		fs, err := FindFiles(b.Context(), filepath.Join("..", "transcript", "testdata", d))
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range fs {
			fi, err := os.Stat(f.Path)
			if err != nil {
				b.Fatal(err)
			}
			size += fi.Size()
		}
		files = append(files, fs...)
	}
	return files, size
}

// BenchmarkIngest ingests every published session into a new state: parse,
// redact, split into conversations, index for search, one transaction per
// chunk. The baseline, bare-insert, stores the same parsed messages in a
// plain table and an FTS5 table in one transaction: the least SQLite work
// that makes the messages searchable.
func BenchmarkIngest(b *testing.B) {
	files, size := benchFiles(b)
	b.Run("ctx0", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			s, err := Open(b.Context(), b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Ingest(b.Context(), files, Options{}); err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
	b.Run("bare-insert", func(b *testing.B) {
		var msgs []transcript.Message
		for _, f := range files {
			data, err := os.ReadFile(f.Path)
			if err != nil {
				b.Fatal(err)
			}
			var st transcript.State
			msgs = append(msgs, transcript.Parse(f.Source, data, 0, &st, true).Messages...)
		}
		b.SetBytes(size)
		for b.Loop() {
			c, err := sqlite.NewConnector(filepath.Join(b.TempDir(), "bare.db") + "?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
			if err != nil {
				b.Fatal(err)
			}
			db := sql.OpenDB(c)
			for _, q := range []string{`CREATE TABLE m (id INTEGER PRIMARY KEY, session TEXT, role TEXT, at INTEGER, text TEXT)`,
				`CREATE VIRTUAL TABLE f USING fts5(text, tokenize = 'porter unicode61 remove_diacritics 2')`} {
				if _, err := db.Exec(q); err != nil {
					b.Fatal(err)
				}
			}
			tx, err := db.Begin()
			if err != nil {
				b.Fatal(err)
			}
			for _, m := range msgs {
				res, err := tx.Exec(`INSERT INTO m (session, role, at, text) VALUES (?, ?, ?, ?)`, m.Session, m.Role, m.Time.UnixMilli(), m.Text)
				if err != nil {
					b.Fatal(err)
				}
				id, _ := res.LastInsertId()
				if _, err := tx.Exec(`INSERT INTO f (rowid, text) VALUES (?, ?)`, id, m.Text); err != nil {
					b.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			db.Close()
		}
	})
}
