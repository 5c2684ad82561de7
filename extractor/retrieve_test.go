package extractor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/internal/golden"
	"github.com/ctx0/ctx0/internal/vaulttest"
	"github.com/ctx0/ctx0/librarian/ingest"
	"github.com/ctx0/ctx0/vault"
)

// TestRetrieveGolden compares bundles for questions over the fixture vault
// with testdata/bundles (go test -update rewrites them).
func TestRetrieveGolden(t *testing.T) {
	m := fixture(t)
	for _, c := range []struct {
		name string
		req  Request
		json bool
	}{
		{"sarah-contact", Request{Query: "how does Sarah like to be contacted?"}, true},
		{"deploy-key", Request{Query: "where is the staging deploy key?", Project: "github.com/me/bot0"}, false},
		{"why-sqlite", Request{Query: "why did we pick SQLite?", Budget: 250}, false},
		{"alias", Request{Query: "who is S. Chen?"}, false},
		{"scope", Request{Query: "sarah", Scope: []string{"episodes"}}, false},
		{"syntax", Request{Query: `"seed round" -partner`}, false},
		{"cjk", Request{Query: "東京のユーザー会はどこ?"}, false},
		{"nothing", Request{Query: "quantum chromodynamics"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := Retrieve(t.Context(), m, c.req)
			if err != nil {
				t.Fatal(err)
			}
			checkBudget(t, b)
			golden.Check(t, filepath.Join("testdata", "bundles/"+c.name+".txt"), []byte(b.Text()), *update)
			if c.json {
				golden.Check(t, filepath.Join("testdata", "bundles/"+c.name+".json"), jsonOf(t, b), *update)
			}
		})
	}
}

// checkBudget checks that a bundle's text fits its budget and that it
// says how many tokens it takes.
func checkBudget(t *testing.T, b Bundle) {
	t.Helper()
	if n := Tokens(b.Text()); n > b.Budget || n != b.Tokens {
		t.Errorf("bundle takes %d tokens, says %d, budget %d", n, b.Tokens, b.Budget)
	}
}

func TestRetrieveLeavesOutDuplicatesAndSuperseded(t *testing.T) {
	m := fixture(t)
	b, err := Retrieve(t.Context(), m, Request{Query: "staging deploy key 1Password"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(b.Omitted, Omitted{Name: "knowledge/staging-deploy-key-copy", Reason: "near-duplicate of knowledge/staging-deploy-key"}) {
		t.Errorf("omitted %v; want the copy left out as a near-duplicate", b.Omitted)
	}
	b, err = Retrieve(t.Context(), m, Request{Query: "dev server port"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range b.Items {
		if it.Name == "knowledge/superseded-port" {
			t.Errorf("a superseded entry is in the bundle: %+v", it)
		}
	}
	if len(b.Items) == 0 || b.Items[0].Name != "knowledge/dev-server-port" {
		t.Errorf("items %+v; want knowledge/dev-server-port first", b.Items)
	}
}

func TestRetrieveBudgetTooSmall(t *testing.T) {
	m := fixture(t)
	if _, err := Retrieve(t.Context(), m, Request{Query: "sarah", Budget: MinBudget - 1}); !errors.Is(err, ErrBudget) {
		t.Errorf("err = %v, want ErrBudget", err)
	}
}

// TestRetrieveFallsBackOnSessions checks that a question the entries do
// not cover is answered from a past session, with a pointer to it, and
// that one they cover is not.
func TestRetrieveFallsBackOnSessions(t *testing.T) {
	m := fixture(t)
	st, err := ingest.Open(t.Context(), m.Vault.Root(), ingest.WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f, err := ingest.FileAt(filepath.Join(transcripts, "claude-code", "spotter-tool_heavy-v2.1.38.jsonl"))
	if err != nil {
		t.Skipf("the shared transcripts: %v", err)
	}
	if _, err := st.Ingest(t.Context(), []ingest.File{f}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	m.Sessions = st
	b, err := Retrieve(t.Context(), m, Request{Query: "how do we start phoenix in the background?"})
	if err != nil {
		t.Fatal(err)
	}
	var s *Item
	for i := range b.Items {
		if b.Items[i].Kind == "session" {
			s = &b.Items[i]
			break
		}
	}
	if s == nil {
		t.Fatalf("no past session in the bundle:\n%s", b.Text())
	}
	if !strings.HasPrefix(s.Source, "ctx0 conversation show ") || !strings.Contains(strings.ToLower(s.Passage), "phoenix") || !strings.Contains(s.Why, "no entry covers phoenix") {
		t.Errorf("session item %+v", *s)
	}
	b, err = Retrieve(t.Context(), m, Request{Query: "staging deploy key"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range b.Items {
		if it.Kind == "session" {
			t.Errorf("the entries cover the question, yet a session is in the bundle: %+v", it)
		}
	}
	// Named in the scope, sessions are searched whatever the entries say.
	b, err = Retrieve(t.Context(), m, Request{Query: "phoenix server", Scope: []string{"sessions"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) == 0 || b.Items[0].Kind != "session" {
		t.Errorf("scope sessions: items %+v", b.Items)
	}
}

// TestRetrieveSuggestsLearnedQuery checks that a question asked a third
// time is offered as a learned query, and that once saved, the query
// answers it.
func TestRetrieveSuggestsLearnedQuery(t *testing.T) {
	m := fixture(t)
	q := "where is the staging deploy key?"
	var b Bundle
	for i := range 3 {
		var err error
		if b, err = Retrieve(t.Context(), m, Request{Query: q}); err != nil {
			t.Fatal(err)
		}
		if (b.Suggest != nil) != (i == 2) {
			t.Fatalf("ask %d: suggest %+v", i+1, b.Suggest)
		}
	}
	want := Suggestion{Name: "staging-deploy-key", Asked: 3, Command: `ctx0 query save staging-deploy-key --from "where is the staging deploy key?"`}
	if *b.Suggest != want {
		t.Errorf("suggest %+v, want %+v", *b.Suggest, want)
	}
	if !strings.Contains(b.Text(), want.Command) {
		t.Errorf("the text does not offer the command:\n%s", b.Text())
	}
	// Forgotten, the question is asked for the first time again.
	if err := ForgetQuestions(t.Context(), m.Vault.Root()); err != nil {
		t.Fatal(err)
	}
	if again, err := Retrieve(t.Context(), m, Request{Query: q}); err != nil || again.Suggest != nil {
		t.Fatalf("after ForgetQuestions: suggest %+v, %v", again.Suggest, err)
	}
	lq, err := FromQuestion(want.Name, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SaveQuery(t.Context(), m.Vault, lq); err != nil {
		t.Fatal(err)
	}
	if b, err = Retrieve(t.Context(), m, Request{Query: "Where is the staging deploy key"}); err != nil {
		t.Fatal(err)
	}
	if b.Plan.By != "query:staging-deploy-key" || b.Suggest != nil || len(b.Items) == 0 || b.Items[0].Name != "knowledge/staging-deploy-key" {
		t.Errorf("plan %+v, suggest %v, items %+v", b.Plan, b.Suggest, b.Items)
	}
	usage, err := QueryUsage(m.Vault.Root())
	if err != nil {
		t.Fatal(err)
	}
	if u := usage[want.Name]; u.Uses != 1 || u.LastUsed != clock {
		t.Errorf("usage %+v", u)
	}
}

// TestRetrieveReadsFilesAsTheyAre checks that an entry edited with plain
// file tools is quoted as it is now.
func TestRetrieveReadsFilesAsTheyAre(t *testing.T) {
	m := fixture(t)
	p := filepath.Join(m.Vault.Root(), "knowledge", "espresso-ratio.md")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "18 g of coffee in, 36 g out", "20 g of coffee in, 40 g out", 1)
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := Retrieve(t.Context(), m, Request{Query: "espresso ratio"})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) == 0 || !strings.Contains(b.Items[0].Passage, "20 g of coffee in") {
		t.Errorf("items %s", fmt.Sprint(b.Items))
	}
}

// TestRetrieveBarSetByJudged checks that the score bar of a bundle is set
// by the candidates judged by their passages: a hit past the ones read
// keeps only its search rank, on another scale, and must not raise the bar
// over every passage and leave the bundle empty.
func TestRetrieveBarSetByJudged(t *testing.T) {
	v := vaulttest.New(t, vault.WithClock(now))
	// More hits than are read, alike, each holding one of the question's
	// two words in a long body: each passage's evidence is well below its
	// search rank.
	filler := strings.Repeat("Notes on the weekly sync of the platform group and its plans. ", 12)
	for i := range readLimit + 4 {
		body := fmt.Sprintf("---\ntype: note\ntitle: Broker note %d\n---\n\n%s The kafka broker was restarted.\n", i, filler)
		if err := writeFile(filepath.Join(v.Root(), fmt.Sprintf("notes/broker-%02d.md", i)), []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, v.Root())
	m := open(t, v)
	b, err := Retrieve(t.Context(), m, Request{Query: "kafka retention"})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) == 0 {
		t.Fatalf("empty bundle (omitted %v); want the notes that mention kafka", b.Omitted)
	}
}

// TestSaidJoinsAConversationsPassages checks that a past conversation is
// quoted by its best passage and the one of its other passages
// that adds words of the question, and by its best alone when none adds any.
func TestSaidJoinsAConversationsPassages(t *testing.T) {
	r := &retrieval{t: analyze("what present did I buy for Rosa")}
	r.match = matcher{r.t}
	hit := func(snippet string) ingest.Hit { return ingest.Hit{Conversation: 1, Speaker: "user", Snippet: snippet} }
	question := hit("…For «Rosa»'s birthday I ended up «buying» a board game, I hope she likes it.")
	answer := hit("…A board game sounds like a thoughtful «present» for «Rosa». User: I had lunch today…")
	other := hit("…Can you draft a polite reply to «Rosa» saying I'll look at it next week?")
	got := r.said([]ingest.Hit{question, other, answer})
	if !strings.Contains(got, "ended up buying") || !strings.Contains(got, "thoughtful present") || strings.Contains(got, "polite reply") {
		t.Errorf("said = %q, want the question's passage and the answer's, not the other", got)
	}
	if got := r.said([]ingest.Hit{answer, other}); strings.Contains(got, "polite reply") || strings.Contains(got, "«") {
		t.Errorf("said = %q, want the best passage alone, unmarked", got)
	}
	if n := len(byConversation([]ingest.Hit{question, {Conversation: 2}, answer})); n != 2 {
		t.Errorf("byConversation: %d conversations, want 2", n)
	}
}
