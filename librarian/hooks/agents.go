package hooks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx0/ctx0/internal/jsonobj"
)

// Agent is an agent whose hooks ctx0 installs and handles. The agents
// below share one shape of hook configuration ({"hooks": {Event: [{"hooks":
// [{"type": "command", "command": …}]}]}}) and one shape of hook input
// (session_id, transcript_path, cwd, hook_event_name on stdin); they differ
// in the names of their events and in how a SessionStart hook hands the
// agent extra context.
type Agent struct {
	// Name is the agent's name on the command line: ctx0 hook NAME.
	Name string
	// Title is the agent's name for people.
	Title string
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
	// JSONContext says the context block is printed as the hook output
	// JSON's hookSpecificOutput.additionalContext (Cursor: additional_context);
	// otherwise it is printed as plain text.
	JSONContext bool
	// Flat says an event's hooks are a list of {"command": …} entries, not
	// of groups of hooks (Cursor).
	Flat bool
}

// The agents ctx0 has hooks for.
//
// Claude Code: plain stdout of a SessionStart hook is added as context.
//
// Codex CLI (checked against openai/codex codex-rs/hooks at commit
// 0082977c, 2026): hooks.json in $CODEX_HOME (or a project's .codex/)
// with the same layout as Claude Code's; events SessionStart, PreCompact,
// Stop (after every turn) and no session end; SessionStart stdout is
// context, as JSON with hookSpecificOutput.additionalContext or as plain
// text, but stdout that looks like JSON and is not valid fails the hook.
//
// Gemini CLI (checked against google-gemini/gemini-cli 0.56.0-nightly,
// docs/hooks/reference.md and packages/core/src/hooks/types.ts):
// "hooks" in ~/.gemini/settings.json (or a project's
// .gemini/settings.json) with the same layout; events SessionStart,
// PreCompress, AfterAgent (after every turn), SessionEnd (not waited
// for); stdout must be JSON only, plain text is shown to the person as a
// system message, not given to the model.
var (
	ClaudeCodeAgent = Agent{
		Name: "claude-code", Title: "Claude Code",
		Events: []string{"SessionStart", "PreCompact", "Stop", "SessionEnd"},
		Start:  "SessionStart", End: []string{"PreCompact", "SessionEnd"}, Turn: []string{"Stop"},
	}
	CodexAgent = Agent{
		Name: "codex", Title: "Codex CLI",
		Events: []string{"SessionStart", "PreCompact", "Stop"},
		Start:  "SessionStart", End: []string{"PreCompact"}, Turn: []string{"Stop"},
		JSONContext: true,
	}
	GeminiAgent = Agent{
		Name: "gemini", Title: "Gemini CLI",
		Events: []string{"SessionStart", "PreCompress", "AfterAgent", "SessionEnd"},
		Start:  "SessionStart", End: []string{"PreCompress", "SessionEnd"}, Turn: []string{"AfterAgent"},
		JSONContext: true,
	}
)

// CursorAgent is Cursor's agent, in the editor and the CLI (checked against
// cursor.com/docs/agent/hooks as others quote it, and the payloads
// entireio/cli records for Cursor 2026.02): hooks.json in ~/.cursor (or a
// project's .cursor/), {"version": 1, "hooks": {event: [{"command": …}]}};
// events sessionStart, preCompact, stop (after a turn; not in the CLI's
// -p mode), sessionEnd; input with conversation_id and workspace_roots,
// and transcript_path, which the CLI leaves null; sessionStart takes
// {"additional_context": …}.
var CursorAgent = Agent{
	Name: "cursor", Title: "Cursor",
	Events: []string{"sessionStart", "preCompact", "stop", "sessionEnd"},
	Start:  "sessionStart", End: []string{"preCompact", "sessionEnd"}, Turn: []string{"stop"},
	JSONContext: true, Flat: true,
}

// Agents are the agents ctx0 has hooks for, by name.
var Agents = []Agent{ClaudeCodeAgent, CodexAgent, GeminiAgent, CursorAgent}

// AgentNamed is the agent called name on the command line.
func AgentNamed(name string) (Agent, bool) {
	for _, a := range Agents {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// AgentNames are the names of Agents, for messages.
func AgentNames() []string {
	var names []string
	for _, a := range Agents {
		names = append(names, a.Name)
	}
	return names
}

// role is what an event asks of ctx0: "start", "end", "turn" or "".
func (a Agent) role(event string) string {
	switch {
	case event == a.Start:
		return "start"
	case slices.Contains(a.End, event):
		return "end"
	case slices.Contains(a.Turn, event):
		return "turn"
	}
	return ""
}

// contextOutput is what a SessionStart hook prints to give the agent the
// context block text.
func (a Agent) contextOutput(text string) string {
	if !a.JSONContext || text == "" {
		return text
	}
	if a.Flat {
		b, err := jsonobj.Marshal(struct {
			AdditionalContext string `json:"additional_context"`
		}{text})
		if err != nil {
			return ""
		}
		return string(b) + "\n"
	}
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	b, err := jsonobj.Marshal(struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{specific{a.Start, text}})
	if err != nil {
		return "" // a string always encodes; nothing beats invalid JSON
	}
	return string(b) + "\n"
}

// cursorTranscript is where Cursor keeps the transcript of conversation id
// in the workspace root, for the hook inputs that do not say (the CLI's):
// ~/.cursor/projects/<root, / dropped at the start, every other character
// but letters and digits made ->/agent-transcripts/<id>.jsonl, or
// <id>/<id>.jsonl as the editor lays it out. "" if neither exists.
func cursorTranscript(root, id string) string {
	home, err := os.UserHomeDir()
	if root == "" || id == "" || err != nil {
		return ""
	}
	slug := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.TrimPrefix(filepath.ToSlash(root), "/"))
	dir := filepath.Join(home, ".cursor", "projects", slug, "agent-transcripts")
	for _, p := range []string{filepath.Join(dir, id+".jsonl"), filepath.Join(dir, id, id+".jsonl")} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}
