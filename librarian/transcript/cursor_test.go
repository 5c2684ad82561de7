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

func FuzzCursorLine(f *testing.F) {
	fuzzLines(f, Cursor, `{"role":"user","message":{"content":[{"type":"text","text":"<user_query>hi</user_query>"}]}}`,
		`{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"path":"a"}}]}}`)
}
