package transcript

import (
	"bytes"
	"encoding/json"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Chunk is what Parse read from a piece of a session file.
type Chunk struct {
	Messages []Message
	Skipped  Skipped
	// Outcomes are the tool uses the piece's results say did not go
	// through, by the tool's ID. They are not put on messages: a result
	// is a line of its own, often read in a later piece than its call,
	// whose message is then stored already, and a result is not something
	// said, so as a message of its own it would be counted and searched as
	// one. Whoever keeps the messages keeps these beside them and joins
	// them with Mark when reading.
	Outcomes map[string]Outcome
	// Used is how many bytes of the piece Parse consumed: its complete
	// lines. What follows (a last line still being written) is left for the
	// next read, which starts at the piece's offset plus Used.
	Used int
}

// Parse reads the complete lines of data, a piece of a JSONL session file
// of source src that starts at byte offset base of the file, carrying st
// from line to line. A last line without its newline is still being
// written: it is left for the next read, unless final says the writer is
// done with the file, so that a file whose writer died before the last
// newline is still read to its end. A line that is not JSON is skipped and
// counted, never fatal.
func Parse(src Source, data []byte, base int64, st *State, final bool) Chunk {
	c := Chunk{Skipped: Skipped{}}
	if src == Gemini && base == 0 && geminiDocument(data) {
		// A legacy Gemini CLI file is one document, written over whole.
		switch {
		case json.Valid(data):
			parseGeminiLine(data, st, &c)
		case !final:
			return c // being written: read it whole next time
		default:
			c.Skipped["malformed"]++
		}
		c.Used = len(data)
		return c
	}
	for c.Used < len(data) {
		rest := data[c.Used:]
		line := rest
		n := len(rest)
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, n = rest[:i], i+1
		} else if !final {
			break
		}
		pos := base + int64(c.Used)
		c.Used += n
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		switch src {
		case ClaudeCode:
			parseClaudeLine(line, pos, st, &c)
		case Codex:
			parseCodexLine(line, pos, st, &c)
		case Gemini:
			parseGeminiLine(line, st, &c)
		case Cursor:
			parseCursorLine(line, pos, st, &c)
		default:
			c.Skipped["unreadable"]++
		}
	}
	return c
}

// Detect tells the source of a JSONL session file from its name and its
// first line: Codex names its files rollout-…, and its first line is a
// session header; Gemini CLI keeps its files in a chats folder, and their
// first line (the whole file, in older versions) names the session and the
// project's hash; Cursor keeps its files in an agent-transcripts folder;
// anything else is read as Claude Code's.
func Detect(name string, firstLine []byte) Source {
	if strings.HasPrefix(path.Base(name), "rollout-") {
		return Codex
	}
	if WholeFile(name) {
		return Gemini
	}
	if CursorFile(name) {
		return Cursor
	}
	var head struct {
		Type         string          `json:"type"`
		ID           string          `json:"id"`
		Instructions json.RawMessage `json:"instructions"`
		SessionID    string          `json:"sessionId"`
		ProjectHash  string          `json:"projectHash"`
	}
	if json.Unmarshal(firstLine, &head) == nil && head.SessionID != "" && head.ProjectHash != "" {
		return Gemini
	}
	if json.Unmarshal(firstLine, &head) == nil &&
		(head.Type == "session_meta" || head.Type == "" && head.ID != "" && head.Instructions != nil) {
		return Codex
	}
	return ClaudeCode
}

// WholeFile reports whether the session file name is read whole, not by
// lines: a legacy Gemini CLI session, chats/session-….json.
func WholeFile(name string) bool {
	name = filepath.ToSlash(name)
	return strings.HasSuffix(name, ".json") && strings.HasPrefix(path.Base(name), "session-") &&
		path.Base(path.Dir(name)) == "chats"
}

// parseTime reads an RFC 3339 timestamp; ok is false for anything else.
func parseTime(s string) (t time.Time, ok bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t.UTC(), err == nil
}

// outcome records what the result of the tool use id said.
func (c *Chunk) outcome(id string, o Outcome) {
	if c.Outcomes == nil {
		c.Outcomes = map[string]Outcome{}
	}
	c.Outcomes[id] = o
}

// emit adds a message at the state's time and place.
func (c *Chunk) emit(st *State, pos int64, role Role, text string, tools []Tool) {
	if st.Time.IsZero() {
		c.Skipped["no_timestamp"]++
		return
	}
	c.Messages = append(c.Messages, Message{
		Pos: pos, Session: st.Session, Role: role, Time: st.Time,
		Text: text, Tools: tools, CWD: st.CWD,
	})
}
