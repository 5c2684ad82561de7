package transcript

import (
	"strings"
	"testing"
)

// geminiSession is a Gemini CLI session file in the JSONL shape of
// gemini-cli 0.56 (chatRecordingService.ts): metadata, a user message, the
// model's message written three times as it changes (text, then tokens,
// then its tool calls as they finish), a notice, a metadata update, a
// rewind and a message after it.
const geminiSession = `{"sessionId":"5f1c2a9e-3b7d-4e21-9c0a-8d6e4f2b1a37","projectHash":"0e5b1c","startTime":"2026-01-28T09:50:00.000Z","lastUpdated":"2026-01-28T09:50:00.000Z","kind":"main"}
{"id":"u1","timestamp":"2026-01-28T09:50:01.000Z","type":"user","content":[{"text":"Run the tests; the token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 if needed."}]}
{"id":"g1","timestamp":"2026-01-28T09:50:05.000Z","type":"gemini","content":"I'll run the tests.","thoughts":[{"subject":"Plan","description":"run go test","timestamp":"2026-01-28T09:50:04.000Z"}],"model":"gemini-3-pro"}
{"id":"g1","timestamp":"2026-01-28T09:50:05.000Z","type":"gemini","content":"I'll run the tests.","thoughts":[],"tokens":{"input":10,"output":5,"cached":0,"total":15},"model":"gemini-3-pro"}
{"id":"g1","timestamp":"2026-01-28T09:50:05.000Z","type":"gemini","content":"I'll run the tests.","toolCalls":[{"id":"run_shell_command-1","name":"run_shell_command","args":{"command":"go test ./..."},"result":[{"functionResponse":{"id":"run_shell_command-1","name":"run_shell_command","response":{"output":"--- FAIL: TestParse"}}}],"status":"error","timestamp":"2026-01-28T09:50:30.000Z"},{"id":"read_file-2","name":"read_file","args":{"file_path":"/src/app/parse.go"},"status":"success","timestamp":"2026-01-28T09:50:31.000Z"}],"model":"gemini-3-pro"}
{"id":"i1","timestamp":"2026-01-28T09:50:32.000Z","type":"info","content":"Request cancelled."}
{"$set":{"lastUpdated":"2026-01-28T09:50:32.000Z"}}
{"$rewindTo":"i1"}
not json
{"id":"u2","timestamp":"2026-01-28T09:51:00.000Z","type":"user","content":"Good. Commit it."}
{"id":"h1","timestamp":"2026-01-28T09:51:01.000Z","type":"user","content":[{"text":"<hook_context><memory>\nctx0's own block\n</memory></hook_context>"}]}
{"id":"u3","timestamp":"2026-01-28T09:51:02.000Z","type":"user","content":[{"text":"Explain @parse.go"},{"text":"\n--- Content from referenced files ---\npackage parse"}],"displayContent":"Explain @parse.go"}
`

func TestGeminiParse(t *testing.T) {
	var st State
	c := Parse(Gemini, []byte(geminiSession), 0, &st, false)
	if c.Used != len(geminiSession) {
		t.Errorf("used %d of %d bytes", c.Used, len(geminiSession))
	}
	type msg struct {
		role  Role
		text  string
		tools string
	}
	var got []msg
	for _, m := range c.Messages {
		var tools []string
		for _, tl := range m.Tools {
			tools = append(tools, tl.ID+" "+string(tl.Kind)+" "+tl.Target)
		}
		if m.Session != "5f1c2a9e-3b7d-4e21-9c0a-8d6e4f2b1a37" || m.Time.IsZero() {
			t.Errorf("message %+v: session or time missing", m)
		}
		got = append(got, msg{m.Role, m.Text, strings.Join(tools, ",")})
	}
	want := []msg{
		{User, "Run the tests; the token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 if needed.", ""},
		{Assistant, "I'll run the tests.", ""},
		// The same message written again adds its tool calls, once each.
		{Assistant, "I'll run the tests.", ""},
		{Assistant, "I'll run the tests.", ""},
		{Assistant, "", "run_shell_command-1 command go test ./..."},
		{Assistant, "", "read_file-2 read /src/app/parse.go"},
		{User, "Good. Commit it.", ""},
		{User, "Explain @parse.go", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d messages %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("message %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	// Messages written again keep their position: stored once.
	pos := map[int64]int{}
	for _, m := range c.Messages {
		pos[m.Pos]++
	}
	if len(pos) != 6 {
		t.Errorf("%d distinct positions, want 6: %v", len(pos), pos)
	}
	if c.Outcomes["run_shell_command-1"] != Failed || len(c.Outcomes) != 1 {
		t.Errorf("outcomes %v", c.Outcomes)
	}
	for k, n := range map[string]int{"malformed": 1, "info": 1, "rewind": 1, "metadata": 1, "session_meta": 1, "thinking": 1, "injected": 1} {
		if c.Skipped[k] != n {
			t.Errorf("skipped[%s] = %d, want %d (all: %v)", k, c.Skipped[k], n, c.Skipped)
		}
	}
}

// TestGeminiLegacyDocument reads a session in the legacy shape, one JSON
// document written over whole, and waits for one that is cut short.
func TestGeminiLegacyDocument(t *testing.T) {
	doc := "{\n  \"sessionId\": \"s1\",\n  \"projectHash\": \"0e5b1c\",\n  \"startTime\": \"2026-01-28T09:50:00.000Z\",\n  \"messages\": [\n    {\"id\": \"u1\", \"timestamp\": \"2026-01-28T09:50:01.000Z\", \"type\": \"user\", \"content\": \"Hello\"},\n    {\"id\": \"g1\", \"timestamp\": \"2026-01-28T09:50:02.000Z\", \"type\": \"gemini\", \"content\": \"Hi.\", \"toolCalls\": [{\"id\": \"t1\", \"name\": \"write_file\", \"args\": {\"file_path\": \"a.go\"}, \"status\": \"cancelled\"}]}\n  ]\n}\n"
	if Detect("/h/.gemini/tmp/0e5b1c/chats/session-2026-01-28T09-50-s1.json", []byte("{\n")) != Gemini {
		t.Error("legacy file not detected")
	}
	var st State
	c := Parse(Gemini, []byte(doc), 0, &st, false)
	if c.Used != len(doc) || len(c.Messages) != 3 || c.Outcomes["t1"] != Rejected || st.Session != "s1" {
		t.Errorf("used %d, messages %+v, outcomes %v, session %q", c.Used, c.Messages, c.Outcomes, st.Session)
	}
	st = State{}
	if c := Parse(Gemini, []byte(doc[:len(doc)/2]), 0, &st, false); c.Used != 0 || len(c.Messages) != 0 {
		t.Errorf("half a document: used %d, %d messages", c.Used, len(c.Messages))
	}
}

func TestGeminiDetect(t *testing.T) {
	first, _, _ := strings.Cut(geminiSession, "\n")
	if got := Detect("/h/.gemini/tmp/0e5b1c/chats/session-2026-01-28T09-50-5f1c2a9e.jsonl", []byte(first)); got != Gemini {
		t.Errorf("Detect = %s", got)
	}
}

// FuzzGeminiLine: the parser never panics, and reading a file in two
// pieces, the first cut anywhere and still being written, gives the
// messages (by position) and outcomes reading it whole gives.
func FuzzGeminiLine(f *testing.F) {
	f.Add([]byte(geminiSession), len(geminiSession)/2)
	f.Add([]byte("{\n\"sessionId\":\"s\"}\n"), 3)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		var st State
		whole := Parse(Gemini, data, 0, &st, true)
		if whole.Used < 0 || whole.Used > len(data) {
			t.Fatalf("used %d of %d bytes", whole.Used, len(data))
		}
		for _, m := range whole.Messages {
			if m.Time.IsZero() || m.Pos < 0 {
				t.Fatalf("message %+v: no time or a negative position", m)
			}
		}
		if cut <= 0 || cut > len(data) || geminiDocument(data) {
			return
		}
		var st2 State
		first := Parse(Gemini, data[:cut], 0, &st2, false)
		second := Parse(Gemini, data[first.Used:], int64(first.Used), &st2, true)
		got := map[int64]bool{}
		for _, m := range append(first.Messages, second.Messages...) {
			got[m.Pos] = true
		}
		want := map[int64]bool{}
		for _, m := range whole.Messages {
			want[m.Pos] = true
		}
		if first.Used+second.Used != whole.Used || len(got) != len(want) ||
			!equalOutcomes(mergeOutcomes(first.Outcomes, second.Outcomes), mergeOutcomes(whole.Outcomes)) {
			t.Fatalf("two pieces (cut %d) read %d bytes, %d positions; whole read %d bytes, %d positions",
				cut, first.Used+second.Used, len(got), whole.Used, len(want))
		}
	})
}
