package transcript

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"strings"
)

// Gemini CLI keeps a session in ~/.gemini/tmp/<project>/chats/ (checked
// against google-gemini/gemini-cli 0.56.0-nightly,
// packages/core/src/services/chatRecordingService.ts and
// chatRecordingTypes.ts):
//
//   - since about mid 2026, session-<time>-<id>.jsonl, appended to: a first
//     line of metadata {sessionId, projectHash, startTime, …}, then message
//     records {id, timestamp, type, content, …}, metadata updates
//     {"$set": {…}} (one may hold every message, a checkpoint) and
//     {"$rewindTo": id}. A message is written again, whole, each time it
//     changes (its tokens, its tool calls as they finish), under the same id;
//   - before, session-<time>-<id>.json, one JSON document {sessionId,
//     projectHash, startTime, lastUpdated, messages: […]} written over on
//     every change.
//
// A message's parts are therefore keyed by its id, not by where its line is
// (see geminiPos): a message written again is the same message, stored
// once, and the legacy document read again after a rewrite gives the same
// positions.

// geminiRecord is a line of a session file: metadata, a message, a
// metadata update or a rewind.
type geminiRecord struct {
	SessionID string            `json:"sessionId"`
	Messages  []json.RawMessage `json:"messages"`
	Set       *geminiRecord     `json:"$set"`
	RewindTo  *string           `json:"$rewindTo"`
	geminiMessage
}

type geminiMessage struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	// DisplayContent is what the person typed, when Content is what the
	// CLI sent for it (an @file reference expanded).
	DisplayContent json.RawMessage  `json:"displayContent"`
	ToolCalls      []geminiToolCall `json:"toolCalls"`
	Thoughts       json.RawMessage  `json:"thoughts"`
}

type geminiToolCall struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Args      map[string]any `json:"args"`
	Status    string         `json:"status"`
	Timestamp string         `json:"timestamp"`
}

// parseGeminiLine reads one line of a Gemini CLI session file: the user's
// words, the model's text and its tool calls are kept; thoughts, tool
// output and info, warning and error notices are counted and left out; of
// a tool's result only its outcome is kept, when the call failed or was
// cancelled.
func parseGeminiLine(line []byte, st *State, c *Chunk) {
	var r geminiRecord
	if err := json.Unmarshal(line, &r); err != nil {
		c.Skipped["malformed"]++
		return
	}
	geminiRecordOf(r, st, c)
}

func geminiRecordOf(r geminiRecord, st *State, c *Chunk) {
	switch {
	case r.RewindTo != nil:
		// What was rewound was said all the same: it stays.
		c.Skipped["rewind"]++
	case r.Set != nil:
		if r.Set.SessionID != "" {
			st.Session = r.Set.SessionID
		}
		if r.Set.Messages == nil {
			c.Skipped["metadata"]++
		}
		geminiMessages(r.Set.Messages, st, c)
	case r.ID != "" && r.Type != "":
		geminiMessageOf(r.geminiMessage, st, c)
	case r.SessionID != "":
		// The first line, or the whole of a legacy file.
		st.Session = r.SessionID
		c.Skipped["session_meta"]++
		geminiMessages(r.Messages, st, c)
	default:
		c.Skipped["malformed"]++
	}
}

func geminiMessages(raw []json.RawMessage, st *State, c *Chunk) {
	for _, m := range raw {
		var msg geminiMessage
		if json.Unmarshal(m, &msg) != nil || msg.ID == "" {
			c.Skipped["malformed"]++
			continue
		}
		geminiMessageOf(msg, st, c)
	}
}

func geminiMessageOf(m geminiMessage, st *State, c *Chunk) {
	if t, ok := parseTime(m.Timestamp); ok {
		st.Time = t
	}
	var role Role
	switch m.Type {
	case "user":
		role = User
	case "gemini":
		role = Assistant
	default:
		// info, warning, error: the CLI's notices, not the conversation.
		c.Skipped[m.Type]++
		return
	}
	if len(m.Thoughts) > 0 && string(m.Thoughts) != "[]" && string(m.Thoughts) != "null" {
		c.Skipped["thinking"]++
	}
	content := m.Content
	if role == User && len(m.DisplayContent) > 0 && string(m.DisplayContent) != "null" {
		content = m.DisplayContent
	}
	text := geminiText(content, c)
	if role == User && geminiInjected(text) {
		// Context the CLI or a hook (ctx0's own memory block) added as a
		// user turn: not the person's words.
		c.Skipped["injected"]++
		text = ""
	}
	if text != "" {
		c.emit(st, geminiPos(m.ID, ""), role, text, nil)
	}
	for _, tc := range m.ToolCalls {
		if tc.ID == "" {
			c.Skipped["malformed"]++
			continue
		}
		switch tc.Status {
		case "error":
			c.outcome(tc.ID, Failed)
		case "cancelled":
			c.outcome(tc.ID, Rejected)
		}
		tool := geminiTool(tc.Name, tc.Args)
		tool.ID = tc.ID
		saved := st.Time
		if t, ok := parseTime(tc.Timestamp); ok {
			st.Time = t
		}
		c.emit(st, geminiPos(m.ID, tc.ID), Assistant, "", []Tool{tool})
		st.Time = saved
	}
}

// geminiText is the text of a message's content, a PartListUnion: a
// string, a part or a list of parts. Parts that are not text (a function
// call or response, inline data) are counted and left out.
func geminiText(raw json.RawMessage, c *Chunk) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var parts []json.RawMessage
	if raw[0] == '{' {
		parts = []json.RawMessage{raw}
	} else if json.Unmarshal(raw, &parts) != nil {
		c.Skipped["malformed"]++
		return ""
	}
	var texts []string
	for _, p := range parts {
		var part struct {
			Text       *string         `json:"text"`
			Thought    bool            `json:"thought"`
			InlineData json.RawMessage `json:"inlineData"`
		}
		var str string
		switch {
		case json.Unmarshal(p, &str) == nil:
			texts = append(texts, str)
		case json.Unmarshal(p, &part) != nil:
			c.Skipped["malformed"]++
		case part.Thought:
			c.Skipped["thinking"]++
		case part.Text != nil:
			texts = append(texts, *part.Text)
		case part.InlineData != nil:
			texts = append(texts, "[image]")
		default:
			c.Skipped["part"]++
		}
	}
	return strings.TrimSpace(strings.Join(texts, "\n\n"))
}

// geminiTool is the gist of a Gemini CLI tool call.
func geminiTool(name string, args map[string]any) Tool {
	kind := Other
	target := firstStr(args, "file_path", "absolute_path", "path", "dir_path", "command", "pattern", "query", "url", "prompt")
	switch name {
	case "read_file", "read_many_files", "list_directory":
		kind = Read
		if name == "read_many_files" {
			if ps, ok := args["paths"].([]any); ok && len(ps) > 0 {
				target, _ = ps[0].(string)
			}
		}
	case "write_file", "replace", "edit":
		kind = Write
	case "run_shell_command":
		kind, target = Command, str(args, "command")
	case "glob", "search_file_content", "grep_search", "grep":
		kind, target = Search, str(args, "pattern")
	case "web_fetch", "google_web_search":
		kind = Web
	}
	return Tool{Name: name, Kind: kind, Target: targetLine(target)}
}

// geminiPos is the position of a part of message id: its text (part "")
// or one of its tool calls. It depends only on the ids, so the same part
// read again from any line or file version has the same position.
func geminiPos(id, part string) int64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	h.Write([]byte{0})
	h.Write([]byte(part))
	return int64(h.Sum64() >> 1)
}

// geminiDocument reports whether data, the start of a session file, is a
// legacy Gemini CLI document written over whole, not a JSONL file: a JSON
// object that does not end on its first line.
func geminiDocument(data []byte) bool {
	first, _, found := bytes.Cut(data, []byte("\n"))
	first = bytes.TrimSpace(first)
	return found && bytes.HasPrefix(first, []byte("{")) && !json.Valid(first)
}

// geminiInjected reports whether a user turn is context Gemini CLI added:
// the session's context or a hook's additional context (gemini-cli's
// isIgnoredUserContent).
func geminiInjected(text string) bool {
	return strings.HasPrefix(text, "<session_context>") || strings.HasPrefix(text, "<hook_context>")
}
