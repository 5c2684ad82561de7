package transcript

import (
	"reflect"
	"testing"
	"time"
)

// fuzzLines checks a line parser: it never panics, every message it emits
// has its line's position and a time, and reading the data in two pieces,
// the first cut anywhere and still being written, gives what reading it
// whole gives.
func fuzzLines(f *testing.F, src Source, seeds ...string) {
	f.Add([]byte(""), 0)
	for _, s := range seeds {
		f.Add([]byte(s+"\n"), len(s)/2)
	}
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		var st State
		whole := Parse(src, data, 7, &st, true)
		if whole.Used < 0 || whole.Used > len(data) {
			t.Fatalf("used %d of %d bytes", whole.Used, len(data))
		}
		for _, m := range whole.Messages {
			if m.Pos < 7 || m.Pos >= 7+int64(len(data)) || m.Time.IsZero() {
				t.Fatalf("message %+v: position or time out of place", m)
			}
		}
		if cut < 0 || cut > len(data) {
			return
		}
		var st2 State
		first := Parse(src, data[:cut], 7, &st2, false)
		second := Parse(src, data[first.Used:], 7+int64(first.Used), &st2, true)
		got := append(first.Messages, second.Messages...)
		if first.Used+second.Used != whole.Used || !equalMessages(got, whole.Messages) {
			t.Fatalf("two pieces (cut %d) read %d bytes, %d messages; whole read %d bytes, %d messages",
				cut, first.Used+second.Used, len(got), whole.Used, len(whole.Messages))
		}
	})
}

func equalMessages(a, b []Message) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func FuzzClaudeLine(f *testing.F) {
	fuzzLines(f, ClaudeCode,
		`{"type":"user","sessionId":"s","cwd":"/x","timestamp":"2026-01-28T10:00:00Z","message":{"role":"user","content":"hi <command-name>/x</command-name>"}}`,
		`{"type":"assistant","timestamp":"2026-01-28T10:00:00Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","name":"Read","input":{"file_path":"a.go"}}]}}`,
		`{"type":"user","isSidechain":true,"timestamp":"2026-01-28T10:00:00Z","message":{"role":"user","content":[{"type":"tool_result","content":"x"}]}}`,
	)
}

func FuzzCodexLine(f *testing.F) {
	fuzzLines(f, Codex,
		`{"timestamp":"2026-01-28T10:00:00.000Z","type":"session_meta","payload":{"id":"s","cwd":"/x","git":{"repository_url":"git@h:o/r.git"}}}`,
		`{"timestamp":"2026-01-28T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context><cwd>/y</cwd></environment_context>"},{"type":"input_text","text":"hi"}]}}`,
		`{"timestamp":"2026-01-28T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"apply_patch\",\"*** Begin Patch\\n*** Add File: a.go\\n\"]}","call_id":"c"}}`,
		`{"id":"s","timestamp":"2026-01-28T10:00:00Z","instructions":null,"git":null}`,
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}`,
	)
}

// FuzzSessionLog: any document either fails with an error or gives
// messages that all have a time and a content position.
func FuzzSessionLog(f *testing.F) {
	f.Add([]byte(`{"sessionId":"s","startedAt":1769594400000,"messages":[{"role":"user","content":"hi"}],"toolCalls":[{"tool":"bash","input":{"command":"ls"}}]}`))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		lg, err := ParseSessionLog(data, time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC))
		if err != nil {
			return
		}
		for _, m := range lg.Messages {
			if m.Time.IsZero() || m.Pos < 0 || m.Session != lg.Session {
				t.Fatalf("message %+v of session %q", m, lg.Session)
			}
		}
	})
}
