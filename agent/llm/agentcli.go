package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ChildEnv is set (to "1") in the environment of every agent CLI that ctx0
// runs to ask a model. The CLI passes its environment on to the hooks it
// runs, so ctx0's own hook (or ingest, or dump), started by that child
// at its session's end, sees it and leaves the child's session alone: the
// run that files a session is never filed itself, and never starts
// another run.
const ChildEnv = "CTX0_CHILD"

// IsChild reports whether getenv (nil: os.Getenv) is the environment of a
// process that ctx0 started to ask a model, or of one it started.
func IsChild(getenv func(string) string) bool {
	if getenv == nil {
		getenv = os.Getenv
	}
	return getenv(ChildEnv) != ""
}

// agentCLI is what the providers that run an agent's own signed-in command
// line share: the program, the model to ask for, and a timeout.
type agentCLI struct {
	argv    []string // the program and any arguments before ctx0's own
	model   string
	timeout time.Duration
}

// run runs the CLI with args after a.argv and stdin, in an empty folder of
// its own (so it reads no project's instructions and has nothing to look
// at), marked as ctx0's child. files are written into that folder first,
// by name.
func (a agentCLI) run(ctx context.Context, stdin string, files map[string][]byte, args func(dir string) []string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "ctx0-child-")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(a.argv[0]), err)
	}
	defer os.RemoveAll(dir)
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(a.argv[0]), err)
		}
	}
	argv := append(append([]string(nil), a.argv...), args(dir)...)
	// A program named by a relative path is found from ctx0's folder, not
	// from the empty one it runs in.
	if strings.ContainsRune(argv[0], '/') || strings.ContainsRune(argv[0], filepath.Separator) {
		if abs, err := filepath.Abs(argv[0]); err == nil {
			argv[0] = abs
		}
	}
	out, err := runProgram(ctx, program{argv: argv, stdin: stdin, timeout: a.timeout, dir: dir, env: []string{ChildEnv + "=1"}})
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return out, fmt.Errorf("%s is not installed here (not on the PATH): install it and sign in, or name it in llm.command: %w", a.argv[0], err)
	}
	return out, err
}

// ClaudeCode completes by running Claude Code headless (claude -p), signed
// in as the user already is: no API key is needed. Checked against the
// Claude Code 2.1 CLI reference and headless docs (2.1.119):
//
//	claude -p --output-format json --model haiku --json-schema SCHEMA
//	       --system-prompt SYSTEM --tools "" --strict-mcp-config
//	       --no-session-persistence          (the prompt on stdin)
//
// prints one result object: type "result", subtype ("success" or an
// error_* kind), is_error, result (the text), structured_output (the
// object matching --json-schema), session_id, total_cost_usd, usage and
// modelUsage. --tools "" gives the model no tools (with tools at hand,
// models have been seen to refuse the structured-output tool that
// --json-schema adds and loop until killed), --strict-mcp-config
// without --mcp-config loads no MCP server, and --no-session-persistence
// keeps the run's session off disk, where ctx0's ingest would find it.
type ClaudeCode struct{ agentCLI }

var _ Provider = (*ClaudeCode)(nil)

// DefaultClaudeCodeModel is a small model: filing a session needs care,
// not depth, and runs after every session.
const DefaultClaudeCodeModel = "haiku"

// NewClaudeCode returns a provider running argv (nil: claude) with model
// (""": DefaultClaudeCodeModel); timeout bounds each run, 0 leaves it to
// ctx.
func NewClaudeCode(argv []string, model string, timeout time.Duration) *ClaudeCode {
	if len(argv) == 0 {
		argv = []string{"claude"}
	}
	if model == "" {
		model = DefaultClaudeCodeModel
	}
	return &ClaudeCode{agentCLI{argv: argv, model: model, timeout: timeout}}
}

func (c *ClaudeCode) Name() string  { return "claude-code" }
func (c *ClaudeCode) Model() string { return c.model }

// claudeResult is the object claude -p --output-format json prints.
type claudeResult struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	IsError          bool            `json:"is_error"`
	Result           string          `json:"result"`
	StructuredOutput json.RawMessage `json:"structured_output"`
	Errors           []string        `json:"errors"`
	SessionID        string          `json:"session_id"`
	TotalCostUSD     float64         `json:"total_cost_usd"`
	Usage            struct {
		InputTokens              int `json:"input_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
		OutputTokens             int `json:"output_tokens"`
	} `json:"usage"`
	ModelUsage map[string]json.RawMessage `json:"modelUsage"`
}

func (c *ClaudeCode) Complete(ctx context.Context, r Request) (Reply, error) {
	reply := Reply{Model: c.model}
	out, runErr := c.run(ctx, r.Prompt, nil, func(string) []string {
		args := []string{"-p", "--output-format", "json", "--model", c.model,
			"--json-schema", string(r.schema()),
			"--tools", "", "--strict-mcp-config", "--no-session-persistence"}
		if r.System != "" {
			args = append(args, "--system-prompt", r.System)
		}
		return args
	})
	var pe *programError
	if runErr != nil && !errors.As(runErr, &pe) {
		return reply, fmt.Errorf("claude-code: %w", runErr)
	}
	// claude exits 1 on an error result, and says what it was on stdout.
	res, perr := parseClaudeResult(out)
	if perr != nil {
		if runErr != nil && len(bytes.TrimSpace(out)) > 0 {
			return reply, fmt.Errorf("claude-code: %w; it printed %q", runErr, firstLine(out, 200))
		}
		if runErr != nil {
			return reply, fmt.Errorf("claude-code: %w", runErr)
		}
		return reply, fmt.Errorf("claude-code: %s: %w", filepath.Base(c.argv[0]), perr)
	}
	reply.Usage = Usage{
		InputTokens:  res.Usage.InputTokens + res.Usage.CacheCreationInputTokens + res.Usage.CacheReadInputTokens,
		OutputTokens: res.Usage.OutputTokens,
		CostUSD:      res.TotalCostUSD,
	}
	if len(res.ModelUsage) == 1 {
		for m := range res.ModelUsage {
			reply.Model = m
		}
	}
	if res.IsError || res.Subtype != "success" {
		msg := strings.Join(strings.Fields(strings.Join(append([]string{res.Result}, res.Errors...), " ")), " ")
		if msg == "" && runErr != nil {
			msg = runErr.Error()
		}
		if res.Subtype == "error_max_structured_output_retries" {
			// Claude Code gave up on the schema: ask once more, saying so.
			return reply, &SchemaError{Provider: c.Name(), Schema: r.schemaName(), Problem: "no reply matched the schema: " + msg}
		}
		return reply, fmt.Errorf("claude-code: %s (session %s): %s", res.Subtype, res.SessionID, msg)
	}
	if len(res.StructuredOutput) > 0 && !bytes.Equal(res.StructuredOutput, []byte("null")) {
		reply.JSON = res.StructuredOutput
		return reply, nil
	}
	// A CLI too old for --json-schema answers in text, and a success may
	// lack structured_output: the text is then the reply, checked against
	// the schema like any other.
	obj, err := extractJSON([]byte(res.Result))
	if err != nil {
		return reply, &SchemaError{Provider: c.Name(), Schema: r.schemaName(), Problem: err.Error()}
	}
	reply.JSON = obj
	return reply, nil
}

// parseClaudeResult reads the result object from claude's stdout. It is
// the last line that is a JSON object of type "result": a wrapper may print
// other lines first.
func parseClaudeResult(out []byte) (claudeResult, error) {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		var res claudeResult
		if json.Unmarshal(lines[i], &res) == nil && res.Type == "result" {
			return res, nil
		}
	}
	var res claudeResult
	if json.Unmarshal(out, &res) == nil && res.Type == "result" {
		return res, nil
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return res, errors.New("printed nothing; want the result object of --output-format json")
	}
	return res, fmt.Errorf("printed no result object (--output-format json): %q", firstLine(out, 120))
}

// Codex completes by running the Codex CLI headless (codex exec), signed in
// as the user already is. Checked against codex-rs/exec (cli.rs,
// exec_events.rs) of openai/codex as published in 2026 (an older codex
// without --ephemeral or --output-schema refuses the flag, and says so):
//
//	codex exec --json --output-schema FILE --sandbox read-only
//	           --skip-git-repo-check --ephemeral [--model M] -   (the prompt on stdin)
//
// prints JSONL events: thread.started (thread_id), item.completed whose
// item is an agent_message (its text: the JSON reply when an output schema
// is given), turn.completed (usage: input_tokens, cached_input_tokens,
// output_tokens), turn.failed (error.message) and error (message).
// --ephemeral keeps the run's session off disk, where ctx0's ingest would
// find it; the read-only sandbox in an empty folder leaves its tools
// nothing to change.
type Codex struct{ agentCLI }

var _ Provider = (*Codex)(nil)

// NewCodex returns a provider running argv (nil: codex) with model ("":
// the one Codex's own config chooses); timeout bounds each run, 0 leaves
// it to ctx.
func NewCodex(argv []string, model string, timeout time.Duration) *Codex {
	if len(argv) == 0 {
		argv = []string{"codex"}
	}
	return &Codex{agentCLI{argv: argv, model: model, timeout: timeout}}
}

func (c *Codex) Name() string  { return "codex" }
func (c *Codex) Model() string { return c.model }

// codexEvent is one line of codex exec --json.
type codexEvent struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Message  string `json:"message"`
	Item     struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"item"`
	Usage struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (c *Codex) Complete(ctx context.Context, r Request) (Reply, error) {
	reply := Reply{Model: c.model}
	schema, err := strictSchema(r.schema())
	if err != nil {
		return reply, fmt.Errorf("codex: schema %s: %w", r.schemaName(), err)
	}
	prompt := r.Prompt
	if r.System != "" {
		prompt = r.System + "\n\n" + r.Prompt
	}
	out, runErr := c.run(ctx, prompt, map[string][]byte{"schema.json": schema}, func(dir string) []string {
		args := []string{"exec", "--json", "--output-schema", filepath.Join(dir, "schema.json"),
			"--sandbox", "read-only", "--skip-git-repo-check", "--ephemeral"}
		if c.model != "" {
			args = append(args, "--model", c.model)
		}
		return append(args, "-")
	})
	var pe *programError
	if runErr != nil && !errors.As(runErr, &pe) {
		return reply, fmt.Errorf("codex: %w", runErr)
	}
	ev := parseCodexEvents(out)
	reply.Usage = usage(c.model, ev.inputTokens, ev.outputTokens)
	text, thread, failure, events := ev.text, ev.thread, ev.failure, ev.events
	switch {
	case len(failure) > 0:
		return reply, fmt.Errorf("codex: turn failed (thread %s): %s", thread, strings.Join(strings.Fields(strings.Join(failure, "; ")), " "))
	case runErr != nil && events == 0 && len(bytes.TrimSpace(out)) > 0:
		return reply, fmt.Errorf("codex: %w; it printed %q", runErr, firstLine(out, 200))
	case runErr != nil:
		return reply, fmt.Errorf("codex: %w", runErr)
	case events == 0 && len(bytes.TrimSpace(out)) == 0:
		return reply, errors.New("codex: printed nothing; want the JSONL events of --json")
	case events == 0:
		return reply, fmt.Errorf("codex: printed no JSONL events (--json): %q", firstLine(out, 120))
	}
	obj, err := extractJSON([]byte(text))
	if err != nil {
		return reply, &SchemaError{Provider: c.Name(), Schema: r.schemaName(), Problem: err.Error()}
	}
	reply.JSON, err = dropNulls(obj)
	if err != nil {
		return reply, &SchemaError{Provider: c.Name(), Schema: r.schemaName(), Problem: err.Error()}
	}
	return reply, nil
}

// codexOutput is what codex exec --json printed.
type codexOutput struct {
	text, thread              string   // the last agent message; the thread's id
	failure                   []string // what turn.failed and error events said
	inputTokens, outputTokens int      // summed over the turns
	events                    int      // the lines that were events
}

// parseCodexEvents reads codex exec --json's stdout: one event a line.
// Lines that are not events are skipped: codex prints only events on
// stdout, but a wrapper may not.
func parseCodexEvents(out []byte) codexOutput {
	var o codexOutput
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, maxBody)
	for sc.Scan() {
		var ev codexEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Type == "" {
			continue
		}
		o.events++
		switch ev.Type {
		case "thread.started":
			o.thread = ev.ThreadID
		case "item.completed":
			if ev.Item.Type == "agent_message" {
				o.text = ev.Item.Text
			}
		case "turn.completed":
			o.inputTokens += ev.Usage.InputTokens
			o.outputTokens += ev.Usage.OutputTokens
		case "turn.failed":
			o.failure = append(o.failure, ev.Error.Message)
		case "error":
			o.failure = append(o.failure, ev.Message)
		}
	}
	return o
}

// firstLine is the start of out's first line, at most n bytes.
func firstLine(out []byte, n int) string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(out), []byte("\n"))
	if len(line) > n {
		line = line[:n]
	}
	return string(line)
}

// strictSchemaDrops are the keywords OpenAI's strict structured outputs
// refuse; replies are still validated against the whole schema here.
var strictSchemaDrops = []string{"$schema", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems", "pattern", "format"}

// strictSchema rewrites a JSON Schema into the form OpenAI's strict
// structured outputs accept, which codex exec --output-schema uses: every
// object lists all its properties as required and allows no others, so an
// optional property becomes one that may be null; a $ref stands alone; the
// size and pattern keywords go. dropNulls undoes the nulls in the reply.
func strictSchema(schema json.RawMessage) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(schema, &v); err != nil {
		return nil, err
	}
	return json.Marshal(strictNode(v))
}

func strictNode(v any) any {
	switch n := v.(type) {
	case []any:
		for i := range n {
			n[i] = strictNode(n[i])
		}
	case map[string]any:
		if ref, ok := n["$ref"]; ok {
			return map[string]any{"$ref": ref}
		}
		for _, k := range strictSchemaDrops {
			delete(n, k)
		}
		for k, sub := range n {
			if k != "properties" && k != "required" && k != "enum" && k != "const" {
				n[k] = strictNode(sub)
			}
		}
		props, ok := n["properties"].(map[string]any)
		if !ok {
			return n
		}
		required := map[string]bool{}
		if list, ok := n["required"].([]any); ok {
			for _, k := range list {
				if s, ok := k.(string); ok {
					required[s] = true
				}
			}
		}
		// In order, so that one schema always makes the same file.
		names := slices.Sorted(maps.Keys(props))
		list := make([]any, 0, len(names))
		for _, k := range names {
			p := strictNode(props[k])
			if !required[k] {
				p = nullable(p)
			}
			props[k] = p
			list = append(list, k)
		}
		n["required"] = list
		n["additionalProperties"] = false
	}
	return v
}

// nullable is schema s that also allows null.
func nullable(s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	if t, ok := m["type"].(string); ok && m["enum"] == nil && m["const"] == nil {
		m["type"] = []any{t, "null"}
		return m
	}
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}

// dropNulls removes the members of every object in reply whose value is
// null: what a strict schema's model says of an optional property it
// leaves out.
func dropNulls(reply json.RawMessage) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(reply, &v); err != nil {
		return nil, fmt.Errorf("the reply is not JSON: %w", err)
	}
	return json.Marshal(withoutNulls(v))
}

func withoutNulls(v any) any {
	switch n := v.(type) {
	case []any:
		for i := range n {
			n[i] = withoutNulls(n[i])
		}
	case map[string]any:
		for k, sub := range n {
			if sub == nil {
				delete(n, k)
			} else {
				n[k] = withoutNulls(sub)
			}
		}
	}
	return v
}

// CLIsOnPath returns the providers that run an agent CLI (claude-code,
// codex) whose program lookPath (nil: exec.LookPath) finds: the models a
// person may already be signed in to.
func CLIsOnPath(lookPath func(string) (string, error)) []string {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	var found []string
	for _, p := range []string{"claude-code", "codex"} {
		if _, err := lookPath(CLIName(p)); err == nil {
			found = append(found, p)
		}
	}
	return found
}
