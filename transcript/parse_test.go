package transcript

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files from the actual output")

// sessionFiles are the real published session files in testdata (see each
// folder's SOURCES.md), by the source they come from.
func sessionFiles(t testing.TB) map[string]Source {
	t.Helper()
	files := map[string]Source{}
	for pattern, src := range map[string]Source{"claude-code/*.jsonl": ClaudeCode, "codex/*.jsonl": Codex, "gemini/chats/session-*": Gemini, "cursor/agent-transcripts/*.jsonl": Cursor} {
		dir := filepath.Dir(pattern)
		names, err := filepath.Glob(filepath.Join("testdata", pattern))
		if err != nil || len(names) == 0 {
			t.Fatalf("no session files in testdata/%s (%v)", dir, err)
		}
		for _, n := range names {
			files[n] = src
		}
	}
	return files
}

// startState is the state a session file's first read starts from. A
// Cursor transcript records no session id and no time, so it gets what
// ingestion gives it: the session from the file's name and, for the time,
// a fixed stand-in for the file's modification time.
func startState(name string, src Source) State {
	if src != Cursor {
		return State{}
	}
	return State{
		Session: strings.TrimSuffix(filepath.Base(name), ".jsonl"),
		Time:    time.Date(2026, 8, 13, 3, 31, 22, 0, time.UTC),
	}
}

// TestGolden parses every session file whole and compares the messages,
// the skipped counts and the final state with its golden file.
func TestGolden(t *testing.T) {
	for name, src := range sessionFiles(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := bytes.Cut(data, []byte("\n"))
			if got := Detect(name, first); got != src {
				t.Errorf("Detect = %s, want %s", got, src)
			}
			// A legacy Gemini document and a Cursor transcript are known by
			// their file's name and folder alone.
			if got := Detect("session.jsonl", first); got != src && !WholeFile(name) && !CursorFile(name) {
				t.Errorf("Detect by the first line alone = %s, want %s", got, src)
			}
			st := startState(name, src)
			c := Parse(src, data, 0, &st, true)
			Mark(c.Messages, c.Outcomes)
			if c.Used != len(data) {
				t.Errorf("used %d of %d bytes", c.Used, len(data))
			}
			if c.Skipped["malformed"] != 0 {
				t.Errorf("%d malformed lines in a real transcript", c.Skipped["malformed"])
			}
			var out bytes.Buffer
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(false)
			for _, m := range c.Messages {
				if err := enc.Encode(m); err != nil {
					t.Fatal(err)
				}
			}
			if err := enc.Encode(map[string]any{"skipped": c.Skipped, "state": st, "outcomes": mergeOutcomes(c.Outcomes)}); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", string(src), filepath.Base(name)+".golden"), out.Bytes(), *update)
		})
	}
}

// TestRender renders a whole Claude Code session in a time zone with
// daylight saving, across days and gaps.
func TestRender(t *testing.T) {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	for _, name := range []string{"claude-code/kiliman-test2-v1.0.57.jsonl", "codex/rollout-2025-11-12T17-48-11-019a7ae6-1945-7c63-98f2-210adb922af9.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := bytes.Cut(data, []byte("\n"))
		var st State
		c := Parse(Detect(name, first), data, 0, &st, true)
		Mark(c.Messages, c.Outcomes)
		var out bytes.Buffer
		if err := Render(&out, c.Messages, loc); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "golden", name+".txt"), out.Bytes(), *update)
	}
}

// TestPieces: a file read in pieces of any size, each starting where the
// last one's complete lines ended, gives exactly the messages and the
// outcomes of one read of the whole file. This is what incremental
// ingestion relies on.
func TestPieces(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for name, src := range sessionFiles(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		whole := startState(name, src)
		want := Parse(src, data, 0, &whole, true)
		for round := range 5 {
			st := startState(name, src)
			var got []Message
			skipped := Skipped{}
			outcomes := map[string]Outcome{}
			off := 0
			for end := 0; off < len(data); {
				// The file as a writer has written it so far.
				end = min(len(data), end+1+r.IntN(64<<10))
				c := Parse(src, data[off:end], int64(off), &st, end == len(data))
				got = append(got, c.Messages...)
				skipped.Add(c.Skipped)
				outcomes = mergeOutcomes(outcomes, c.Outcomes)
				off += c.Used
				if end == len(data) && c.Used == 0 {
					break
				}
			}
			if off != len(data) {
				t.Errorf("%s round %d: stopped at %d of %d bytes", name, round, off, len(data))
			}
			if !reflect.DeepEqual(got, want.Messages) || !reflect.DeepEqual(skipped, want.Skipped) || !equalOutcomes(outcomes, want.Outcomes) || st != whole {
				t.Errorf("%s round %d: pieces give %d messages %v, the whole file %d messages %v", name, round, len(got), skipped, len(want.Messages), want.Skipped)
			}
		}
	}
}

func TestPartialLastLine(t *testing.T) {
	const a = `{"type":"user","sessionId":"s","timestamp":"2026-01-28T10:00:00Z","message":{"role":"user","content":"first"}}`
	const b = `{"type":"user","sessionId":"s","timestamp":"2026-01-28T10:01:00Z","message":{"role":"user","content":"second"}}`
	tests := []struct {
		name     string
		data     string
		final    bool
		used     int
		messages int
		skipped  Skipped
	}{
		{"half a line waits", a + "\n" + b[:40], false, len(a) + 1, 1, Skipped{}},
		{"a whole line without its newline waits", a + "\n" + b, false, len(a) + 1, 1, Skipped{}},
		{"a whole line without its newline is read at the end", a + "\n" + b, true, len(a) + 1 + len(b), 2, Skipped{}},
		{"half a line at the end is broken", a + "\n" + b[:40], true, len(a) + 41, 1, Skipped{"malformed": 1}},
		{"a broken line is counted and passed", "{not json\n" + a + "\n", false, len("{not json\n") + len(a) + 1, 1, Skipped{"malformed": 1}},
		{"blank lines and CRLF", "\n\r\n" + a + "\r\n", false, len(a) + 5, 1, Skipped{}},
		{"empty", "", true, 0, 0, Skipped{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var st State
			c := Parse(ClaudeCode, []byte(tt.data), 100, &st, tt.final)
			if c.Used != tt.used || len(c.Messages) != tt.messages || !reflect.DeepEqual(c.Skipped, tt.skipped) {
				t.Errorf("used %d, %d messages, skipped %v; want %d, %d, %v", c.Used, len(c.Messages), c.Skipped, tt.used, tt.messages, tt.skipped)
			}
			if len(c.Messages) > 0 && c.Messages[0].Pos < 100 {
				t.Errorf("pos %d does not count from the piece's offset", c.Messages[0].Pos)
			}
		})
	}
}

// TestClaudeLines covers line shapes the published files lack.
func TestClaudeLines(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    *Message
		skipped string
	}{
		{
			name: "bash mode input",
			line: `{"type":"user","timestamp":"2026-01-28T10:00:00Z","message":{"role":"user","content":"<bash-input>git status</bash-input>"}}`,
			want: &Message{Role: User, Text: "! git status"},
		},
		{
			name:    "bash mode output",
			line:    `{"type":"user","timestamp":"2026-01-28T10:00:00Z","message":{"role":"user","content":"<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>"}}`,
			skipped: "command_output",
		},
		{
			name: "slash command with arguments",
			line: `{"type":"user","timestamp":"2026-01-28T10:00:00Z","message":{"role":"user","content":"<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>PR 42</command-args>"}}`,
			want: &Message{Role: User, Text: "/review PR 42"},
		},
		{
			name: "reminder inside a prompt",
			line: `{"type":"user","timestamp":"2026-01-28T10:00:00Z","message":{"role":"user","content":"fix the test<system-reminder>Todo list is empty</system-reminder>"}}`,
			want: &Message{Role: User, Text: "fix the test"},
		},
		{
			name: "text and tool use in one line",
			line: `{"type":"assistant","timestamp":"2026-01-28T10:00:00Z","message":{"role":"assistant","content":[{"type":"text","text":"Running the tests."},{"type":"tool_use","name":"Bash","input":{"command":"go test ./...\necho done"}},{"type":"tool_use","name":"Grep","input":{"pattern":"TODO","path":"src"}}]}}`,
			want: &Message{Role: Assistant, Text: "Running the tests.", Tools: []Tool{{Name: "Bash", Kind: Command, Target: "go test ./... …"}, {Name: "Grep", Kind: Search, Target: "TODO in src"}}},
		},
		{
			name: "mcp tool",
			line: `{"type":"assistant","timestamp":"2026-01-28T10:00:00Z","message":{"role":"assistant","content":[{"type":"tool_use","name":"mcp__ctx0__remember","input":{"text":"x"}}]}}`,
			want: &Message{Role: Assistant, Tools: []Tool{{Name: "mcp__ctx0__remember", Kind: Other}}},
		},
		{
			name:    "a future line type",
			line:    `{"type":"hologram","timestamp":"2026-01-28T10:00:00Z"}`,
			skipped: "hologram",
		},
		{
			name:    "no type",
			line:    `{"message":"hello"}`,
			skipped: "malformed",
		},
		{
			name:    "content of the wrong type",
			line:    `{"type":"user","timestamp":"2026-01-28T10:00:00Z","message":{"role":"user","content":42}}`,
			skipped: "malformed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var st State
			c := Parse(ClaudeCode, []byte(tt.line+"\n"), 0, &st, false)
			if tt.want == nil {
				if len(c.Messages) != 0 || c.Skipped[tt.skipped] != 1 {
					t.Errorf("got %+v, skipped %v; want it skipped as %s", c.Messages, c.Skipped, tt.skipped)
				}
				return
			}
			tt.want.Time = time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)
			if len(c.Messages) != 1 || !reflect.DeepEqual(c.Messages[0], *tt.want) {
				t.Errorf("got %+v (skipped %v)\nwant %+v", c.Messages, c.Skipped, *tt.want)
			}
		})
	}
}

func TestSessionLog(t *testing.T) {
	const doc = `{
		"sessionId": "bot0-42", "agent": "bot0", "startedAt": 1769594400000,
		"context": {"workingDir": "/src/app", "project": "app", "user": "sam"},
		"messages": [
			{"role": "user", "content": "Deploy the staging branch."},
			{"role": "assistant", "content": [{"type": "text", "text": "Deployed."}], "timestamp": "2026-01-28T10:05:00Z"},
			{"role": "system", "content": "You are bot0."}
		],
		"toolCalls": [{"tool": "read_file", "input": {"path": "deploy.yaml"}, "timestamp": 1769594460000}],
		"filesRead": [{"path": "deploy.yaml", "timestamp": 1769594460000}],
		"filesWritten": [{"path": "notes.md", "content": "…", "timestamp": 1769594470000}]
	}`
	lg, err := ParseSessionLog([]byte(doc), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time { tm, _ := time.Parse(time.RFC3339, s); return tm }
	want := []Message{
		{Role: User, Text: "Deploy the staging branch.", Time: at("2026-01-28T10:00:00Z")},
		{Role: Assistant, Text: "Deployed.", Time: at("2026-01-28T10:05:00Z")},
		{Role: Assistant, Tools: []Tool{{Name: "read_file", Kind: Read, Target: "deploy.yaml"}}, Time: at("2026-01-28T10:01:00Z")},
		{Role: Assistant, Tools: []Tool{{Name: "write_file", Kind: Write, Target: "notes.md"}}, Time: at("2026-01-28T10:01:10Z")},
	}
	if lg.Session != "bot0-42" || lg.Agent != "bot0" || lg.CWD != "/src/app" || lg.Project != "app" || lg.Skipped["system_message"] != 1 {
		t.Errorf("got %+v", lg)
	}
	if len(lg.Messages) != len(want) {
		t.Fatalf("got %d messages, want %d: %+v", len(lg.Messages), len(want), lg.Messages)
	}
	for i, m := range lg.Messages {
		w := want[i]
		w.Pos, w.Session, w.CWD = m.Pos, "bot0-42", "/src/app"
		if !reflect.DeepEqual(m, w) {
			t.Errorf("message %d: got %+v, want %+v", i, m, w)
		}
	}
	again, _ := ParseSessionLog([]byte(doc), time.Time{})
	if again.Messages[0].Pos != lg.Messages[0].Pos || lg.Messages[0].Pos == lg.Messages[1].Pos {
		t.Errorf("positions are not content hashes: %d %d %d", lg.Messages[0].Pos, again.Messages[0].Pos, lg.Messages[1].Pos)
	}
	if _, err := ParseSessionLog([]byte(`{"messages": []}`), time.Time{}); err != ErrNoSession {
		t.Errorf("no sessionId: err %v, want ErrNoSession", err)
	}
	if _, err := ParseSessionLog([]byte(`[`), time.Time{}); err == nil {
		t.Error("broken JSON: no error")
	}
}

// TestOutcomes: what a tool's result says about how it ended, in each
// shape the sources use, read in one piece with the call before it.
func TestOutcomes(t *testing.T) {
	const claudeResult = `{"type":"user","timestamp":"2026-01-28T10:00:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1",%s}]}}`
	const codexResult = `{"timestamp":"2026-01-28T10:00:01Z","type":"response_item","payload":{"type":"%s","call_id":"c1","output":%s}}`
	tests := []struct {
		name   string
		src    Source
		result string
		want   Outcome
	}{
		{"claude: success", ClaudeCode, fmt.Sprintf(claudeResult, `"content":"ok"`), ""},
		{"claude: is_error false", ClaudeCode, fmt.Sprintf(claudeResult, `"is_error":false,"content":"ok"`), ""},
		{"claude: a failed command", ClaudeCode, fmt.Sprintf(claudeResult, `"is_error":true,"content":"Exit code 1\nFAIL"`), Failed},
		{"claude: an error in text blocks", ClaudeCode, fmt.Sprintf(claudeResult, `"is_error":true,"content":[{"type":"text","text":"String to replace not found in file."}]`), Failed},
		{"claude: declined", ClaudeCode, fmt.Sprintf(claudeResult, `"is_error":true,"content":"The user doesn't want to proceed with this tool use. The tool use was rejected."`), Rejected},
		{"claude: stopped at the time limit", ClaudeCode, fmt.Sprintf(claudeResult, `"is_error":true,"content":"Command timed out after 5s Server listening on 8080"`), TimedOut},
		{"claude: interrupted", ClaudeCode, fmt.Sprintf(claudeResult, `"is_error":true,"content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]`), Rejected},
		{"codex: exit code 0", Codex, fmt.Sprintf(codexResult, "function_call_output", `"{\"output\":\"ok\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}"`), ""},
		{"codex: exit code 124", Codex, fmt.Sprintf(codexResult, "function_call_output", `"{\"output\":\"\",\"metadata\":{\"exit_code\":124}}"`), Failed},
		{"codex: timed out", Codex, fmt.Sprintf(codexResult, "function_call_output", `"{\"output\":\"Total output lines: 9\\n\\ncommand timed out after 1013 milliseconds\\nx\",\"metadata\":{\"exit_code\":124}}"`), TimedOut},
		{"codex: exec_command exited 0", Codex, fmt.Sprintf(codexResult, "function_call_output", `"Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\nProcess exited with code 1\n"`), ""},
		{"codex: exec_command exited 1", Codex, fmt.Sprintf(codexResult, "function_call_output", `"Chunk ID: 1\nProcess exited with code 1\nOutput:\nsed: x: No such file or directory\n"`), Failed},
		{"codex: failed in the sandbox", Codex, fmt.Sprintf(codexResult, "function_call_output", `"failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 2, stdout: , stderr: x"`), Failed},
		{"codex: declined", Codex, fmt.Sprintf(codexResult, "function_call_output", `"exec command rejected by user"`), Rejected},
		{"codex: a tool's message", Codex, fmt.Sprintf(codexResult, "function_call_output", `"Plan updated"`), ""},
		{"codex: a patch applied", Codex, fmt.Sprintf(codexResult, "custom_tool_call_output", `"{\"output\":\"Success.\",\"metadata\":{\"exit_code\":0}}"`), ""},
		{"codex: output as an array", Codex, fmt.Sprintf(codexResult, "function_call_output", `[{"type":"input_text","text":"x"}]`), ""},
	}
	calls := map[Source]string{
		ClaudeCode: `{"type":"assistant","timestamp":"2026-01-28T10:00:00Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]}}`,
		Codex:      `{"timestamp":"2026-01-28T10:00:00Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"make\"]}","call_id":"c1"}}`,
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var st State
			call := Parse(tt.src, []byte(calls[tt.src]+"\n"), 0, &st, false)
			result := Parse(tt.src, []byte(tt.result+"\n"), int64(len(calls[tt.src])+1), &st, false)
			if len(call.Messages) != 1 || len(result.Messages) != 0 {
				t.Fatalf("got %d messages for the call and %d for the result, want 1 and 0", len(call.Messages), len(result.Messages))
			}
			Mark(call.Messages, result.Outcomes)
			if got := call.Messages[0].Tools[0].Outcome; got != tt.want {
				t.Errorf("outcome %q, want %q (outcomes %v)", got, tt.want, result.Outcomes)
			}
			if n := result.Skipped["tool_result"] + result.Skipped["function_call_output"] + result.Skipped["custom_tool_call_output"]; n != 1 {
				t.Errorf("skipped %v: the result's output is left out and counted once", result.Skipped)
			}
		})
	}
}
