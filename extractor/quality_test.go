package extractor

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/sessions"
)

// transcripts are the real Claude Code and Codex sessions kept, with their
// sources and licences, beside the transcript parser's tests.
const transcripts = "../transcript/testdata"

// withSessions ingests the shared transcripts into m's vault and returns
// m searching them, and the session id of each conversation.
func withSessions(t *testing.T, m Memory) (Memory, map[string]string) {
	t.Helper()
	st := openSessions(t, m)
	for _, d := range []string{"claude-code", "codex"} {
		files, err := sessions.FindFiles(t.Context(), filepath.Join(transcripts, d))
		if err != nil {
			t.Fatalf("the real transcripts: %v", err)
		}
		if _, err := st.Ingest(t.Context(), files, sessions.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	convs, err := st.Conversations(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, c := range convs {
		ids[fmt.Sprintf("conversation:%d", c.ID)] = c.Session
	}
	m.Sessions = st
	return m, ids
}

// TestRetrievalQuality measures recall at 5 on labelled questions: the
// entry of the fixture vault that answers each, and, for questions no
// entry covers, the past session (of the shared real transcripts) where
// it was discussed. The figures are in BENCHMARKS.md.
func TestRetrievalQuality(t *testing.T) {
	m, ids := withSessions(t, fixture(t))
	for _, set := range []struct {
		name  string
		least float64
		cases []struct{ q, want string }
	}{
		{"entries", 0.9, []struct{ q, want string }{
			{"how does Sarah like to be contacted?", "contacts/sarah-chen"},
			{"where is the staging deploy key?", "knowledge/staging-deploy-key"},
			{"why did we pick SQLite for search?", "decisions/use-sqlite-fts5"},
			{"who is S. Chen?", "contacts/sarah-chen"},
			{"what did Sarah want before the partner meeting?", "episodes/2026-01/2026-01-28"},
			{"how was the flaky daemon test fixed?", "episodes/2026-01/2026-01-28"},
			{"which port does the dev server run on?", "knowledge/dev-server-port"},
			{"who books Sarah's meetings?", "contacts/diego-ramos"},
			{"how do we run database migrations?", "knowledge/drizzle-migrations"},
			{"Bun or Node for a new TypeScript project?", "decisions/bun-over-node"},
			{"how does authentication work on the daemon?", "knowledge/device-keys"},
			{"who owns the daemon?", "contacts/priya-natarajan"},
			{"what espresso ratio do I use?", "knowledge/espresso-ratio"},
			{"東京のユーザー会はどこ?", "knowledge/tokyo-trip"},
			{"what is the status of the bot0 seed round?", "projects/bot0"},
			{"what did the memory spec settle on?", "milestones/memory-spec-final"},
		}},
		{"sessions", 0.8, sessionQuestions},
	} {
		hits := 0
		var missed []string
		for _, c := range set.cases {
			b, err := Retrieve(t.Context(), m, Request{Query: c.q})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for i, it := range b.Items {
				if i == 5 {
					break
				}
				if it.Name == c.want || strings.HasPrefix(ids[it.Name], c.want) {
					found = true
				}
			}
			if found {
				hits++
			} else {
				missed = append(missed, c.q)
			}
		}
		recall := float64(hits) / float64(len(set.cases))
		t.Logf("%s: recall at 5 %d/%d = %.2f; missed: %q", set.name, hits, len(set.cases), recall, missed)
		if recall < set.least {
			t.Errorf("%s: recall at 5 is %.2f, want at least %.2f", set.name, recall, set.least)
		}
	}
}
