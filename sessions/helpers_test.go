package sessions

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden files from the actual output")

// testNow is the tests' clock: after every published session.
var testNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// testStore opens the ingest state of a new vault folder.
func testStore(t *testing.T, opts ...Option) (*Store, string) {
	t.Helper()
	root := t.TempDir()
	s, err := Open(t.Context(), root, append([]Option{WithClock(func() time.Time { return testNow })}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, root
}

// publishedFiles are the real session files of package transcript's
// testdata (see SOURCES.md there).
func publishedFiles(t *testing.T) []File {
	t.Helper()
	var files []File
	for _, d := range []string{"claude-code", "codex", "gemini"} {
		fs, err := FindFiles(t.Context(), filepath.Join("..", "transcript", "testdata", d))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	if len(files) < 11 {
		t.Fatalf("found %d published session files, want 11", len(files))
	}
	return files
}

func ingest(t *testing.T, s *Store, files []File, o Options) Report {
	t.Helper()
	rep, err := s.Ingest(t.Context(), files, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) > 0 {
		t.Fatalf("ingest errors: %v", rep.Errors)
	}
	return rep
}

// dump renders everything the store holds, without ids and times of its
// own, so two stores that ingested the same sessions in different ways can
// be compared.
func dump(t *testing.T, s *Store) string {
	t.Helper()
	var b strings.Builder
	query := func(q string, cols int) {
		rows, err := s.db.QueryContext(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		vals := make([]any, cols)
		ptrs := make([]any, cols)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, vals...)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	b.WriteString("files\n")
	query(`SELECT key, source, offset, head_sum, tail_sum, last_at, parser, skipped, messages, status FROM files ORDER BY key`, 10)
	b.WriteString("conversations\n")
	query(`SELECT file, session, project, cwd, first_at, last_at, messages, user_messages, tool_calls, saves, status, note, closed FROM conversations ORDER BY file, first_at`, 13)
	b.WriteString("messages\n")
	query(`SELECT m.file, m.pos, c.first_at, m.session, m.role, m.at, m.text, m.tools, m.cwd FROM messages m JOIN conversations c ON c.id = m.conversation ORDER BY m.file, m.pos`, 9)
	b.WriteString("outcomes\n")
	query(`SELECT file, tool, outcome FROM outcomes ORDER BY file, tool`, 3)
	b.WriteString("blocks\n")
	query(`SELECT c.file, c.first_at, b.count, f.text FROM blocks b JOIN conversations c ON c.id = b.conversation JOIN blocks_fts f ON f.rowid = b.id ORDER BY c.file, c.first_at, (SELECT min(pos) FROM messages WHERE block = b.id)`, 4)
	return b.String()
}

// countRows counts a table's rows.
func countRows(t *testing.T, db *sql.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// line is a Claude Code transcript line of a message at t.
func line(session, role, text string, t time.Time) string {
	return fmt.Sprintf(`{"type":%q,"sessionId":%q,"cwd":"/src/app","timestamp":%q,"message":{"role":%q,"content":%q}}`+"\n",
		role, session, t.Format(time.RFC3339Nano), role, text)
}

// writeFile writes a session file under dir and describes it.
func writeFile(t *testing.T, dir, name, data string) File {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := FileAt(p)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// parsed is what package transcript reads from a whole file.
func parsed(t *testing.T, f File) []transcript.Message {
	t.Helper()
	data, err := os.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	var st transcript.State
	return transcript.Parse(f.Source, data, 0, &st, true).Messages
}
