package transcript

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
)

// codexLine is a line of a Codex CLI rollout file in any of its shapes: the
// envelope {timestamp, type, payload} (from about September 2025), or,
// before it, a bare header {id, timestamp, git}, a {"record_type":"state"}
// marker or a bare Responses API item.
type codexLine struct {
	Timestamp  string     `json:"timestamp"`
	Type       string     `json:"type"`
	Payload    *codexItem `json:"payload"`
	ID         string     `json:"id"`
	RecordType string     `json:"record_type"`
	Git        *codexGit  `json:"git"`
}

type codexGit struct {
	RepositoryURL string `json:"repository_url"`
}

// codexItem is a payload: a Responses API item (message, function_call, …),
// a session header or a turn context.
type codexItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Action    *struct {
		Command []string `json:"command"`
		Query   string   `json:"query"`
	} `json:"action"`
	// CallID links a call and its *_output item, whose Output is a
	// string (once a JSON document itself) or, in some versions, an array.
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	CWD       string          `json:"cwd"`
	Git       *codexGit       `json:"git"`
}

// parseCodexLine reads one line of a Codex CLI rollout file. The user's
// and the assistant's messages and the tool calls are kept; the event
// stream (which mirrors the messages), reasoning, tool output and the
// context Codex injects as user messages are counted and left out; of a
// tool's output only its outcome is kept, when the call failed.
func parseCodexLine(line []byte, pos int64, st *State, c *Chunk) {
	var l codexLine
	if err := json.Unmarshal(line, &l); err != nil {
		c.Skipped["malformed"]++
		return
	}
	if t, ok := parseTime(l.Timestamp); ok {
		st.Time = t
	}
	var it codexItem
	switch {
	case l.Payload != nil:
		it = *l.Payload
	case l.RecordType != "":
		c.Skipped[l.RecordType]++
		return
	case l.Type == "" && l.ID != "":
		// The header of a file from before the envelope.
		st.Session = l.ID
		if l.Git != nil {
			st.Repo = l.Git.RepositoryURL
		}
		c.Skipped["session_meta"]++
		return
	case l.Type == "":
		c.Skipped["malformed"]++
		return
	default:
		// A bare item: the line is the item.
		if err := json.Unmarshal(line, &it); err != nil {
			c.Skipped["malformed"]++
			return
		}
		l.Type = "response_item"
	}
	switch l.Type {
	case "response_item":
		codexResponseItem(it, pos, st, c)
	case "session_meta":
		st.Session = it.ID
		if it.CWD != "" {
			st.CWD = it.CWD
		}
		if it.Git != nil {
			st.Repo = it.Git.RepositoryURL
		}
		c.Skipped["session_meta"]++
	case "turn_context":
		if it.CWD != "" {
			st.CWD = it.CWD
		}
		c.Skipped["turn_context"]++
	case "event_msg":
		c.Skipped["event"]++
	default:
		// compacted, and the line types of later versions.
		c.Skipped[l.Type]++
	}
}

// codexResponseItem reads a Responses API item.
func codexResponseItem(it codexItem, pos int64, st *State, c *Chunk) {
	var tools []Tool
	switch it.Type {
	case "message":
		codexMessage(it, pos, st, c)
		return
	case "function_call":
		var args map[string]any
		_ = json.Unmarshal([]byte(it.Arguments), &args) // a call without readable arguments still counts
		tools = codexTools(it.Name, args)
	case "custom_tool_call":
		if it.Name == "apply_patch" {
			tools = patchTools(it.Name, it.Input)
		} else {
			tools = []Tool{{Name: it.Name, Kind: Other, Target: targetLine(it.Input)}}
		}
	case "local_shell_call":
		var argv []string
		if it.Action != nil {
			argv = it.Action.Command
		}
		tools = shellTools("shell", argv)
	case "web_search_call":
		q := ""
		if it.Action != nil {
			q = it.Action.Query
		}
		tools = []Tool{{Name: "web_search", Kind: Web, Target: targetLine(q)}}
	case "":
		c.Skipped["malformed"]++
		return
	default:
		// reasoning, *_output, ghost_snapshot, …
		if strings.HasSuffix(it.Type, "_call_output") && it.CallID != "" {
			if o := codexOutcome(it.Output); o != "" {
				c.outcome(it.CallID, o)
			}
		}
		c.Skipped[it.Type]++
		return
	}
	// A patch is a tool per file, all answered by the call's one output.
	for i := range tools {
		tools[i].ID = it.CallID
	}
	c.emit(st, pos, Assistant, "", tools)
}

var (
	// codexExited is how exec_command's output reports the exit status.
	codexExited = lazy.Regexp(`(?m)^Process exited with code (-?\d+)\s*$`)
	// codexFailure opens the plain-text output Codex gives instead of a
	// command's own when the command failed in or was refused by the
	// sandbox, or could not start.
	codexFailure = lazy.Regexp(`^(?:failed in sandbox|execution error|exec error|error:)`)
	// codexTimeout is Codex's note, in a command's output, that it stopped
	// the command at its time limit.
	codexTimeout = lazy.Regexp(`(?m)^command timed out after`)
	// codexRejection opens the output of a call the user declined.
	codexRejection = lazy.Regexp(`(?i)^(?:exec command rejected|patch rejected|.{0,40}rejected by user|aborted by user)`)
)

// codexOutcome is what a call's output says about how it ended: Failed
// for a non-zero exit code (in the JSON document shell calls return, or in
// exec_command's header) or a sandbox or start failure, TimedOut for a
// command Codex stopped at its time limit, Rejected for a call the user
// declined, "" otherwise.
func codexOutcome(raw json.RawMessage) Outcome {
	var out string
	if json.Unmarshal(raw, &out) != nil {
		out = string(raw)
	}
	out = strings.TrimSpace(out)
	var doc struct {
		Output   string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(out, "{") && json.Unmarshal([]byte(out), &doc) == nil && doc.Metadata.ExitCode != nil {
		switch {
		case *doc.Metadata.ExitCode == 0:
			return ""
		case codexTimeout().MatchString(doc.Output):
			return TimedOut
		}
		return Failed
	}
	if m := codexExited().FindStringSubmatch(out); m != nil {
		if m[1] != "0" {
			return Failed
		}
		return ""
	}
	switch {
	case codexRejection().MatchString(out):
		return Rejected
	case codexTimeout().MatchString(out):
		return TimedOut
	case codexFailure().MatchString(out):
		return Failed
	}
	return ""
}

// codexMessage reads a message item: the user's prompt (without what Codex
// injected into it) or the assistant's text.
func codexMessage(it codexItem, pos int64, st *State, c *Chunk) {
	var items []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(it.Content, &items); err != nil {
		c.Skipped["malformed"]++
		return
	}
	var role Role
	switch it.Role {
	case "user":
		role = User
	case "assistant":
		role = Assistant
	default:
		// developer and system messages are Codex's instructions.
		c.Skipped[it.Role+"_message"]++
		return
	}
	var texts []string
	for _, x := range items {
		switch {
		case x.Type == "input_image":
			texts = append(texts, "[image]")
		case role == User && injected(x.Text):
			if cwd := envCWD(x.Text); cwd != "" {
				st.CWD = cwd
			}
			c.Skipped["injected"]++
		case x.Text != "":
			texts = append(texts, x.Text)
		}
	}
	text := strings.TrimSpace(strings.Join(texts, "\n\n"))
	if text == "" {
		return
	}
	c.emit(st, pos, role, text, nil)
}

// injectedPrefixes start the content Codex adds to the conversation as user
// messages: the environment, AGENTS.md, skills, instructions.
var injectedPrefixes = []string{
	"<environment_context>",
	"<user_instructions>",
	"# AGENTS.md instructions",
	"<INSTRUCTIONS>",
	"<skill>",
	"<permissions instructions>",
	"<collaboration_mode>",
	"<user_shell_command>",
	"<turn_aborted>",
}

func injected(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range injectedPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

var (
	cwdTag  = lazy.Regexp(`<cwd>\s*(.*?)\s*</cwd>`)
	cwdLine = lazy.Regexp(`(?m)^Current working directory:\s*(.+?)\s*$`)
)

// envCWD is the working directory an environment context names, in its
// XML form or its older plain-text form.
func envCWD(text string) string {
	if !strings.HasPrefix(strings.TrimSpace(text), "<environment_context>") {
		return ""
	}
	for _, re := range []func() *regexp.Regexp{cwdTag, cwdLine} {
		if m := re().FindStringSubmatch(text); m != nil {
			return m[1]
		}
	}
	return ""
}

// codexTools is the gist of a function call.
func codexTools(name string, args map[string]any) []Tool {
	switch name {
	case "shell", "container.exec":
		var argv []string
		cmd, _ := args["command"].([]any)
		for _, a := range cmd {
			s, _ := a.(string)
			argv = append(argv, s)
		}
		return shellTools(name, argv)
	case "exec_command":
		return []Tool{{Name: name, Kind: Command, Target: targetLine(str(args, "cmd"))}}
	case "update_plan":
		return []Tool{{Name: name, Kind: Other, Target: targetLine(str(args, "explanation"))}}
	case "view_image":
		return []Tool{{Name: name, Kind: Read, Target: targetLine(str(args, "path"))}}
	}
	return []Tool{{Name: name, Kind: Other, Target: targetLine(firstStr(args, "path", "file_path", "cmd", "command", "query", "url", "pattern"))}}
}

// shellTools is the gist of a command given as an argument vector: the
// script of `bash -lc script`, or apply_patch's files.
func shellTools(name string, argv []string) []Tool {
	if len(argv) >= 2 && argv[0] == "apply_patch" {
		return patchTools("apply_patch", argv[1])
	}
	cmd := strings.Join(argv, " ")
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		cmd = argv[2]
	}
	return []Tool{{Name: name, Kind: Command, Target: targetLine(cmd)}}
}
