// Package integration holds what ctx0 knows of each agent it works with,
// one package per agent (claudecode, codex, gemini, cursor): where the
// agent keeps its settings, hooks, MCP servers and transcripts, and which
// hook events it has. These are facts about files on the person's machine,
// with no behaviour: librarian/hooks edits and handles the hooks, mcp
// registers the server, sessions reads the transcripts, and all of
// them take the facts from here. It imports nothing of ctx0.
package integration

import "path/filepath"

// Scope is whose file an install edits.
type Scope string

const (
	User    Scope = "user"    // the person's own file: every project
	Project Scope = "project" // a file in the project, shared through its repository
	Local   Scope = "local"   // Claude Code's: the person's, for one project alone
)

// Hooks is how an agent runs hooks. The agents share one shape of hook
// configuration ({"hooks": {Event: [{"hooks": [{"type": "command",
// "command": …}]}]}}) and one shape of hook input (session_id,
// transcript_path, cwd, hook_event_name on stdin); they differ in the
// names of their events and in how a session start hook hands the agent
// extra context.
type Hooks struct {
	// Events are the events ctx0 installs its hook for, in the order
	// hooks install reports them.
	Events []string
	// Start is the event at which a session starts and takes the context
	// block.
	Start string
	// End are the events after which the session's conversations are
	// finished and handed to the librarian: a compaction, the session's
	// end.
	End []string
	// Turn are the events after each turn: what the turn added is read,
	// and conversations silent for the gap are handed over.
	Turn []string
	// Retired are events an older ctx0 installed its hook for and no
	// longer does: install and uninstall take ctx0's hook off them, and
	// the hook does nothing at them.
	Retired []string
	// JSONContext says the context block is printed as the hook output
	// JSON's hookSpecificOutput.additionalContext (Cursor: additional_context);
	// otherwise it is printed as plain text.
	JSONContext bool
	// Flat says an event's hooks are a list of {"command": …} entries, not
	// of groups of hooks (Cursor).
	Flat bool
}

// Dir is the folder the person's files of an agent are in: the value of
// the environment variable env when it is set (env may be ""), else the
// folder name in home.
func Dir(home, env, name string, getenv func(string) string) string {
	if env != "" {
		if d := getenv(env); d != "" {
			return d
		}
	}
	return filepath.Join(home, name)
}
