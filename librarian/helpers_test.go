package librarian

import (
	"flag"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctx0/ctx0/sessions"
)

var update = flag.Bool("update", false, "rewrite the golden files from the actual output")

// testNow is the tests' clock: after every published session.
var testNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func now() time.Time { return testNow }

// published are the real Claude Code, Codex and Gemini CLI sessions of
// package transcript's testdata (see SOURCES.md there). The Cursor
// transcript is left out: it records no times, so its conversation is
// dated by the file's modification time, which a checkout sets.
var published = []string{
	filepath.Join("..", "transcript", "testdata", "claude-code"),
	filepath.Join("..", "transcript", "testdata", "codex"),
	filepath.Join("..", "transcript", "testdata", "gemini"),
}

// ingestFiles reads session files into the ingest state of the vault at
// root and queues every conversation, as a hook at the end of each
// session would.
func ingestFiles(t *testing.T, root string, files []sessions.File) *sessions.Store {
	t.Helper()
	st, err := sessions.Open(t.Context(), root, sessions.WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rep, err := st.Ingest(t.Context(), files, sessions.Options{End: true, Queue: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) > 0 {
		t.Fatalf("ingest: %v", rep.Errors)
	}
	return st
}

// publishedFiles lists the real session files.
func publishedFiles(t *testing.T) []sessions.File {
	t.Helper()
	var files []sessions.File
	for _, d := range published {
		fs, err := sessions.FindFiles(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	if len(files) < 10 {
		t.Fatalf("found %d published session files, want 10", len(files))
	}
	return files
}
