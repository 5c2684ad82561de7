package transcript

import (
	"bufio"
	"io"
	"strings"
	"time"
)

// Render writes msgs as a transcript for people and for the librarian's
// prompt, in loc's time: a line with the date whenever the day changes, then
// each message as "[3:04 PM] User: …". A tool use goes on a line of its own
// under the assistant's text, "  → Bash: go test ./...", with "(failed)",
// "(rejected)" or "(timed out)" after a call that did not go through.
func Render(w io.Writer, msgs []Message, loc *time.Location) error {
	bw := bufio.NewWriter(w)
	var day string
	var prev *Message
	for i := range msgs {
		m := &msgs[i]
		t := m.Time.In(loc)
		if d := t.Format("Monday, 2 January 2006"); d != day {
			if day != "" {
				bw.WriteString("\n")
			}
			bw.WriteString("── " + d + " ──\n")
			day = d
			prev = nil
		}
		// A tool use right after the assistant spoke belongs under it.
		continued := m.Text == "" && prev != nil && prev.Role == m.Role
		if !continued {
			bw.WriteString("[" + t.Format("3:04 PM") + "] " + speaker(m.Role) + ":")
			if m.Text != "" {
				bw.WriteString(" " + strings.TrimSpace(m.Text))
			}
			bw.WriteString("\n")
		}
		for _, tool := range m.Tools {
			bw.WriteString("  → " + tool.Name)
			if tool.Target != "" {
				bw.WriteString(": " + tool.Target)
			}
			if tool.Outcome != "" {
				bw.WriteString(" (" + strings.ReplaceAll(string(tool.Outcome), "_", " ") + ")")
			}
			bw.WriteString("\n")
		}
		prev = m
	}
	return bw.Flush()
}

func speaker(r Role) string {
	if r == User {
		return "User"
	}
	return "Assistant"
}
