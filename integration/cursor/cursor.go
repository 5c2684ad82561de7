// Package cursor is what ctx0 knows of Cursor's files, in the editor and
// the CLI: its hooks, its MCP server config and its transcripts.
package cursor

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx0/ctx0/integration"
)

const (
	Name  = "cursor"
	Title = "Cursor"
)

// ShellEnv are the environment variables Cursor's agent sets in the
// shells it runs commands in (CURSOR_AGENT=1): a command that sees one
// runs for the agent, not for a person in Cursor's own terminal.
var ShellEnv = []string{"CURSOR_AGENT"}

// Hooks are Cursor's hook events (checked against cursor.com/docs/agent/hooks
// as others quote it, and the payloads entireio/cli records for Cursor
// 2026.02): hooks.json in ~/.cursor (or a project's .cursor/),
// {"version": 1, "hooks": {event: [{"command": …}]}}; events sessionStart,
// preCompact, stop (after a turn; not in the CLI's -p mode), sessionEnd;
// input with conversation_id and workspace_roots, and transcript_path,
// which the CLI leaves null; sessionStart takes {"additional_context": …}.
var Hooks = integration.Hooks{
	Events: []string{"sessionStart", "preCompact", "stop", "sessionEnd"},
	Start:  "sessionStart", End: []string{"preCompact", "sessionEnd"}, Turn: []string{"stop"},
	JSONContext: true, Flat: true,
}

// Home is the folder of the person's Cursor files: ~/.cursor.
func Home(home string) string { return filepath.Join(home, ".cursor") }

// HooksFile is hooks.json in Home, or with Project in the project's .cursor.
func HooksFile(scope integration.Scope, home, projectRoot string) string {
	if scope == integration.Project {
		return filepath.Join(projectRoot, ".cursor", "hooks.json")
	}
	return filepath.Join(Home(home), "hooks.json")
}

// MCPConfig is mcp.json, whose mcpServers are Cursor's MCP servers: in
// Home, or with Project in the project's .cursor.
func MCPConfig(scope integration.Scope, home, projectDir string) string {
	if scope == integration.Project {
		return filepath.Join(projectDir, ".cursor", "mcp.json")
	}
	return filepath.Join(Home(home), "mcp.json")
}

// Transcripts is the folder of Cursor's transcripts: projects in Home.
func Transcripts(home string) string { return filepath.Join(Home(home), "projects") }

// Transcript is where Cursor keeps the transcript of conversation id in
// the workspace root, for the hook inputs that do not say (the CLI's):
// Transcripts/<root, / dropped at the start, every other character but
// letters and digits made ->/agent-transcripts/<id>.jsonl, or
// <id>/<id>.jsonl as the editor lays it out. "" if neither exists.
func Transcript(home, root, id string) string {
	// The id comes from the hook's input: one name, never a path.
	if root == "" || id == "" || !filepath.IsLocal(id) || strings.ContainsAny(id, `/\`) {
		return ""
	}
	slug := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.TrimPrefix(filepath.ToSlash(root), "/"))
	dir := filepath.Join(Transcripts(home), slug, "agent-transcripts")
	for _, p := range []string{filepath.Join(dir, id+".jsonl"), filepath.Join(dir, id, id+".jsonl")} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}
