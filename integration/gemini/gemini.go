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

// Hooks are Gemini CLI's hook events (checked against
// google-gemini/gemini-cli 0.56.0-nightly, docs/hooks/reference.md and
// packages/core/src/hooks/types.ts): "hooks" in ~/.gemini/settings.json
// (or a project's .gemini/settings.json) with the same layout as Claude
// Code's; events SessionStart, PreCompress, AfterAgent (after every turn),
// SessionEnd (not waited for); stdout must be JSON only, plain text is
// shown to the person as a system message, not given to the model.
var Hooks = integration.Hooks{
	Events: []string{"SessionStart", "PreCompress", "AfterAgent", "SessionEnd"},
	Start:  "SessionStart", End: []string{"PreCompress", "SessionEnd"}, Turn: []string{"AfterAgent"},
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
