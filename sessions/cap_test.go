package sessions

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLongMessageIsCut: a message over MaxMessage (a pasted log of
// megabytes, in a real Claude Code line) is stored cut: its start and its
// end kept, a note in the middle saying how much of how much was cut,
// valid UTF-8 throughout. A message under the limit is stored whole.
func TestLongMessageIsCut(t *testing.T) {
	s, root := testStore(t)
	head, tail := "START of the pasted log ", " END of the pasted log"
	long := head + strings.Repeat("é log line; ", 3*MaxMessage/13) + tail
	short := "A short question about the deploy."
	line := func(ts, text string) string {
		return fmt.Sprintf(`{"type":"user","sessionId":"s1","cwd":"/src/app","timestamp":%q,"message":{"role":"user","content":%q}}`+"\n", ts, text)
	}
	p := filepath.Join(root, "s1.jsonl")
	if err := os.WriteFile(p, []byte(line("2026-01-28T09:00:00Z", short)+line("2026-01-28T09:01:00Z", long)), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := FileAt(p)
	if err != nil {
		t.Fatal(err)
	}
	ingest(t, s, []File{f}, Options{})
	list, err := s.Conversations(t.Context(), "")
	if err != nil || len(list) != 1 {
		t.Fatalf("conversations %+v (%v), want one", list, err)
	}
	msgs, err := s.Messages(t.Context(), list[0].ID)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("messages: %d (%v), want 2", len(msgs), err)
	}
	if msgs[0].Text != short {
		t.Errorf("the short message became %q", msgs[0].Text)
	}
	got := msgs[1].Text
	if len(got) > MaxMessage || !utf8.ValidString(got) {
		t.Errorf("the long message is stored as %d bytes (valid UTF-8: %v), want at most %d", len(got), utf8.ValidString(got), MaxMessage)
	}
	note := fmt.Sprintf("of this message's %d bytes here", len(long))
	if !strings.HasPrefix(got, head) || !strings.HasSuffix(got, tail) || !strings.Contains(got, note) {
		t.Errorf("the long message lost its start, its end or the note %q:\n%.200s … %.200s", note, got, got[len(got)-200:])
	}
}
