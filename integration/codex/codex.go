// Package codex is what ctx0 knows of Codex CLI's files: its hooks, its
// MCP server config and its transcripts.
package codex

import (
	"path/filepath"

	"github.com/ctx0/ctx0/integration"
)

const (
	Name  = "codex"
	Title = "Codex CLI"
)

// ShellEnv are the environment variables Codex CLI sets in the shells it
// runs commands in (the thread's id; CODEX_SANDBOX when sandboxed): a
// command that sees one runs for the agent, not for a person.
var ShellEnv = []string{"CODEX_THREAD_ID", "CODEX_SANDBOX"}

// Hooks are Codex CLI's hook events (checked against openai/codex
// codex-rs/hooks, and against the payloads Codex CLI 0.145.0, 0.147.0 and
// 0.152.1 wrote, in integration/testdata/payloads): hooks.json in
// $CODEX_HOME (or a trusted project's .codex/) with the same layout as
// Claude Code's; events SessionStart, PreCompact, Stop (after every turn)
// and, since 0.145.0, SessionEnd (at a graceful exit, waited for 1 s unless
// the hook asks for up to 3 s; not after a crash, so Stop still reads every
// turn). An older Codex skips event names it does not know, so installing
// SessionEnd breaks nothing there. SessionStart stdout is context, as JSON
// with hookSpecificOutput.additionalContext or as plain text, but stdout
// that looks like JSON and is not valid fails the hook. A hook the person
// did not approve in /hooks does not run.
var Hooks = integration.Hooks{
	Events: []string{"SessionStart", "PreCompact", "Stop", "SessionEnd"},
	Start:  "SessionStart", End: []string{"PreCompact", "SessionEnd"}, Turn: []string{"Stop"},
	JSONContext: true,
}

// Home is the folder of the person's Codex files: $CODEX_HOME, else
// ~/.codex.
func Home(home string, getenv func(string) string) string {
	return integration.Dir(home, "CODEX_HOME", ".codex", getenv)
}

// HooksFile is hooks.json in Home, or with Project in the project's .codex.
func HooksFile(scope integration.Scope, home, projectRoot string, getenv func(string) string) string {
	if scope == integration.Project {
		return filepath.Join(projectRoot, ".codex", "hooks.json")
	}
	return filepath.Join(Home(home, getenv), "hooks.json")
}

// MCPConfig is the config.toml whose [mcp_servers.NAME] tables are Codex's
// MCP servers: in Home, or with Project in the project's .codex.
func MCPConfig(scope integration.Scope, home, projectDir string, getenv func(string) string) string {
	if scope == integration.Project {
		return filepath.Join(projectDir, ".codex", "config.toml")
	}
	return filepath.Join(Home(home, getenv), "config.toml")
}

// Transcripts is the folder of Codex's session transcripts: sessions in
// Home.
func Transcripts(home string, getenv func(string) string) string {
	return filepath.Join(Home(home, getenv), "sessions")
}
