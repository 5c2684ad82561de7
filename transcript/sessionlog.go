package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"time"
)

// Log is a session handed over as ctx0's generic session log: the JSON
// document an agent other than Claude Code or Codex writes to `ctx0 dump`:
//
//	{"sessionId": "…", "agent": "bot0", "startedAt": 1706400000000,
//	 "context": {"workingDir": "/src/app", "project": "app"},
//	 "messages": [{"role": "user", "content": "…", "timestamp": "2026-01-28T10:00:00Z"}],
//	 "toolCalls": [{"tool": "read_file", "input": {"path": "main.go"}, "timestamp": …}],
//	 "filesRead": [{"path": "…", "timestamp": …}], "filesWritten": […], "filesModified": […]}
//
// Times are RFC 3339 strings or milliseconds since 1970. A message's
// content is a string or an array of {"type": "text", "text": …} blocks.
type Log struct {
	Session string
	Agent   string
	CWD     string
	// Project is the project the agent named, if it did.
	Project  string
	Messages []Message
	Skipped  Skipped
}

// ErrNoSession is returned for a session log without a sessionId.
var ErrNoSession = errors.New("session log: no sessionId")

type sessionLogDoc struct {
	SessionID string          `json:"sessionId"`
	Agent     string          `json:"agent"`
	StartedAt json.RawMessage `json:"startedAt"`
	Context   struct {
		WorkingDir string `json:"workingDir"`
		Project    string `json:"project"`
	} `json:"context"`
	Messages []struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		Timestamp json.RawMessage `json:"timestamp"`
	} `json:"messages"`
	ToolCalls []struct {
		Tool      string          `json:"tool"`
		Input     json.RawMessage `json:"input"`
		Timestamp json.RawMessage `json:"timestamp"`
	} `json:"toolCalls"`
	FilesRead     []logFile `json:"filesRead"`
	FilesWritten  []logFile `json:"filesWritten"`
	FilesModified []logFile `json:"filesModified"`
}

type logFile struct {
	Path      string          `json:"path"`
	Timestamp json.RawMessage `json:"timestamp"`
}

// ParseSessionLog reads a session log. Messages without a time of their own
// take the one before them, the session's start, or else fallback.
func ParseSessionLog(data []byte, fallback time.Time) (Log, error) {
	var d sessionLogDoc
	if err := json.Unmarshal(data, &d); err != nil {
		return Log{}, fmt.Errorf("session log: %w", err)
	}
	if d.SessionID == "" {
		return Log{}, ErrNoSession
	}
	lg := Log{Session: d.SessionID, Agent: d.Agent, CWD: d.Context.WorkingDir, Project: d.Context.Project, Skipped: Skipped{}}
	st := &State{Session: d.SessionID, CWD: d.Context.WorkingDir, Time: fallback.UTC()}
	if t, ok := logTime(d.StartedAt); ok {
		st.Time = t
	}
	c := &Chunk{Skipped: lg.Skipped}
	for _, m := range d.Messages {
		if t, ok := logTime(m.Timestamp); ok {
			st.Time = t
		}
		var role Role
		switch m.Role {
		case "user", "human":
			role = User
		case "assistant", "ai", "agent":
			role = Assistant
		default:
			c.Skipped[m.Role+"_message"]++
			continue
		}
		text, err := logContent(m.Content)
		if err != nil {
			c.Skipped["malformed"]++
			continue
		}
		if text = strings.TrimSpace(text); text == "" {
			c.Skipped["empty"]++
			continue
		}
		c.emit(st, 0, role, text, nil)
	}
	// Tools are assistant messages of their own, at their time.
	type toolAt struct {
		tool Tool
		at   time.Time
	}
	var tools []toolAt
	seen := map[toolAt]bool{}
	add := func(t Tool, raw json.RawMessage) {
		at, ok := logTime(raw)
		if !ok {
			at = st.Time
		}
		ta := toolAt{t, at}
		if !seen[ta] {
			seen[ta] = true
			tools = append(tools, ta)
		}
	}
	for _, tc := range d.ToolCalls {
		add(logTool(tc.Tool, tc.Input), tc.Timestamp)
	}
	for _, f := range d.FilesRead {
		add(Tool{Name: "read_file", Kind: Read, Target: targetLine(f.Path)}, f.Timestamp)
	}
	for _, list := range [][]logFile{d.FilesWritten, d.FilesModified} {
		for _, f := range list {
			add(Tool{Name: "write_file", Kind: Write, Target: targetLine(f.Path)}, f.Timestamp)
		}
	}
	for _, ta := range tools {
		st.Time = ta.at
		c.emit(st, 0, Assistant, "", []Tool{ta.tool})
	}
	for i := range c.Messages {
		c.Messages[i].Pos = contentPos(c.Messages[i])
	}
	lg.Messages = c.Messages
	return lg, nil
}

// contentPos identifies a message of a session log by its content, so the
// same message dumped twice (an agent dumps at compaction and again at the
// end) is stored once.
func contentPos(m Message) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d\x00%s", m.Role, m.Time.UnixMilli(), m.Text)
	for _, t := range m.Tools {
		fmt.Fprintf(h, "\x00%s\x00%s", t.Name, t.Target)
	}
	return int64(h.Sum64() & math.MaxInt64)
}

// logTime reads a time given as an RFC 3339 string or as milliseconds
// since 1970.
func logTime(raw json.RawMessage) (time.Time, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return time.Time{}, false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return parseTime(s)
	}
	var ms float64
	if json.Unmarshal(raw, &ms) == nil && ms > 0 && ms < 1e15 {
		return time.UnixMilli(int64(ms)).UTC(), true
	}
	return time.Time{}, false
}

// logContent is a message's text, from a string or an array of blocks.
func logContent(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", err
	}
	var texts []string
	for _, b := range blocks {
		if b.Text != "" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n\n"), nil
}

// logTool is the gist of a tracked tool call. Tool names vary by agent, so
// the kind is guessed from words in the name.
func logTool(name string, input json.RawMessage) Tool {
	t := Tool{Name: name, Kind: Other}
	lower := strings.ToLower(name)
	for _, k := range []struct {
		word string
		kind ToolKind
	}{{"read", Read}, {"write", Write}, {"edit", Write}, {"patch", Write}, {"bash", Command}, {"shell", Command}, {"exec", Command}, {"grep", Search}, {"glob", Search}, {"search", Search}, {"fetch", Web}, {"web", Web}} {
		if strings.Contains(lower, k.word) {
			t.Kind = k.kind
			break
		}
	}
	var in map[string]any
	if json.Unmarshal(input, &in) == nil {
		t.Target = firstStr(in, "path", "file_path", "command", "cmd", "query", "url", "pattern", "description")
	} else {
		var s string
		_ = json.Unmarshal(input, &s) // any other input has no gist
		t.Target = s
	}
	t.Target = targetLine(t.Target)
	return t
}
