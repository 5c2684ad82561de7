package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctx0/ctx0/transcript"
)

// publishedSessions are the real Claude Code transcripts of package
// transcript's testdata (see SOURCES.md there).
func publishedSessions(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../transcript/testdata/claude-code/*.jsonl")
	if err != nil || len(files) < 6 {
		t.Fatalf("published sessions: %v %v", files, err)
	}
	return files
}

// ctx0Out runs ctx0 in the vault and returns its stdout, failing the test
// if it fails.
func ctx0Out(t *testing.T, vault, home string, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := ctx0Cmd(t, vault, args...)
	cmd.Env = append(cmd.Env, "HOME="+home, "CTX0_NOW=2026-05-01T12:00:00Z", "TZ=UTC")
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ctx0 %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

// everything is what a vault's ingest state shows: its conversations and
// each one's transcript.
func everything(t *testing.T, vault, home string) string {
	t.Helper()
	list := ctx0Out(t, vault, home, nil, "conversations", "--json")
	var convs []struct{ ID int64 }
	if err := json.Unmarshal(list, &convs); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.Write(list)
	for _, c := range convs {
		b.Write(ctx0Out(t, vault, home, nil, "conversation", "show", fmt.Sprint(c.ID), "--json"))
	}
	return b.String()
}

// TestIngestKilled kills ingest processes at random moments, some of them
// reading the file again from the start, then lets one finish. Every
// message must be stored exactly once: the state equals that of one
// uninterrupted ingest.
func TestIngestKilled(t *testing.T) {
	var big []byte
	for range 3 {
		for _, f := range publishedSessions(t) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			big = append(big, data...)
		}
	}
	session := filepath.Join(t.TempDir(), "-src-app", "big.jsonl")
	if err := os.MkdirAll(filepath.Dir(session), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(session, big, 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	dir := newVault(t)
	r := rand.New(rand.NewPCG(3, 4))
	killed := 0
	for i := range 24 {
		args := []string{"ingest", "--file", session}
		if i%3 == 2 {
			args = append(args, "--reimport")
		}
		cmd := ctx0Cmd(t, dir, args...)
		cmd.Env = append(cmd.Env, "HOME="+home, "CTX0_NOW=2026-05-01T12:00:00Z")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.IntN(150_000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		if err := cmd.Wait(); err != nil {
			killed++
		}
	}
	if killed == 0 {
		t.Fatal("no ingest was killed: the test proves nothing")
	}
	ctx0Out(t, dir, home, nil, "ingest", "--file", session)

	ref := newVault(t)
	ctx0Out(t, ref, home, nil, "ingest", "--file", session)
	got, want := everything(t, dir, home), everything(t, ref, home)
	if got != want {
		t.Errorf("after %d kills the state differs from one uninterrupted ingest", killed)
	}
	var st transcript.State
	msgs := transcript.Parse(transcript.ClaudeCode, big, 0, &st, true).Messages
	var convs []struct{ Messages int }
	if err := json.Unmarshal(ctx0Out(t, dir, home, nil, "conversations", "--json"), &convs); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, c := range convs {
		total += c.Messages
	}
	if total != len(msgs) {
		t.Errorf("%d messages stored after %d kills, want %d", total, killed, len(msgs))
	}
}

// TestHooksEndToEnd is the "done when": a new user installs the
// hooks, works in Claude Code (the published transcripts are appended to
// session files a few lines at a time, and the installed hook command is
// run as Claude Code runs it, fed the JSON Claude Code gives it, at the
// time of the last line written), and ctx0 conversations shows every
// session split by its silences, each message stored once.
func TestHooksEndToEnd(t *testing.T) {
	home := t.TempDir()
	dir := newVault(t)
	// Conversations stay queued, for the statuses below: filing them as
	// sessions end is hooks-run.txtar's.
	cfg := filepath.Join(dir, ".ctx0", "config.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(data, "\ningest:\n  file_after_session: false\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx0Out(t, dir, home, nil, "hooks", "install", "claude-code")
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string }
		}
	}
	data, err = os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &settings); err != nil {
		t.Fatal(err)
	}
	hook := func(event, transcript, extra string, now time.Time) {
		t.Helper()
		groups := settings.Hooks[event]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Fatalf("%s hooks: %+v", event, groups)
		}
		in := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":"/src/app","permission_mode":"default","hook_event_name":%q%s}`,
			strings.TrimSuffix(filepath.Base(transcript), ".jsonl"), transcript, event, extra)
		cmd := exec.Command("sh", "-c", groups[0].Hooks[0].Command)
		cmd.Env = append(os.Environ(), "HOME="+home, "CTX0_NOW="+now.Format(time.RFC3339))
		cmd.Stdin = strings.NewReader(in)
		out, err := cmd.CombinedOutput()
		// Only SessionStart prints: the context block.
		if start := event == "SessionStart"; err != nil || start && !bytes.HasPrefix(out, []byte("<memory>")) || !start && len(out) > 0 {
			t.Fatalf("%s hook: %v, printed %q", event, err, out)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	want := map[string]int{}
	for _, src := range publishedSessions(t) {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(src), ".jsonl")
		p := filepath.Join(home, ".claude", "projects", "-src-"+name, name+".jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		// The clock follows the session: a hook runs moments after the
		// lines it follows were written.
		var st transcript.State
		lines := bytes.SplitAfter(data, []byte("\n"))
		transcript.Parse(transcript.ClaudeCode, lines[0], 0, &st, true)
		hook("SessionStart", p, `,"source":"startup"`, st.Time)
		for len(lines) > 0 {
			n := min(len(lines), 1+r.IntN(40))
			piece := bytes.Join(lines[:n], nil)
			if _, err := f.Write(piece); err != nil {
				t.Fatal(err)
			}
			lines = lines[n:]
			transcript.Parse(transcript.ClaudeCode, piece, 0, &st, true)
			hook("Stop", p, `,"stop_hook_active":false`, st.Time.Add(time.Second))
		}
		f.Close()
		hook("SessionEnd", p, `,"reason":"prompt_input_exit"`, st.Time.Add(time.Minute))
		want["claude-code/-src-"+name+"/"+name+".jsonl"] = len(transcript.Parse(transcript.ClaudeCode, data, 0, &transcript.State{}, true).Messages)
	}
	list := ctx0Out(t, dir, home, nil, "conversations", "--json")
	var convs []struct {
		File     string
		Status   string
		Messages int
	}
	if err := json.Unmarshal(list, &convs); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, c := range convs {
		got[c.File] += c.Messages
		if c.Status != "queued" && c.Status != "skipped" {
			t.Errorf("%s: status %s after the session ended", c.File, c.Status)
		}
	}
	for file, n := range want {
		if got[file] != n {
			t.Errorf("%s: %d messages in conversations, want %d", file, got[file], n)
		}
	}
	golden := filepath.Join("testdata", "ingest", "hooks-conversations.golden.txt")
	text := ctx0Out(t, dir, home, nil, "conversations")
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if wantText, err := os.ReadFile(golden); err != nil || !bytes.Equal(text, wantText) {
		t.Errorf("ctx0 conversations differs from %s (%v):\n%s", golden, err, text)
	}
	logData, err := os.ReadFile(filepath.Join(dir, ".ctx0", "state", "hooks.log"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(logData, []byte("error")) || bytes.Contains(logData, []byte("background")) {
		t.Errorf("hooks log:\n%s", logData)
	}
}
