package librarian

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/agent"
	"github.com/ctx0/ctx0/internal/gittest"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/transcript"
)

// TestConcurrentRunsSameDay files two conversations of one day in two
// runs begun from the same commit, the later conversation's run finishing
// first: the episode's append-only merge keeps both sections, in time
// order, without a conflict.
func TestConcurrentRunsSameDay(t *testing.T) {
	v, ix := testVault(t)
	st := billing(t, v.Root())
	t0 := time.Date(2026, 1, 27, 14, 0, 0, 0, time.UTC)
	if _, err := st.IngestLog(t.Context(), transcript.Log{Session: "s2", Agent: "bot0", CWD: "/src/web", Messages: []transcript.Message{
		{Pos: 1, Role: transcript.User, Time: t0, Text: "Add a dark mode toggle to the settings page."},
		{Pos: 2, Role: transcript.User, Time: t0.Add(10 * time.Second), Text: "Put it under Appearance."},
		{Pos: 3, Role: transcript.User, Time: t0.Add(20 * time.Second), Text: "And keep the label short."},
		{Pos: 4, Role: transcript.Assistant, Time: t0.Add(time.Minute), Text: "Added the toggle to the settings page. Should it follow the system setting by default?",
			Tools: []transcript.Tool{{Name: "Edit", Kind: transcript.Write, Target: "web/settings.tsx"}, {Name: "Bash", Kind: transcript.Command, Target: "npm test"}}},
	}}); err != nil {
		t.Fatal(err)
	}
	convs, err := st.Conversations(t.Context(), sessions.Queued)
	if err != nil || len(convs) != 2 {
		t.Fatalf("queued: %v, %v", convs, err)
	}
	early, late := convs[0], convs[1]
	if !early.First.Before(late.First) {
		early, late = late, early
	}
	begin := func() *agent.Session {
		s, err := agent.Begin(t.Context(), v, agent.Options{Kind: "librarian", Trigger: "test", Provider: "offline", Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	file := func(s *agent.Session, c sessions.Conversation) {
		msgs, err := st.Messages(t.Context(), c.ID)
		if err != nil {
			t.Fatal(err)
		}
		w := &Writer{Files: s, Search: ix, Config: v.Config(), Now: now(), Loc: time.UTC}
		if _, err := w.Apply(t.Context(), c, Offline(c, msgs)); err != nil {
			t.Fatal(err)
		}
	}
	sEarly, sLate := begin(), begin()
	file(sLate, late)
	file(sEarly, early)
	for _, s := range []*agent.Session{sLate, sEarly} {
		run, err := s.Finish(t.Context(), "test")
		if err != nil {
			t.Fatal(err)
		}
		if run.Conflicts != 0 {
			t.Errorf("run %s: %d conflicts", run.ID, run.Conflicts)
		}
	}
	ep := string(readFile(t, filepath.Join(v.Root(), "episodes", "2026-01", "2026-01-27.md")))
	i, j := strings.Index(ep, marker(ConversationRef(early))), strings.Index(ep, marker(ConversationRef(late)))
	if i < 0 || j < 0 || i > j {
		t.Errorf("the episode does not hold both conversations in time order:\n%s", ep)
	}
	if strings.Contains(ep, "[!conflict]") {
		t.Errorf("the episode has a conflict block:\n%s", ep)
	}
	gittest.CheckClean(t, v.Root())
}
