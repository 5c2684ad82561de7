package transcript

import (
	"encoding/json"
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
)

// claudeLine is the part of a Claude Code transcript line the reader needs.
// The rest (usage, tool results' sidecars, snapshots) is skipped unread.
type claudeLine struct {
	Type             string `json:"type"`
	SessionID        string `json:"sessionId"`
	Timestamp        string `json:"timestamp"`
	CWD              string `json:"cwd"`
	IsMeta           bool   `json:"isMeta"`
	IsSidechain      bool   `json:"isSidechain"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	Message          struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// claudeBlock is one block of a message's content array.
type claudeBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	// A tool_result names its call and says whether it failed.
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// parseClaudeLine reads one line of a Claude Code transcript, keeping what
// the conversation said and did and dropping the machinery: user text,
// assistant text and tool uses are kept; meta lines (command caveats,
// expanded prompts, hook reminders), sidechains (sub-agents), tool results,
// thinking and every other line type are counted and left out. Of a tool
// result only its outcome is kept, when it is an error.
func parseClaudeLine(line []byte, pos int64, st *State, c *Chunk) {
	var l claudeLine
	if err := json.Unmarshal(line, &l); err != nil {
		c.Skipped["malformed"]++
		return
	}
	switch l.Type {
	case "user", "assistant":
	case "":
		c.Skipped["malformed"]++
		return
	default:
		// system, summary, file-history-snapshot, progress,
		// queue-operation and whatever later versions add.
		c.Skipped[l.Type]++
		return
	}
	if l.SessionID != "" {
		st.Session = l.SessionID
	}
	if l.CWD != "" {
		st.CWD = l.CWD
	}
	if t, ok := parseTime(l.Timestamp); ok {
		st.Time = t
	}
	switch {
	case l.IsSidechain:
		c.Skipped["sidechain"]++
		return
	case l.IsMeta:
		c.Skipped["meta"]++
		return
	case l.IsCompactSummary:
		c.Skipped["compact_summary"]++
		return
	}
	var text string
	var tools []Tool
	skippedBlocks := false
	switch {
	case len(l.Message.Content) == 0:
	case l.Message.Content[0] == '"':
		if err := json.Unmarshal(l.Message.Content, &text); err != nil {
			c.Skipped["malformed"]++
			return
		}
	default:
		var blocks []claudeBlock
		if err := json.Unmarshal(l.Message.Content, &blocks); err != nil {
			c.Skipped["malformed"]++
			return
		}
		var texts []string
		for _, b := range blocks {
			switch b.Type {
			case "text":
				texts = append(texts, b.Text)
			case "tool_use":
				t := claudeTool(b.Name, b.Input)
				t.ID = b.ID
				tools = append(tools, t)
			case "image":
				texts = append(texts, "[image]")
			default:
				// tool_result, thinking, redacted_thinking, document, …
				if b.Type == "tool_result" && b.IsError && b.ToolUseID != "" {
					c.outcome(b.ToolUseID, claudeOutcome(b.Content))
				}
				c.Skipped[b.Type]++
				skippedBlocks = true
			}
		}
		text = strings.Join(texts, "\n\n")
	}
	role := Assistant
	if l.Type == "user" {
		role = User
		var reason string
		if text, reason = userText(text); reason != "" {
			c.Skipped[reason]++
			return
		}
	}
	text = strings.TrimSpace(text)
	if text == "" && len(tools) == 0 {
		// A line of tool results or thinking only is counted by block.
		if !skippedBlocks {
			c.Skipped["empty"]++
		}
		return
	}
	c.emit(st, pos, role, text, tools)
}

// claudeRejected opens the result Claude Code records, as an error, for a
// call the user declined or interrupted.
var claudeRejected = []string{"The user doesn't want to", "[Request interrupted by user"}

// claudeOutcome is the outcome of a tool_result marked is_error: Rejected
// when the user stopped the call, TimedOut when Claude Code did, else
// Failed. Its content is a string or
// an array of text blocks.
func claudeOutcome(content json.RawMessage) Outcome {
	var text string
	if json.Unmarshal(content, &text) != nil {
		var blocks []claudeBlock
		_ = json.Unmarshal(content, &blocks) // unreadable content is still an error
		if len(blocks) > 0 {
			text = blocks[0].Text
		}
	}
	text = strings.TrimSpace(text)
	for _, p := range claudeRejected {
		if strings.HasPrefix(text, p) {
			return Rejected
		}
	}
	if strings.HasPrefix(text, "Command timed out after") {
		return TimedOut
	}
	return Failed
}

var (
	systemReminder = lazy.Regexp(`(?s)<system-reminder>.*?</system-reminder>`)
	commandName    = lazy.Regexp(`<command-name>\s*(.*?)\s*</command-name>`)
	commandArgs    = lazy.Regexp(`(?s)<command-args>(.*?)</command-args>`)
	bashInput      = lazy.Regexp(`(?s)<bash-input>(.*?)</bash-input>`)
)

// userText reduces what Claude Code records as the user's message to what
// the user said: a slash command becomes "/name args", a shell command run
// with ! becomes "! command", and the output of either is not the user's
// words (reason says why it was left out).
func userText(s string) (text, reason string) {
	if strings.Contains(s, "<system-reminder>") {
		s = systemReminder().ReplaceAllString(s, "")
	}
	if !strings.Contains(s, "<") {
		return s, ""
	}
	t := strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(t, "<local-command-stdout>"), strings.HasPrefix(t, "<local-command-stderr>"),
		strings.HasPrefix(t, "<bash-stdout>"), strings.HasPrefix(t, "<bash-stderr>"):
		return "", "command_output"
	case strings.HasPrefix(t, "<local-command-caveat>"):
		return "", "meta"
	}
	if m := commandName().FindStringSubmatch(s); m != nil {
		cmd := m[1]
		if a := commandArgs().FindStringSubmatch(s); a != nil && strings.TrimSpace(a[1]) != "" {
			cmd += " " + strings.TrimSpace(a[1])
		}
		return cmd, ""
	}
	if m := bashInput().FindStringSubmatch(s); m != nil {
		return "! " + strings.TrimSpace(m[1]), ""
	}
	return s, ""
}

// claudeTool is the gist of a tool_use block.
func claudeTool(name string, input json.RawMessage) Tool {
	var in map[string]any
	_ = json.Unmarshal(input, &in) // a tool without readable input still counts
	t := Tool{Name: name, Kind: claudeToolKinds[name]}
	switch name {
	case "Grep":
		t.Target = str(in, "pattern")
		if p := str(in, "path"); p != "" {
			t.Target += " in " + p
		}
	case "Task", "Agent":
		t.Target = str(in, "description")
		if a := str(in, "subagent_type"); a != "" {
			t.Target = a + ": " + t.Target
		}
	case "TodoWrite":
		t.Target = activeTodo(in)
	default:
		t.Target = firstStr(in, "file_path", "notebook_path", "command", "pattern", "url", "query", "path", "description", "prompt")
	}
	if t.Kind == "" {
		t.Kind = Other
	}
	t.Target = targetLine(t.Target)
	return t
}

// claudeToolKinds are Claude Code's built-in tools by what they do. MCP
// tools (mcp__server__tool) and later tools are Other.
var claudeToolKinds = map[string]ToolKind{
	"Read":         Read,
	"LS":           Read,
	"NotebookRead": Read,
	"Write":        Write,
	"Edit":         Write,
	"MultiEdit":    Write,
	"NotebookEdit": Write,
	"Bash":         Command,
	"BashOutput":   Command,
	"KillShell":    Command,
	"Grep":         Search,
	"Glob":         Search,
	"WebFetch":     Web,
	"WebSearch":    Web,
	"Task":         Task,
	"Agent":        Task,
}

// activeTodo is the todo item in progress, else the first one.
func activeTodo(in map[string]any) string {
	todos, _ := in["todos"].([]any)
	first := ""
	for _, x := range todos {
		todo, _ := x.(map[string]any)
		if first == "" {
			first = str(todo, "content")
		}
		if str(todo, "status") == "in_progress" {
			return str(todo, "content")
		}
	}
	return first
}
