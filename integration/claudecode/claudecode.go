// Package claudecode is what ctx0 knows of Claude Code's files: its
// settings and hooks, its MCP server configs and its transcripts.
package claudecode

import (
	"path/filepath"
	"strings"

	"github.com/ctx0/ctx0/integration"
)

const (
	Name  = "claude-code" // on the command line: ctx0 hook claude-code
	Title = "Claude Code"
)

// ShellEnv are the environment variables Claude Code sets in the shells
// it runs commands in (CLAUDECODE=1): a command that sees one runs for
// the agent, not for a person at a terminal.
var ShellEnv = []string{"CLAUDECODE"}

// Hooks are Claude Code's hook events; plain stdout of a SessionStart hook
// is added as context.
var Hooks = integration.Hooks{
	Events: []string{"SessionStart", "PreCompact", "Stop", "SessionEnd"},
	Start:  "SessionStart", End: []string{"PreCompact", "SessionEnd"}, Turn: []string{"Stop"},
}

// Home is the folder of the person's Claude Code files: $CLAUDE_CONFIG_DIR,
// else ~/.claude.
func Home(home string, getenv func(string) string) string {
	return integration.Dir(home, "CLAUDE_CONFIG_DIR", ".claude", getenv)
}

// HooksFile is the settings file holding the hooks of scope: the person's
// settings.json in Home; the project's .claude/settings.json at
// projectRoot; or, Local, .claude/settings.local.json there.
func HooksFile(scope integration.Scope, home, projectRoot string, getenv func(string) string) string {
	switch scope {
	case integration.Project:
		return filepath.Join(projectRoot, ".claude", "settings.json")
	case integration.Local:
		return filepath.Join(projectRoot, ".claude", "settings.local.json")
	}
	return filepath.Join(Home(home, getenv), "settings.json")
}

// MCPConfig is where Claude Code keeps the MCP servers of a scope, for the
// project at projectDir: the mcpServers member of the object under the
// keys under in the file path. User: ~/.claude.json
// ($CLAUDE_CONFIG_DIR/.claude.json when that is set); Local: the same
// file, under projects.<projectDir>; Project: .mcp.json at projectDir.
func MCPConfig(scope integration.Scope, home, projectDir string, getenv func(string) string) (path string, under []string) {
	if scope == integration.Project {
		return filepath.Join(projectDir, ".mcp.json"), nil
	}
	path = filepath.Join(home, ".claude.json")
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		path = filepath.Join(d, ".claude.json")
	}
	if scope == integration.Local {
		under = []string{"projects", projectDir}
	}
	return path, under
}

// Transcripts is the folder of Claude Code's session transcripts:
// projects in Home.
func Transcripts(home string, getenv func(string) string) string {
	return filepath.Join(Home(home, getenv), "projects")
}

// ProjectFolder is the name Claude Code gives, in Transcripts, the folder
// of the sessions started in the working folder dir: every character but
// letters, digits and - made -.
func ProjectFolder(dir string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, dir)
}
