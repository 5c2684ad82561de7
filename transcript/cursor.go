package transcript

import (
	"encoding/json"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
)

// Cursor keeps an agent conversation as JSONL in
// ~/.cursor/projects/<project>/agent-transcripts/: <id>.jsonl (the CLI) or
// <id>/<id>.jsonl (the editor). A line is {"role": "user"|"assistant",
// "message": {"content": [blocks]}} with text and tool_use blocks shaped
// like Claude Code's (Write, StrReplace, Read, Grep, Glob, Shell, whose
// file argument is "path"), or a marker with a type and no role, such as
// {"type": "turn_ended", "status": "success"} at the end of each turn.
// Where Cursor withholds text (the model's reasoning) it writes
// "[REDACTED]": as a text block of its own or after the visible text. It
// records no time, no session id, no tool call ids and no tool results
// (checked against the layout entireio/cli documents for Cursor 2026.02 in
// cmd/entire/cli/agent/cursor/AGENT.md, and against a real editor
// transcript of August 2026 in testdata/cursor): so the reader keeps words
// and tool calls but no outcomes, and takes the session from the file name
// and the time from State, which ingestion sets to the time the file was
// written (see CursorFile).

// CursorFile reports whether name is a Cursor agent transcript.
func CursorFile(name string) bool {
	name = filepath.ToSlash(name)
	if !strings.HasSuffix(name, ".jsonl") {
		return false
	}
	dir := path.Dir(name)
	return path.Base(dir) == "agent-transcripts" || path.Base(path.Dir(dir)) == "agent-transcripts"
}

type cursorLine struct {
	Role string `json:"role"`
	// Type names a marker line, which has no role.
	Type    string `json:"type"`
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

var cursorUserQuery = lazy.Regexp(`(?s)<user_query>\s*(.*?)\s*</user_query>`)

// cursorRedacted is what Cursor writes in place of text it withholds.
const cursorRedacted = "[REDACTED]"

// cursorWithheld counts Cursor's own [REDACTED] placeholders among what a
// reader leaves out, named so that the count is not read as secrets ctx0
// removed (those are replaced in place, and never counted as left out).
const cursorWithheld = "withheld_by_cursor"

// cursorOwnPrompts begin the prompts Cursor itself writes as the user's:
// when a background task (a shell command the agent left running)
// finishes, Cursor adds a system notification and asks the agent, as the
// user, to report on it. They are not the person's words.
var cursorOwnPrompts = []string{
	"Briefly inform the user about the task result",
}

// parseCursorLine reads one line of a Cursor agent transcript.
func parseCursorLine(line []byte, pos int64, st *State, c *Chunk) {
	var l cursorLine
	if err := json.Unmarshal(line, &l); err != nil {
		c.Skipped["malformed"]++
		return
	}
	var role Role
	switch {
	case l.Role == "user":
		role = User
	case l.Role == "assistant":
		role = Assistant
	case l.Role == "" && l.Type != "":
		// A marker (the end of a turn), not something said.
		c.Skipped[l.Type]++
		return
	default:
		c.Skipped["malformed"]++
		return
	}
	var blocks []claudeBlock
	if err := json.Unmarshal(l.Message.Content, &blocks); err != nil {
		var s string
		if json.Unmarshal(l.Message.Content, &s) != nil {
			c.Skipped["malformed"]++
			return
		}
		blocks = []claudeBlock{{Type: "text", Text: s}}
	}
	var texts []string
	var tools []Tool
	for _, b := range blocks {
		switch b.Type {
		case "text":
			t := b.Text
			if role == User {
				// The editor wraps the prompt with context it adds
				// (a timestamp, open files): the query is the user's.
				if m := cursorUserQuery().FindStringSubmatch(t); m != nil {
					t = m[1]
				} else if strings.HasPrefix(strings.TrimSpace(t), "<") {
					c.Skipped["injected"]++
					continue
				}
				if slices.ContainsFunc(cursorOwnPrompts, func(p string) bool { return strings.HasPrefix(t, p) }) {
					c.Skipped["injected"]++
					continue
				}
			}
			t = strings.TrimSpace(t)
			if role == Assistant {
				if t == cursorRedacted {
					c.Skipped[cursorWithheld]++
					continue
				}
				if visible, ok := strings.CutSuffix(t, "\n\n"+cursorRedacted); ok {
					c.Skipped[cursorWithheld]++
					t = strings.TrimSpace(visible)
				}
			}
			if t != "" {
				texts = append(texts, t)
			}
		case "tool_use":
			tools = append(tools, cursorTool(b.Name, b.Input))
		default:
			c.Skipped[b.Type]++
		}
	}
	text := strings.Join(texts, "\n\n")
	if text == "" && len(tools) == 0 {
		return
	}
	c.emit(st, pos, role, text, tools)
}

// cursorTool is the gist of a Cursor tool call.
func cursorTool(name string, input json.RawMessage) Tool {
	var in map[string]any
	_ = json.Unmarshal(input, &in) // a tool without readable input still counts
	kind := map[string]ToolKind{
		"Read": Read, "Write": Write, "StrReplace": Write, "Delete": Write,
		"Shell": Command, "Grep": Search, "Glob": Search, "WebSearch": Web, "WebFetch": Web, "Task": Task,
	}[name]
	if kind == "" {
		kind = Other
	}
	target := firstStr(in, "path", "command", "pattern", "glob_pattern", "query", "url", "description")
	switch name {
	case "Grep", "Glob":
		// What was searched for, and where, as for Claude Code's Grep.
		what, where := firstStr(in, "pattern", "glob_pattern"), firstStr(in, "path", "target_directory")
		switch {
		case what == "":
			target = where
		case where != "":
			target = what + " in " + where
		default:
			target = what
		}
	}
	return Tool{Name: name, Kind: kind, Target: targetLine(target)}
}
