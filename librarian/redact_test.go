package librarian

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/internal/gittest"
	"github.com/ctx0/ctx0/redact/redacttest"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/transcript"
)

// TestOfflineRunRedacts: a session that says the secrets of the corpus
// (as decisions, as things to remember, as plain statements) is ingested
// and filed by the offline librarian. The ingest state holds none of them,
// and nothing git holds does: no commit, no message, no name.
func TestOfflineRunRedacts(t *testing.T) {
	v, ix := testVault(t)
	st, err := sessions.Open(t.Context(), v.Root(), sessions.WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	secrets, _ := redacttest.Corpus(t)
	t0 := time.Date(2026, 1, 27, 14, 0, 0, 0, time.UTC)
	var msgs []transcript.Message
	for i, c := range secrets {
		for j, say := range []string{"We decided that " + c.Text, "Remember that " + c.Text, c.Text} {
			n := 3*i + j
			msgs = append(msgs, transcript.Message{Pos: int64(n + 1), Role: transcript.User, Time: t0.Add(time.Duration(n) * time.Second), Text: say})
		}
	}
	msgs = append(msgs, transcript.Message{Pos: int64(len(msgs) + 1), Role: transcript.Assistant, Time: t0.Add(time.Hour), Text: "Noted; " + secrets[0].Text,
		Tools: []transcript.Tool{{Name: "Bash", Kind: transcript.Command, Target: "curl -H 'Authorization: Bearer FAKEabcdef0123456789abcdef0123' https://api.example.com"}}})
	if _, err := st.IngestLog(t.Context(), transcript.Log{Session: "secrets", Agent: "claude-code", CWD: "/src/app", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Ingest(t.Context(), nil, sessions.Options{End: true, Queue: true}); err != nil {
		t.Fatal(err)
	}
	convs, err := st.Conversations(t.Context(), sessions.Queued)
	if err != nil || len(convs) == 0 {
		t.Fatalf("queued: %v, %v", convs, err)
	}
	var held strings.Builder
	for _, c := range convs {
		ms, err := st.Messages(t.Context(), c.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			held.WriteString(m.Text + "\n")
		}
	}
	for _, c := range secrets {
		if s := c.Leaks(held.String()); s != "" {
			t.Errorf("%s: the ingest state holds %q", c.Name, s)
		}
	}

	runAll(t, Options{Vault: v, Store: st, Search: ix, Now: now, Loc: time.UTC})
	gittest.CheckClean(t, v.Root())
	out, err := exec.Command("git", "-C", v.Root(), "log", "--all", "-p", "--name-status", "--format=%H%n%B").CombinedOutput()
	if err != nil {
		t.Fatalf("git log: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "[REDACTED:") {
		t.Fatalf("nothing was filed:\n%s", out)
	}
	for _, c := range secrets {
		if s := c.Leaks(string(out)); s != "" {
			t.Errorf("%s: git holds %q", c.Name, s)
		}
	}
}
