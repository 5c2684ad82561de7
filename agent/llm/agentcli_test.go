package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// standInScript plays an agent CLI: on its Nth run it saves its stdin as
// prompt-N, its arguments (one a line) as args-N, its working directory as
// dir-N, $CTX0_CHILD as child-N and the file named after --output-schema
// as schema-N, then prints output-N (the last one again when there are
// fewer) and exits with exit-N (default 0). With a file named hang it waits
// to be killed instead.
const standInScript = `#!/bin/sh
d='%s'
n=0; while [ -e "$d/prompt-$n" ]; do n=$((n+1)); done
cat > "$d/prompt-$n"
: > "$d/args-$n"; for a in "$@"; do printf '%%s\n' "$a" >> "$d/args-$n"; done
pwd > "$d/dir-$n"
printf '%%s' "$CTX0_CHILD" > "$d/child-$n"
prev=; for a in "$@"; do if [ "$prev" = --output-schema ]; then cp "$a" "$d/schema-$n"; fi; prev=$a; done
if [ -e "$d/hang" ]; then exec sleep 60; fi
o=$n; while [ ! -e "$d/output-$o" ] && [ $o -gt 0 ]; do o=$((o-1)); done
cat "$d/output-$o"
if [ -e "$d/exit-$o" ]; then exit "$(cat "$d/exit-$o")"; fi
exit 0
`

// standIn puts a program called name on PATH that prints outputs in turn
// (see standInScript), and returns the folder where it records its runs.
func standIn(t *testing.T, name string, outputs ...string) string {
	t.Helper()
	bin, dir := t.TempDir(), t.TempDir()
	for i, o := range outputs {
		write(t, filepath.Join(dir, fmt.Sprint("output-", i)), o)
	}
	if err := os.WriteFile(filepath.Join(bin, name), []byte(fmt.Sprintf(standInScript, dir)), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// runFile is what the stand-in recorded of its Nth run.
func runFile(t *testing.T, dir, what string, n int) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, fmt.Sprint(what, "-", n)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func runs(dir string) int {
	prompts, _ := filepath.Glob(filepath.Join(dir, "prompt-*"))
	return len(prompts)
}

// claudeModel is the model a claude stand-in reports in modelUsage.
const claudeModel = "claude-haiku-4-5-20251001"

// claudeOK is what claude -p --output-format json --json-schema prints
// when the reply obj matched the schema.
func claudeOK(obj string) string {
	return `{"type":"result","subtype":"success","is_error":false,"duration_ms":2310,"duration_api_ms":2200,"num_turns":2,"result":"","stop_reason":"end_turn","session_id":"27c34d79-135c-44c6-b502-0edcd3c3246c","total_cost_usd":0.0021,"usage":{"input_tokens":4,"cache_creation_input_tokens":900,"cache_read_input_tokens":96,"output_tokens":50},"modelUsage":{"` + claudeModel + `":{"inputTokens":1000,"outputTokens":50,"costUSD":0.0021}},"permission_denials":[],"structured_output":` + obj + "}\n"
}

var claudeUsage = Usage{InputTokens: 1000, OutputTokens: 50, CostUSD: 0.0021}

// codexModel is the model the codex provider is opened with in tests.
const codexModel = "gpt-5-mini"

// codexOK is what codex exec --json prints when its final message is text.
func codexOK(text string) string {
	q, _ := json.Marshal(text)
	return `{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Reading the conversation**"}}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":` + string(q) + `}}
{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":200,"output_tokens":50}}
`
}

var codexUsage = usage(codexModel, 1000, 50)

func openClaudeCode(t *testing.T, outputs ...string) (Provider, func() []string) {
	var wrapped []string
	for _, o := range outputs {
		wrapped = append(wrapped, claudeOK(o))
	}
	dir := standIn(t, "claude", wrapped...)
	return NewClaudeCode(nil, "", time.Minute), func() []string { return standInPrompts(t, dir) }
}

func openCodex(t *testing.T, outputs ...string) (Provider, func() []string) {
	var wrapped []string
	for _, o := range outputs {
		wrapped = append(wrapped, codexOK(o))
	}
	dir := standIn(t, "codex", wrapped...)
	return NewCodex(nil, codexModel, time.Minute), func() []string { return standInPrompts(t, dir) }
}

func standInPrompts(t *testing.T, dir string) []string {
	var prompts []string
	for i := range runs(dir) {
		prompts = append(prompts, runFile(t, dir, "prompt", i))
	}
	return prompts
}

// TestAgentCLIArgs checks how each CLI is run: headless, with the schema,
// without tools or a saved session, in an empty folder of its own, and
// marked as ctx0's child.
func TestAgentCLIArgs(t *testing.T) {
	t.Run("claude-code", func(t *testing.T) {
		dir := standIn(t, "claude", claudeOK(goodReply))
		reply, err := NewClaudeCode(nil, "", time.Minute).Complete(t.Context(), testRequest())
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, string(reply.JSON), goodReply) || reply.Model != claudeModel || reply.Usage != claudeUsage {
			t.Errorf("got %+v with JSON %s", reply, reply.JSON)
		}
		args := runFile(t, dir, "args", 0)
		for _, want := range []string{"-p\n", "--output-format\njson\n", "--model\nhaiku\n", "--json-schema\n" + testSchema + "\n",
			"--tools\n\n", "--strict-mcp-config\n", "--no-session-persistence\n", "--system-prompt\n" + testRequest().System + "\n"} {
			if !strings.Contains(args, want) {
				t.Errorf("args %q lack %q", args, want)
			}
		}
		if got := runFile(t, dir, "prompt", 0); got != testRequest().Prompt {
			t.Errorf("stdin %q, want the prompt alone", got)
		}
		checkChild(t, dir)
	})
	t.Run("claude-code by a relative path", func(t *testing.T) {
		dir := standIn(t, "claude", claudeOK(goodReply))
		bin := filepath.SplitList(os.Getenv("PATH"))[0]
		t.Chdir(filepath.Dir(bin))
		p := NewClaudeCode([]string{filepath.Join(".", filepath.Base(bin), "claude")}, "sonnet", time.Minute)
		if _, err := p.Complete(t.Context(), testRequest()); err != nil {
			t.Fatal(err)
		}
		if args := runFile(t, dir, "args", 0); !strings.Contains(args, "--model\nsonnet\n") {
			t.Errorf("args %q", args)
		}
	})
	t.Run("codex", func(t *testing.T) {
		dir := standIn(t, "codex", codexOK(goodReply))
		reply, err := NewCodex([]string{"codex", "--profile", "ctx0"}, "", time.Minute).Complete(t.Context(), testRequest())
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, string(reply.JSON), goodReply) || reply.Usage != (Usage{InputTokens: 1000, OutputTokens: 50}) {
			t.Errorf("got %+v with JSON %s", reply, reply.JSON)
		}
		args := runFile(t, dir, "args", 0)
		if !strings.HasPrefix(args, "--profile\nctx0\nexec\n--json\n--output-schema\n") || !strings.HasSuffix(args, "\n-\n") ||
			!contains(args, "--sandbox\nread-only\n", "--skip-git-repo-check\n", "--ephemeral\n") || strings.Contains(args, "--model") {
			t.Errorf("args %q", args)
		}
		if got := runFile(t, dir, "prompt", 0); !contains(got, testRequest().System, testRequest().Prompt) {
			t.Errorf("stdin %q", got)
		}
		var schema map[string]any
		if err := json.Unmarshal([]byte(runFile(t, dir, "schema", 0)), &schema); err != nil {
			t.Fatal(err)
		}
		if schema["additionalProperties"] != false || len(schema["required"].([]any)) != 2 {
			t.Errorf("schema %v", schema)
		}
		checkChild(t, dir)
	})
}

// checkChild checks that the stand-in ran marked as ctx0's child, in a
// folder of its own that is gone afterwards.
func checkChild(t *testing.T, dir string) {
	t.Helper()
	if got := runFile(t, dir, "child", 0); got != "1" {
		t.Errorf("$%s = %q in the CLI's environment, want 1", ChildEnv, got)
	}
	wd := strings.TrimSpace(runFile(t, dir, "dir", 0))
	if !strings.HasPrefix(filepath.Base(wd), "ctx0-child-") {
		t.Errorf("ran in %s, want a folder of its own", wd)
	}
	if _, err := os.Stat(wd); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("its folder %s is left behind: %v", wd, err)
	}
}

func TestAgentCLIFailures(t *testing.T) {
	tests := []struct {
		name     string
		provider string // claude-code or codex
		output   string
		exit     int
		hang     bool
		schema   bool     // a *SchemaError, which WithSchema asks again on
		want     []string // in the error
		wantJSON string   // no error: the reply
	}{
		{name: "is_error", provider: "claude-code", exit: 1,
			output: `{"type":"result","subtype":"success","is_error":true,"duration_ms":400,"num_turns":1,"result":"Claude AI usage limit reached|1767225600","session_id":"9e1f","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0}}`,
			want:   []string{"claude-code: success (session 9e1f): Claude AI usage limit reached"}},
		{name: "error during execution", provider: "claude-code", exit: 1,
			output: `{"type":"result","subtype":"error_during_execution","is_error":false,"num_turns":0,"session_id":"9e1f","total_cost_usd":0,"usage":{},"errors":["API Error: 529 Overloaded"]}`,
			want:   []string{"error_during_execution", "529 Overloaded"}},
		{name: "structured output retries", provider: "claude-code", exit: 1, schema: true,
			output: `{"type":"result","subtype":"error_max_structured_output_retries","is_error":true,"session_id":"9e1f","usage":{},"errors":["Failed to provide valid structured output after 5 attempts"]}`,
			want:   []string{"does not match schema extraction", "after 5 attempts"}},
		{name: "not signed in", provider: "claude-code", exit: 1, output: "Invalid API key · Please run /login\n",
			want: []string{"claude: exit status 1", `printed "Invalid API key · Please run /login"`}},
		{name: "malformed", provider: "claude-code", output: `{"type":"result","subtype":"succ`,
			want: []string{"printed no result object"}},
		{name: "empty", provider: "claude-code", want: []string{"printed nothing"}},
		{name: "text reply of an older CLI", provider: "claude-code",
			output:   `{"type":"result","subtype":"success","is_error":false,"result":"Here it is:\n` + "```json\\n" + `{\"summary\":\"s\",\"facts\":[]}` + "\\n```" + `","session_id":"9e1f","usage":{}}`,
			wantJSON: `{"summary":"s","facts":[]}`},
		{name: "text reply without JSON", provider: "claude-code", schema: true,
			output: `{"type":"result","subtype":"success","is_error":false,"result":"I cannot help with that.","session_id":"9e1f","usage":{}}`,
			want:   []string{"holds no JSON object"}},
		{name: "timeout", provider: "claude-code", hang: true, want: []string{"claude: no reply within 300ms"}},
		{name: "turn failed", provider: "codex", exit: 1,
			output: `{"type":"thread.started","thread_id":"t-1"}` + "\n" + `{"type":"turn.started"}` + "\n" + `{"type":"error","message":"stream disconnected before completion"}` + "\n" + `{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}` + "\n",
			want:   []string{"codex: turn failed (thread t-1): stream disconnected before completion; stream disconnected"}},
		{name: "not signed in", provider: "codex", exit: 1, output: "Error: Not logged in. Run codex login\n",
			want: []string{"codex: exit status 1", "Not logged in"}},
		{name: "malformed", provider: "codex", output: "{\"type\":\"thread.sta\n<html>502</html>\n", want: []string{"printed no JSONL events"}},
		{name: "empty", provider: "codex", want: []string{"printed nothing"}},
		{name: "no JSON in the message", provider: "codex", output: codexOK("Sorry, I can't."), schema: true, want: []string{"holds no JSON object"}},
		{name: "nulls for optional properties", provider: "codex", output: codexOK(`{"summary":"s","facts":["f"],"note":null}`),
			wantJSON: `{"summary":"s","facts":["f"]}`},
		{name: "timeout", provider: "codex", hang: true, want: []string{"codex: no reply within 300ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.provider+"/"+tt.name, func(t *testing.T) {
			prog := map[string]string{"claude-code": "claude", "codex": "codex"}[tt.provider]
			dir := standIn(t, prog, tt.output)
			write(t, filepath.Join(dir, "exit-0"), strconv.Itoa(tt.exit))
			if tt.hang {
				write(t, filepath.Join(dir, "hang"), "")
			}
			timeout := time.Minute
			if tt.hang {
				timeout = 300 * time.Millisecond
			}
			var p Provider = NewClaudeCode(nil, "", timeout)
			if tt.provider == "codex" {
				p = NewCodex(nil, "", timeout)
			}
			reply, err := p.Complete(t.Context(), testRequest())
			if tt.wantJSON != "" {
				if err != nil || !jsonEqual(t, string(reply.JSON), tt.wantJSON) {
					t.Fatalf("got %s, %v; want %s", reply.JSON, err, tt.wantJSON)
				}
				return
			}
			var se *SchemaError
			if err == nil || !contains(err.Error(), tt.want...) || errors.As(err, &se) != tt.schema || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v (schema error: %v), want one line saying %q (schema error: %v)", err, errors.As(err, &se), tt.want, tt.schema)
			}
		})
	}
}

// TestAgentCLIMissing: a CLI that is not installed is named, with what to
// do about it.
func TestAgentCLIMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, p := range []Provider{NewClaudeCode(nil, "", time.Minute), NewCodex(nil, "", time.Minute),
		NewClaudeCode([]string{filepath.Join(t.TempDir(), "claude")}, "", time.Minute)} {
		_, err := p.Complete(t.Context(), testRequest())
		if err == nil || !contains(err.Error(), p.Name()+": ", "is not installed here", "llm.command") {
			t.Errorf("%s: got %v", p.Name(), err)
		}
	}
}

// TestStrictSchema checks the schema codex is given: what OpenAI's strict
// structured outputs accept, for the extraction the librarian asks for and
// the test schema, and that a strict reply checks against the original
// once its nulls are gone.
func TestStrictSchema(t *testing.T) {
	extraction, err := os.ReadFile(filepath.Join("..", "..", "librarian", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, schema := range map[string]string{"extraction": string(extraction), "test": testSchema} {
		t.Run(name, func(t *testing.T) {
			strict, err := strictSchema(json.RawMessage(schema))
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(strict, &v); err != nil {
				t.Fatal(err)
			}
			checkStrict(t, "#", v)
			if _, err := resolveSchema(strict); err != nil {
				t.Errorf("the strict schema does not resolve: %v", err)
			}
		})
	}
	rs, err := resolveSchema(json.RawMessage(extraction))
	if err != nil {
		t.Fatal(err)
	}
	reply := `{"episode":{"title":"t","request":"r","done":"d","outcome":"o","files":null,"commands":["go test ./..."]},
		"facts":[{"title":null,"text":"The index is SQLite FTS5.","why":null,"replaces":null,"evidence":{"message":3,"quote":"FTS5"}}],
		"preferences":[],"decisions":[],"people":[],"projects":[{"name":"ctx0","overview":null,"activity":"a","evidence":{"message":1,"quote":"q"}}],
		"milestones":[],"insights":[],"questions":[],"resolutions":[],"corrections":[]}`
	if problem := validate(rs, json.RawMessage(reply)); problem == "" {
		t.Fatal("a reply with nulls checks against the extraction schema; the test proves nothing")
	}
	clean, err := dropNulls(json.RawMessage(reply))
	if err != nil {
		t.Fatal(err)
	}
	if problem := validate(rs, clean); problem != "" {
		t.Errorf("without its nulls: %s", problem)
	}
}

// checkStrict fails for each part of schema v that strict structured
// outputs refuse.
func checkStrict(t *testing.T, at string, v any) {
	t.Helper()
	switch n := v.(type) {
	case []any:
		for i, sub := range n {
			checkStrict(t, fmt.Sprint(at, "/", i), sub)
		}
	case map[string]any:
		if _, ok := n["$ref"]; ok && len(n) > 1 {
			t.Errorf("%s: $ref with siblings: %v", at, n)
		}
		for _, k := range strictSchemaDrops {
			if _, ok := n[k]; ok {
				t.Errorf("%s: keyword %s is left", at, k)
			}
		}
		if props, ok := n["properties"].(map[string]any); ok {
			req, _ := n["required"].([]any)
			if len(req) != len(props) || n["additionalProperties"] != false {
				t.Errorf("%s: required %v of %d properties, additionalProperties %v", at, req, len(props), n["additionalProperties"])
			}
			for k, sub := range props {
				checkStrict(t, at+"/properties/"+k, sub)
			}
		}
		for k, sub := range n {
			if k != "properties" && k != "required" {
				checkStrict(t, at+"/"+k, sub)
			}
		}
	}
}

// FuzzAgentCLIOutput feeds anything to the parsers of what the CLIs print
// and to the schema rewriting: none may panic, a result object is one, the
// events are at most the lines, and a reply without nulls has none left.
func FuzzAgentCLIOutput(f *testing.F) {
	for _, seed := range []string{
		claudeOK(goodReply), codexOK(goodReply), testSchema, `{"type":"result"`, "Invalid API key\n", "",
		`{"a":null,"b":[{"c":null,"d":1}],"e":{"$ref":"#/x","description":"d"}}`,
		`{"type":"object","properties":{"x":{"type":"string","enum":["a"]}},"required":[]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		if res, err := parseClaudeResult(out); err == nil && res.Type != "result" {
			t.Errorf("parsed a %q as the result object", res.Type)
		}
		if o := parseCodexEvents(out); o.events > strings.Count(string(out), "\n")+1 {
			t.Errorf("%d events in %d lines", o.events, strings.Count(string(out), "\n")+1)
		}
		if s, err := strictSchema(out); err == nil && !json.Valid(s) {
			t.Errorf("strict schema is not JSON: %s", s)
		}
		if d, err := dropNulls(out); err == nil {
			var v any
			if err := json.Unmarshal(d, &v); err != nil || hasNullMember(v) {
				t.Errorf("dropNulls(%s) = %s, %v", out, d, err)
			}
		}
	})
}

func hasNullMember(v any) bool {
	switch n := v.(type) {
	case []any:
		for _, sub := range n {
			if hasNullMember(sub) {
				return true
			}
		}
	case map[string]any:
		for _, sub := range n {
			if sub == nil || hasNullMember(sub) {
				return true
			}
		}
	}
	return false
}
