package transcript

import (
	"encoding/json"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
)

// Cursor keeps an agent conversation as JSONL in
// ~/.cursor/projects/<project>/agent-transcripts/: <id>.jsonl (the CLI) or
// <id>/<id>.jsonl (the editor). A line is {"role": "user"|"assistant",
// "message": {"content": [blocks]}} with text and tool_use blocks shaped
// like Claude Code's (Write, StrReplace, Read, Grep, Glob, Shell, whose
// file argument is "path"). It records no time, no session id, no tool
// call ids and no tool results (checked against the layout entireio/cli
// documents for Cursor 2026.02 in cmd/entire/cli/agent/cursor/AGENT.md):
// so the reader keeps words and tool calls but no outcomes, and takes the
// session from the file name and the time from State, which ingestion
// sets to the time the file was written (see CursorFile).

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
	Role    string `json:"role"`
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

var cursorUserQuery = lazy.Regexp(`(?s)<user_query>\s*(.*?)\s*</user_query>`)

// parseCursorLine reads one line of a Cursor agent transcript.
func parseCursorLine(line []byte, pos int64, st *State, c *Chunk) {
	var l cursorLine
	if err := json.Unmarshal(line, &l); err != nil {
		c.Skipped["malformed"]++
		return
	}
	var role Role
	switch l.Role {
	case "user":
		role = User
	case "assistant":
		role = Assistant
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
			}
			if t = strings.TrimSpace(t); t != "" {
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
	return Tool{Name: name, Kind: kind, Target: targetLine(firstStr(in, "path", "command", "pattern", "glob_pattern", "query", "url", "description"))}
}
