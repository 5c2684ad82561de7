package hooks

import (
	"os"
	"slices"

	"github.com/ctx0/ctx0/integration"
	"github.com/ctx0/ctx0/integration/claudecode"
	"github.com/ctx0/ctx0/integration/codex"
	"github.com/ctx0/ctx0/integration/cursor"
	"github.com/ctx0/ctx0/integration/gemini"
	"github.com/ctx0/ctx0/internal/jsonobj"
)

// Agent is an agent whose hooks ctx0 installs and handles; its events and
// files are in its package under integration.
type Agent struct {
	// Name is the agent's name on the command line: ctx0 hook NAME.
	Name string
	// Title is the agent's name for people.
	Title string
	integration.Hooks
}

// The agents ctx0 has hooks for.
var (
	ClaudeCodeAgent = Agent{Name: claudecode.Name, Title: claudecode.Title, Hooks: claudecode.Hooks}
	CodexAgent      = Agent{Name: codex.Name, Title: codex.Title, Hooks: codex.Hooks}
	GeminiAgent     = Agent{Name: gemini.Name, Title: gemini.Title, Hooks: gemini.Hooks}
	CursorAgent     = Agent{Name: cursor.Name, Title: cursor.Title, Hooks: cursor.Hooks}
)

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

// cursorTranscript is where Cursor keeps the transcript of conversation
// id in the workspace root (see cursor.Transcript).
func cursorTranscript(root, id string) string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return cursor.Transcript(home, root, id)
}
