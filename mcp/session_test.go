package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx0/ctx0/integration/claudecode"
	"github.com/ctx0/ctx0/sessions"
)

// archive_now finds the client's session as Claude Code keeps it (the
// folder the server runs in, in projects/), ingests it and queues it.
func TestArchiveNow(t *testing.T) {
	projects := filepath.Join(t.TempDir(), "projects")
	cwd := "/home/me/dev/my.app"
	folder := filepath.Join(projects, claudecode.ProjectFolder(cwd))
	if filepath.Base(folder) != "-home-me-dev-my-app" {
		t.Fatalf("Claude Code's folder for %s: %s", cwd, folder)
	}
	data, err := os.ReadFile("../transcript/testdata/claude-code/kiliman-test2-v1.0.57.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(folder, "0e26ec2f-mine.jsonl")
	if err := os.WriteFile(mine, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// Another project's session, newer: not this one.
	other := filepath.Join(projects, "-home-me-other", "77aa-other.jsonl")
	os.MkdirAll(filepath.Dir(other), 0o755)
	os.WriteFile(other, data, 0o644)
	later := time.Now().Add(time.Minute)
	os.Chtimes(other, later, later)

	var f *fixture
	f = newFixture(t, func(o *Options) {
		o.Archive = &Sessions{Dirs: []string{projects}, CWD: cwd, Started: time.Now(),
			Open: func(ctx context.Context) (*sessions.Store, error) { return sessions.Open(ctx, o.Memory.Vault.Root()) }}
	})
	cs := f.connect(t)
	out := ok(t, cs, "archive_now", nil)
	if !strings.Contains(out, mine) || strings.Contains(out, " 0 new messages") {
		t.Errorf("archive_now: %s", out)
	}
	// Named by its id; nothing new since.
	out = ok(t, cs, "archive_now", map[string]any{"session_id": "77aa-other", "summary": "Set up the deploy pipeline for my.app."})
	if !strings.Contains(out, other) || !strings.Contains(out, "summary is saved as episodes/") {
		t.Errorf("archive_now by id: %s", out)
	}
	fails(t, cs, "archive_now", map[string]any{"session_id": "nope"}, "no transcript of that session")
	fails(t, cs, "archive_now", map[string]any{"transcript_path": "/etc/passwd"}, ".jsonl")
}

// archive_now reads a transcript_path only inside the session folders: a
// client (a remote one, over --http --allow-remote) cannot have it read
// any other file of the machine, through a link or a climb.
func TestArchiveNowStaysInTheSessionFolders(t *testing.T) {
	base := t.TempDir()
	projects := filepath.Join(base, "projects")
	data, err := os.ReadFile("../transcript/testdata/claude-code/kiliman-test2-v1.0.57.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	write := func(p string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inside := write(filepath.Join(projects, "-src-app", "0e26ec2f-in.jsonl"))
	outside := write(filepath.Join(base, "elsewhere", "secrets.jsonl"))
	// A folder whose name starts like the session folder's is not in it.
	sibling := write(filepath.Join(base, "projects-old", "x.jsonl"))
	link := filepath.Join(projects, "-src-app", "link.jsonl")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	linkedDir := filepath.Join(projects, "-linked")
	if err := os.Symlink(filepath.Dir(outside), linkedDir); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(o *Options) {
		o.Archive = &Sessions{Dirs: []string{projects}, Started: time.Now(),
			Open: func(ctx context.Context) (*sessions.Store, error) { return sessions.Open(ctx, o.Memory.Vault.Root()) }}
	})
	cs := f.connect(t)
	for _, p := range []string{
		outside,
		sibling,
		link,
		filepath.Join(linkedDir, "secrets.jsonl"),
		filepath.Join(projects, "..", "elsewhere", "secrets.jsonl"),
		"projects/-src-app/0e26ec2f-in.jsonl",
	} {
		fails(t, cs, "archive_now", map[string]any{"transcript_path": p}, "transcript_path "+p)
	}
	fails(t, cs, "archive_now", map[string]any{"transcript_path": outside}, "not in an agent's session folder")
	// Found by its id, a link is refused the same way.
	fails(t, cs, "archive_now", map[string]any{"session_id": "link"}, "not in an agent's session folder")
	out := ok(t, cs, "archive_now", map[string]any{"transcript_path": inside})
	if !strings.Contains(out, inside) {
		t.Errorf("archive_now inside the folder: %s", out)
	}
}

func TestRecoverTools(t *testing.T) {
	h := recoverTools(func(context.Context, string, sdk.Request) (sdk.Result, error) { panic("boom") })
	res, err := h(t.Context(), "tools/call", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := res.(*sdk.CallToolResult); !ok || !r.IsError {
		t.Errorf("a panic in a tool: %#v", res)
	}
}
