package transcript

import (
	"testing"
	"time"
)

// cursorSession is a Cursor agent transcript in the shape Cursor writes:
// no times, no ids, the editor's context around the user's query, tool
// calls as tool_use blocks.
const cursorSession = `{"role":"user","message":{"content":[{"type":"text","text":"<timestamp>Tuesday, Jan 27</timestamp>\n<user_query>\nRun the tests and fix what fails.\n</user_query>"}]}}
{"role":"assistant","message":{"content":[{"type":"text","text":"Running the tests."},{"type":"tool_use","name":"Shell","input":{"command":"go test ./...","description":"run tests"}}]}}
{"role":"assistant","message":{"content":[{"type":"tool_use","name":"StrReplace","input":{"path":"/src/app/parse.go","old_string":"a","new_string":"b"}}]}}
{"role":"user","message":{"content":[{"type":"text","text":"<open_files>parse.go</open_files>"}]}}
{"role":"system","message":{"content":"x"}}
not json
{"role":"user","message":{"content":"Good. Commit it."}}
`

func TestCursorParse(t *testing.T) {
	name := "/h/.cursor/projects/src-app/agent-transcripts/3f1e.jsonl"
	if Detect(name, nil) != Cursor || Detect("/h/.cursor/projects/src-app/agent-transcripts/3f1e/3f1e.jsonl", nil) != Cursor {
		t.Fatal("Cursor transcript not detected by its folder")
	}
	st := State{Session: "3f1e", Time: time.Date(2026, 1, 27, 10, 0, 0, 0, time.UTC)}
	c := Parse(Cursor, []byte(cursorSession), 0, &st, false)
	type msg struct {
		role  Role
		text  string
		tools string
	}
	want := []msg{
		{User, "Run the tests and fix what fails.", ""},
		{Assistant, "Running the tests.", "Shell command go test ./..."},
		{Assistant, "", "StrReplace write /src/app/parse.go"},
		{User, "Good. Commit it.", ""},
	}
	if len(c.Messages) != len(want) {
		t.Fatalf("got %d messages %+v", len(c.Messages), c.Messages)
	}
	for i, m := range c.Messages {
		tools := ""
		for _, tl := range m.Tools {
			tools = tl.Name + " " + string(tl.Kind) + " " + tl.Target
		}
		if got := (msg{m.Role, m.Text, tools}); got != want[i] || m.Session != "3f1e" || !m.Time.Equal(st.Time) {
			t.Errorf("message %d = %+v (%s %v), want %+v", i, got, m.Session, m.Time, want[i])
		}
	}
	if c.Skipped["malformed"] != 2 || c.Skipped["injected"] != 1 {
		t.Errorf("skipped %v", c.Skipped)
	}
}

// TestCursorMarkers: lines of the shapes Cursor 2026.08 writes besides the
// conversation (the real transcript in testdata/cursor has them): a marker
// at the end of each turn, which is counted by its type and is not a
// broken line, "[REDACTED]" where Cursor withholds text, which is left
// out of what the assistant said, and the prompt Cursor writes as the
// user's when a background task ends, which is not the person's.
func TestCursorMarkers(t *testing.T) {
	const lines = `{"role":"user","message":{"content":[{"type":"text","text":"<timestamp>Tuesday, May 5, 2026, 3:52 PM (UTC+6)</timestamp>\n<system_notification>\nThe following task has finished.\n<task>\nkind: shell\nstatus: error\n</task>\n</system_notification>\n<user_query>Briefly inform the user about the task result and perform any follow-up actions (if needed).</user_query>"}]}}
{"role":"assistant","message":{"content":[{"type":"text","text":"Checking the repo first.\n\n[REDACTED]"},{"type":"tool_use","name":"Grep","input":{"pattern":"CLAUDE\\.md","path":"/src/app"}}]}}
{"role":"assistant","message":{"content":[{"type":"text","text":"[REDACTED]"},{"type":"tool_use","name":"Glob","input":{"glob_pattern":"**/AGENTS.md","target_directory":"/src/app"}}]}}
{"type":"turn_ended","status":"success"}
{"role":"assistant","message":{"content":[{"type":"text","text":"[REDACTED]"}]}}
{"type":"turn_ended","status":"error","error":"You've hit your usage limit."}
`
	st := State{Session: "3f1e", Time: time.Date(2026, 8, 13, 3, 31, 22, 0, time.UTC)}
	c := Parse(Cursor, []byte(lines), 0, &st, false)
	type msg struct{ text, tools string }
	want := []msg{
		{"Checking the repo first.", "Grep search CLAUDE\\.md in /src/app"},
		{"", "Glob search **/AGENTS.md in /src/app"},
	}
	if len(c.Messages) != len(want) {
		t.Fatalf("got %d messages %+v, want %d", len(c.Messages), c.Messages, len(want))
	}
	for i, m := range c.Messages {
		tools := ""
		for _, tl := range m.Tools {
			tools = tl.Name + " " + string(tl.Kind) + " " + tl.Target
		}
		if got := (msg{m.Text, tools}); got != want[i] {
			t.Errorf("message %d = %+v, want %+v", i, got, want[i])
		}
	}
	if c.Skipped["turn_ended"] != 2 || c.Skipped["withheld_by_cursor"] != 3 || c.Skipped["injected"] != 1 || c.Skipped["malformed"] != 0 {
		t.Errorf("skipped %v, want 2 turn_ended, 3 withheld_by_cursor, 1 injected (Cursor's own prompt), none malformed", c.Skipped)
	}
}

func FuzzCursorLine(f *testing.F) {
	fuzzLines(f, Cursor, `{"role":"user","message":{"content":[{"type":"text","text":"<user_query>hi</user_query>"}]}}`,
		`{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"path":"a"}}]}}`)
}
