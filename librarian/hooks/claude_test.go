package hooks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/sessions"
)

var testNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// hookEnv is a vault's state folder, a Claude Code transcript in the
// place Claude Code keeps it, and the options a hook gets.
func hookEnv(t *testing.T) (root, transcript string, o Options) {
	t.Helper()
	root = t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "..", "transcript", "testdata", "claude-code", "spotter-tool_heavy-v2.1.38.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	transcript = filepath.Join(t.TempDir(), ".claude", "projects", "-home-marco-projects-spotter", "d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl")
	if err := os.MkdirAll(filepath.Dir(transcript), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(transcript, data, 0o644); err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return testNow }
	o = Options{
		Deadline: time.Minute,
		Store: func(ctx context.Context) (*sessions.Store, error) {
			return sessions.Open(ctx, root, sessions.WithClock(clock))
		},
		Log: OpenLog(filepath.Join(root, sessions.StateDir), clock),
	}
	if err := os.MkdirAll(filepath.Join(root, sessions.StateDir), 0o755); err != nil {
		t.Fatal(err)
	}
	return root, transcript, o
}

// input is hook JSON as Claude Code sends it.
func input(event, transcript, extra string) []byte {
	return fmt.Appendf(nil, `{"session_id":"d6e0bada-1959-4eec-a9d2-0bfade768d8f","transcript_path":%q,"cwd":"/home/marco/projects/spotter","permission_mode":"default","hook_event_name":%q%s}`,
		transcript, event, extra)
}

func logText(t *testing.T, o Options) string {
	t.Helper()
	b, err := os.ReadFile(o.Log.path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func conversations(t *testing.T, o Options) []sessions.Conversation {
	t.Helper()
	s, err := o.Store(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, err := s.Conversations(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func TestClaudeCodeEvents(t *testing.T) {
	tests := []struct {
		event, extra string
		status       sessions.Status // of the session's conversation, "" for none
		log          string
	}{
		{"SessionStart", `,"source":"startup"`, "", ""}, // no context block to print: see TestSessionStart
		{"Stop", `,"stop_hook_active":false`, sessions.Queued, "Stop d6e0bada-1959-4eec-a9d2-0bfade768d8f: 12 new messages; conversations queued: 1"},
		{"PreCompact", `,"trigger":"auto","custom_instructions":""`, sessions.Queued, "PreCompact d6e0bada-1959-4eec-a9d2-0bfade768d8f: 12 new messages; conversations queued: 1"},
		{"SessionEnd", `,"reason":"prompt_input_exit"`, sessions.Queued, "SessionEnd d6e0bada-1959-4eec-a9d2-0bfade768d8f: 12 new messages; conversations queued: 1"},
		{"UserPromptSubmit", `,"prompt":"hi"`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.event, func(t *testing.T) {
			_, transcript, o := hookEnv(t)
			if out := ClaudeCode(t.Context(), input(tt.event, transcript, tt.extra), o); out != "" {
				t.Errorf("printed %q", out)
			}
			list := conversations(t, o)
			switch {
			case tt.status == "" && len(list) != 0:
				t.Errorf("conversations %+v, want none", list)
			case tt.status != "" && (len(list) != 1 || list[0].Status != tt.status || list[0].Messages != 12):
				t.Errorf("conversations %+v, want one of 12 messages, %s", list, tt.status)
			}
			if got := logText(t, o); !strings.Contains(got, tt.log) || tt.log == "" && got != "" {
				t.Errorf("log %q, want %q", got, tt.log)
			}
		})
	}
}

// TestStopKeepsLiveConversation: a Stop hook in the middle of a session
// ingests the turn but leaves the conversation open; the session's end
// hands it over.
func TestStopKeepsLiveConversation(t *testing.T) {
	root, transcript, o := hookEnv(t)
	// Minutes after the session's last words.
	clock := func() time.Time { return time.Date(2026, 2, 10, 23, 0, 0, 0, time.UTC) }
	o.Store = func(ctx context.Context) (*sessions.Store, error) {
		return sessions.Open(ctx, root, sessions.WithClock(clock))
	}
	ClaudeCode(t.Context(), input("Stop", transcript, ""), o)
	if list := conversations(t, o); len(list) != 1 || list[0].Status != sessions.Active {
		t.Fatalf("after Stop: %+v", list)
	}
	ClaudeCode(t.Context(), input("SessionEnd", transcript, `,"reason":"clear"`), o)
	if list := conversations(t, o); len(list) != 1 || list[0].Status != sessions.Queued {
		t.Fatalf("after SessionEnd: %+v", list)
	}
}

// TestHookNeverFails: bad input and a missing transcript are logged, not
// returned.
func TestHookNeverFails(t *testing.T) {
	_, _, o := hookEnv(t)
	ClaudeCode(t.Context(), []byte("not json"), o)
	ClaudeCode(t.Context(), input("Stop", "/nowhere/x.jsonl", ""), o)
	ClaudeCode(t.Context(), []byte(`{"hook_event_name":"SessionEnd"}`), o)
	log := logText(t, o)
	for _, want := range []string{"not Claude Code's hook JSON", "/nowhere/x.jsonl", "no transcript_path"} {
		if !strings.Contains(log, want) {
			t.Errorf("log %q lacks %q", log, want)
		}
	}
	if n := strings.Count(log, "\n"); n != 3 {
		t.Errorf("%d log lines, want 3:\n%s", n, log)
	}
}

// TestDeadline: work that outlasts the deadline goes on in the background
// with the same input, and the hook returns.
func TestDeadline(t *testing.T) {
	_, transcript, o := hookEnv(t)
	o.Deadline = 0
	o.Store = func(ctx context.Context) (*sessions.Store, error) {
		<-ctx.Done() // slower than any deadline
		return nil, ctx.Err()
	}
	var spawned [][]string
	var stdin []byte
	o.Spawn = func(args []string, in []byte) error {
		spawned, stdin = append(spawned, args), in
		return nil
	}
	in := input("SessionEnd", transcript, `,"reason":"logout"`)
	ClaudeCode(t.Context(), in, o)
	if len(spawned) != 1 || strings.Join(spawned[0], " ") != "hook claude-code --background" || string(stdin) != string(in) {
		t.Errorf("spawned %v with %q", spawned, stdin)
	}
	if log := logText(t, o); !strings.Contains(log, "continuing in the background") {
		t.Errorf("log %q", log)
	}
}

// TestSessionStart prints the context block of the session's folder, if it
// is ready within the deadline.
func TestSessionStart(t *testing.T) {
	_, transcript, o := hookEnv(t)
	o.Context = func(ctx context.Context, cwd string) (string, error) {
		return "<memory>\nproject " + cwd + "\n</memory>\n", nil
	}
	in := input("SessionStart", transcript, `,"source":"compact"`)
	if out := ClaudeCode(t.Context(), in, o); out != "<memory>\nproject /home/marco/projects/spotter\n</memory>\n" {
		t.Errorf("printed %q", out)
	}
	o.Context = func(ctx context.Context, cwd string) (string, error) {
		<-ctx.Done() // slower than any deadline
		return "too late", nil
	}
	o.Deadline = 0
	if out := ClaudeCode(t.Context(), in, o); out != "" {
		t.Errorf("printed %q after the deadline", out)
	}
	if log := logText(t, o); !strings.Contains(log, "SessionStart d6e0bada-1959-4eec-a9d2-0bfade768d8f: the context block was not ready within 0s") {
		t.Errorf("log %q", log)
	}
}

// TestFilesWhatItQueued: an event that queued conversations starts the
// librarian (once), one that queued none does not, and a librarian that
// cannot start is logged.
func TestFilesWhatItQueued(t *testing.T) {
	_, transcript, o := hookEnv(t)
	started := 0
	o.File = func() error { started++; return nil }
	ClaudeCode(t.Context(), input("SessionEnd", transcript, `,"reason":"other"`), o)
	if started != 1 || !strings.Contains(logText(t, o), "the librarian files the queued conversations in the background") {
		t.Errorf("after a session end: %d starts, log %q", started, logText(t, o))
	}
	ClaudeCode(t.Context(), input("SessionEnd", transcript, `,"reason":"other"`), o)
	if started != 1 {
		t.Errorf("a second session end, which queued nothing, started the librarian")
	}
	_, transcript, o = hookEnv(t)
	o.File = func() error { return fmt.Errorf("no ctx0 binary") }
	ClaudeCode(t.Context(), input("PreCompact", transcript, ""), o)
	if log := logText(t, o); !strings.Contains(log, "the librarian did not start: no ctx0 binary") {
		t.Errorf("log %q", log)
	}
}
