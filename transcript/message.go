// Package transcript reads agents' session files into one message model:
// Claude Code's JSONL transcripts, Codex CLI's rollout files, Gemini CLI's
// session files, Cursor's agent transcripts and ctx0's generic session log. It keeps what was said (the user's words, the
// assistant's text), the gist of what was done (files read and written,
// commands run) and which tool calls did not go through (failed, rejected,
// timed out), and counts what it leaves out: tool output, meta lines,
// sub-agent chatter, thinking, injected context.
//
// The readers are pure: they parse bytes and touch no files. A file that is
// still being written is read in pieces; State carries what a reader needs
// from earlier lines (the session id, the working directory) so a piece can
// be parsed without the lines before it.
package transcript

import "time"

// Source is the kind of session a message came from.
type Source string

// The sources ctx0 reads.
const (
	ClaudeCode Source = "claude-code"
	Codex      Source = "codex"
	Gemini     Source = "gemini"
	Cursor     Source = "cursor"
	SessionLog Source = "session-log"
)

// Role says who spoke.
type Role string

// The roles of a message.
const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// ToolKind groups tools by what they did, for the session tracker's lists
// of files read, files written and commands run.
type ToolKind string

// The kinds of tool use.
const (
	Read    ToolKind = "read"
	Write   ToolKind = "write"
	Command ToolKind = "command"
	Search  ToolKind = "search"
	Web     ToolKind = "web"
	Task    ToolKind = "task"
	Other   ToolKind = "other"
)

// Tool is one tool use by the assistant, reduced to its gist.
type Tool struct {
	// ID is the call's id in its source (Claude Code's tool_use id, Codex's
	// call_id), which its result names. A source that records no results
	// (a session log) gives none: an empty ID means the outcome is unknown.
	ID   string   `json:"id,omitempty"`
	Name string   `json:"name"`
	Kind ToolKind `json:"kind"`
	// Target is what the tool acted on: a file path, a command line, a
	// search pattern, a URL, a query, a sub-agent's task. It is one line,
	// cut to maxTarget characters.
	Target string `json:"target,omitempty"`
	// Outcome is what the call's result said when the call did not go
	// through, set by Mark from the outcomes a reader found. Empty, on a
	// tool with an ID, means it went through.
	Outcome Outcome `json:"outcome,omitempty"`
}

// Outcome is how a tool use ended when it did not go through.
type Outcome string

// The outcomes a result can report.
const (
	// Failed: the tool ran and reported an error, such as a command's
	// non-zero exit or an edit whose old text was not in the file.
	Failed Outcome = "failed"
	// Rejected: the user declined or interrupted the call, so it never
	// ran. It is not an error anyone fixed.
	Rejected Outcome = "rejected"
	// TimedOut: the call was stopped at its time limit. That is how an
	// agent runs a server for a few seconds as much as how a hung test
	// ends: only the output, left out here, tells which.
	TimedOut Outcome = "timed_out"
)

// Mark sets, in place, the outcome of each tool of msgs whose ID outcomes
// holds: it joins the results a reader found (Chunk.Outcomes, gathered
// over every piece read) to the calls they answer.
func Mark(msgs []Message, outcomes map[string]Outcome) {
	if len(outcomes) == 0 {
		return
	}
	for i := range msgs {
		for j := range msgs[i].Tools {
			if o, ok := outcomes[msgs[i].Tools[j].ID]; ok && msgs[i].Tools[j].ID != "" {
				msgs[i].Tools[j].Outcome = o
			}
		}
	}
}

// Message is one thing said or done in a session.
type Message struct {
	// Pos identifies the message within its source: the byte offset of its
	// line in a JSONL file, a hash of its content in a session log. It
	// stays the same however the source is read, which is what lets
	// ingestion store every message exactly once.
	Pos     int64     `json:"pos"`
	Session string    `json:"session"`
	Role    Role      `json:"role"`
	Time    time.Time `json:"time"`
	Text    string    `json:"text,omitempty"`
	Tools   []Tool    `json:"tools,omitempty"`
	// CWD is the working directory of the session at this message.
	CWD string `json:"cwd,omitempty"`
}

// State is what a reader carries from one line to the next. Save it with
// the offset reached, and pass it back to continue the file from there.
type State struct {
	Session string `json:"session,omitempty"`
	CWD     string `json:"cwd,omitempty"`
	// Repo is a repository URL the session recorded (Codex does), used for
	// the project when the working directory is not on this machine.
	Repo string `json:"repo,omitempty"`
	// Time is the last timestamp seen. Lines without one (old Codex files)
	// take it.
	Time time.Time `json:"time,omitzero"`
}

// Skipped counts what a reader left out, by reason: a line type
// ("system", "summary", "progress"), a flag ("meta", "sidechain"), a kind
// of content block ("tool_result", "thinking") or "malformed" for a line
// that is not JSON. A tool result is counted even when its outcome is kept
// (Chunk.Outcomes): its output is what is left out.
type Skipped map[string]int

// Add adds the counts of o to s.
func (s Skipped) Add(o Skipped) {
	for k, n := range o {
		s[k] += n
	}
}

// Timed reports whether the source's transcripts record when each message
// was said. Cursor's do not: its messages are dated by the file's last
// change when ctx0 reads it.
func (s Source) Timed() bool { return s != Cursor }
