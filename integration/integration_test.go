package integration_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/integration"
	"github.com/ctx0/ctx0/integration/claudecode"
	"github.com/ctx0/ctx0/integration/codex"
	"github.com/ctx0/ctx0/integration/cursor"
	"github.com/ctx0/ctx0/integration/gemini"
)

// The agents' files, by scope, with and without their environment
// variables: what hooks install, mcp install and ingest read and write.
func TestPaths(t *testing.T) {
	const home, proj = "/home/u", "/src/app"
	none := func(string) string { return "" }
	env := func(k string) string {
		return map[string]string{"CLAUDE_CONFIG_DIR": "/cfg/claude", "CODEX_HOME": "/cfg/codex", "GEMINI_CLI_HOME": "/cfg/g"}[k]
	}
	u, p, l := integration.User, integration.Project, integration.Local
	for _, c := range []struct{ got, want string }{
		{claudecode.HooksFile(u, home, proj, none), "/home/u/.claude/settings.json"},
		{claudecode.HooksFile(u, home, proj, env), "/cfg/claude/settings.json"},
		{claudecode.HooksFile(p, home, proj, env), "/src/app/.claude/settings.json"},
		{claudecode.HooksFile(l, home, proj, env), "/src/app/.claude/settings.local.json"},
		{claudecode.Transcripts(home, none), "/home/u/.claude/projects"},
		{claudecode.Transcripts(home, env), "/cfg/claude/projects"},
		{codex.HooksFile(u, home, proj, none), "/home/u/.codex/hooks.json"},
		{codex.HooksFile(u, home, proj, env), "/cfg/codex/hooks.json"},
		{codex.HooksFile(p, home, proj, env), "/src/app/.codex/hooks.json"},
		{codex.MCPConfig(u, home, proj, env), "/cfg/codex/config.toml"},
		{codex.MCPConfig(p, home, proj, env), "/src/app/.codex/config.toml"},
		{codex.Transcripts(home, none), "/home/u/.codex/sessions"},
		{gemini.SettingsFile(u, home, proj, none), "/home/u/.gemini/settings.json"},
		{gemini.SettingsFile(u, home, proj, env), "/cfg/g/.gemini/settings.json"},
		{gemini.SettingsFile(p, home, proj, env), "/src/app/.gemini/settings.json"},
		{gemini.Transcripts(home, env), "/cfg/g/.gemini/tmp"},
		{cursor.HooksFile(u, home, proj), "/home/u/.cursor/hooks.json"},
		{cursor.HooksFile(p, home, proj), "/src/app/.cursor/hooks.json"},
		{cursor.MCPConfig(u, home, proj), "/home/u/.cursor/mcp.json"},
		{cursor.MCPConfig(p, home, proj), "/src/app/.cursor/mcp.json"},
		{cursor.Transcripts(home), "/home/u/.cursor/projects"},
		{claudecode.ProjectFolder("/src/my.app_2"), "-src-my-app-2"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
	for _, c := range []struct {
		scope      integration.Scope
		getenv     func(string) string
		path, keys string
	}{
		{u, none, "/home/u/.claude.json", ""},
		{u, env, "/cfg/claude/.claude.json", ""},
		{l, none, "/home/u/.claude.json", "projects /src/app"},
		{p, env, "/src/app/.mcp.json", ""},
	} {
		path, under := claudecode.MCPConfig(c.scope, home, proj, c.getenv)
		if keys := strings.Join(under, " "); path != c.path || keys != c.keys {
			t.Errorf("claudecode.MCPConfig(%s) = %s under %q, want %s under %q", c.scope, path, under, c.path, c.keys)
		}
	}
}

// Every agent names a start event among its events, and no event twice.
func TestHooks(t *testing.T) {
	for name, h := range map[string]integration.Hooks{
		claudecode.Name: claudecode.Hooks, codex.Name: codex.Hooks, gemini.Name: gemini.Hooks, cursor.Name: cursor.Hooks,
	} {
		seen := map[string]bool{}
		for _, e := range h.Events {
			if seen[e] {
				t.Errorf("%s: event %s twice", name, e)
			}
			seen[e] = true
		}
		for _, e := range append(append([]string{h.Start}, h.End...), h.Turn...) {
			if !seen[e] {
				t.Errorf("%s: %s is not among its Events %v", name, e, h.Events)
			}
		}
	}
}

// Cursor's transcript is found by the conversation id of the hook's
// input; an id that is a path finds nothing, though the file it names is
// a transcript.
func TestCursorTranscriptIDIsOneName(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(cursor.Transcripts(home), "src-app", "agent-transcripts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "3f1e.jsonl")
	other := filepath.Join(home, "secret.jsonl")
	for _, p := range []string{mine, other} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ id, want string }{
		{"3f1e", mine},
		{"../../../../secret", ""},
		{"/tmp/x", ""},
		{`..\secret`, ""},
		{"..", ""},
		{"", ""},
	} {
		if got := cursor.Transcript(home, "/src/app", c.id); got != c.want {
			t.Errorf("Transcript(%q) = %q, want %q", c.id, got, c.want)
		}
	}
}
