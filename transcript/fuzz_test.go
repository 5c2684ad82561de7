package transcript

import (
	"reflect"
	"testing"
	"time"
)

// fuzzLines checks a line parser: it never panics, every message it emits
// has its line's position and a time, and reading the data in two pieces,
// the first cut anywhere and still being written, gives what reading it
// whole gives: the same messages and the same outcomes, a result in the
// second piece answering a call in the first.
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
		outcomes := mergeOutcomes(first.Outcomes, second.Outcomes)
		if first.Used+second.Used != whole.Used || !equalMessages(got, whole.Messages) || !equalOutcomes(outcomes, whole.Outcomes) {
			t.Fatalf("two pieces (cut %d) read %d bytes, %d messages; whole read %d bytes, %d messages",
				cut, first.Used+second.Used, len(got), whole.Used, len(whole.Messages))
		}
	})
}

// mergeOutcomes gathers the outcomes of pieces read in order: a later
// result for the same call wins, as it does within one piece.
func mergeOutcomes(pieces ...map[string]Outcome) map[string]Outcome {
	all := map[string]Outcome{}
	for _, p := range pieces {
		for id, o := range p {
			all[id] = o
		}
	}
	return all
}

func equalOutcomes(a, b map[string]Outcome) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
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
		`{"type":"assistant","timestamp":"2026-01-28T10:00:00Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test"}}]}}`+"\n"+
			`{"type":"user","timestamp":"2026-01-28T10:00:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Exit code 1\nFAIL"}]}}`,
		`{"type":"user","timestamp":"2026-01-28T10:00:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":[{"type":"text","text":"The user doesn't want to proceed with this tool use."}]}]}}`,
	)
}

func FuzzCodexLine(f *testing.F) {
	fuzzLines(f, Codex,
		`{"timestamp":"2026-01-28T10:00:00.000Z","type":"session_meta","payload":{"id":"s","cwd":"/x","git":{"repository_url":"git@h:o/r.git"}}}`,
		`{"timestamp":"2026-01-28T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context><cwd>/y</cwd></environment_context>"},{"type":"input_text","text":"hi"}]}}`,
		`{"timestamp":"2026-01-28T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"apply_patch\",\"*** Begin Patch\\n*** Add File: a.go\\n\"]}","call_id":"c"}}`,
		`{"id":"s","timestamp":"2026-01-28T10:00:00Z","instructions":null,"git":null}`,
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}`,
		`{"timestamp":"2026-01-28T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"make\"]}","call_id":"c1"}}`+"\n"+
			`{"timestamp":"2026-01-28T10:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"\",\"metadata\":{\"exit_code\":2}}"}}`,
		`{"timestamp":"2026-01-28T10:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Chunk ID: 1\nProcess exited with code 1\nOutput:\nno such file"}}`,
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
