package librarian

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctx0/ctx0/librarian/ingest"
)

var update = flag.Bool("update", false, "rewrite the golden files from the actual output")

// testNow is the tests' clock: after every published session.
var testNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func now() time.Time { return testNow }

// published are the real Claude Code and Codex sessions of package
// transcript's testdata (see SOURCES.md there).
var published = []string{
	filepath.Join("transcript", "testdata", "claude-code"),
	filepath.Join("transcript", "testdata", "codex"),
}

// ingestFiles reads session files into the ingest state of the vault at
// root and queues every conversation, as a hook at the end of each
// session would.
func ingestFiles(t *testing.T, root string, files []ingest.File) *ingest.Store {
	t.Helper()
	st, err := ingest.Open(t.Context(), root, ingest.WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rep, err := st.Ingest(t.Context(), files, ingest.Options{End: true, Queue: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) > 0 {
		t.Fatalf("ingest: %v", rep.Errors)
	}
	return st
}

// publishedFiles lists the real session files.
func publishedFiles(t *testing.T) []ingest.File {
	t.Helper()
	var files []ingest.File
	for _, d := range published {
		fs, err := ingest.FindFiles(t.Context(), d)
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

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run go test -update and review the diff):\n%s", path, firstDiff(want, got))
	}
}

// firstDiff shows where two texts part.
func firstDiff(want, got []byte) string {
	wl, gl := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return "line " + itoa(i+1) + ":\nwant: " + string(w) + "\ngot:  " + string(g)
		}
	}
	return ""
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
