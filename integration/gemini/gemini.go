// Package gemini is what ctx0 knows of Gemini CLI's files: its settings,
// which hold its hooks and its MCP servers, and its transcripts.
package gemini

import (
	"path/filepath"

	"github.com/ctx0/ctx0/integration"
)

const (
	Name  = "gemini"
	Title = "Gemini CLI"
)

// ShellEnv are the environment variables Gemini CLI sets in the shells it
// runs commands in (GEMINI_CLI=1): a command that sees one runs for the
// agent, not for a person.
var ShellEnv = []string{"GEMINI_CLI"}

// Hooks are Gemini CLI's hook events (checked against
// google-gemini/gemini-cli 0.56.0-nightly, docs/hooks/reference.md and
// packages/core/src/hooks/types.ts, and against the payloads Gemini CLI
// 0.37.0 and 0.46.0 wrote, in integration/testdata/payloads): "hooks" in
// ~/.gemini/settings.json (or a trusted project's .gemini/settings.json)
// with the same layout as Claude Code's; events SessionStart, AfterAgent
// (after every turn) and SessionEnd (fired more than once on one quit);
// stdout must be JSON only, plain text is shown to the person as a system
// message, not given to the model.
//
// PreCompress is retired: Gemini CLI fires it before every model request,
// before it checks whether the history needs compressing
// (ChatCompressionService.compress), and waits for it. Taken as a
// compaction, it ended the conversation at every turn; and a compaction
// loses nothing ctx0 reads, since the session file keeps every message.
var Hooks = integration.Hooks{
	Events: []string{"SessionStart", "AfterAgent", "SessionEnd"},
	Start:  "SessionStart", End: []string{"SessionEnd"}, Turn: []string{"AfterAgent"},
	Retired:     []string{"PreCompress"},
	JSONContext: true,
}

// Home is the folder of the person's Gemini CLI files: .gemini in
// $GEMINI_CLI_HOME, which Gemini CLI takes as the home its .gemini is in,
// else in home.
func Home(home string, getenv func(string) string) string {
	if h := getenv("GEMINI_CLI_HOME"); h != "" {
		home = h
	}
	return filepath.Join(home, ".gemini")
}

// SettingsFile is settings.json, which holds both the hooks and the MCP
// servers: in Home, or with Project in the project's .gemini.
func SettingsFile(scope integration.Scope, home, projectRoot string, getenv func(string) string) string {
	if scope == integration.Project {
		return filepath.Join(projectRoot, ".gemini", "settings.json")
	}
	return filepath.Join(Home(home, getenv), "settings.json")
}

// Transcripts is the folder of Gemini CLI's session transcripts: tmp in
// Home.
func Transcripts(home string, getenv func(string) string) string {
	return filepath.Join(Home(home, getenv), "tmp")
}
