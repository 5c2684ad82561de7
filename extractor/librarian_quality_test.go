package extractor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// filedVault is what the offline librarian filed from the real transcripts
// (its golden file): each file under a "=== path" line.
const filedVault = "../librarian/testdata/real.vault.golden"

// addFiled writes the librarian's entries into m's vault.
func addFiled(t *testing.T, m Memory) {
	t.Helper()
	data, err := os.ReadFile(filedVault)
	if err != nil {
		t.Fatalf("the librarian's filed vault: %v", err)
	}
	for _, part := range strings.Split(string(data), "=== ")[1:] {
		name, body, _ := strings.Cut(part, "\n")
		if err := writeFile(filepath.Join(m.Vault.Root(), filepath.FromSlash(name)), []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, m.Vault.Root())
}

// sessionQuestions are asked of the past sessions, each with the session
// that holds its answer.
var sessionQuestions = []struct{ q, want string }{
	{"how did we start the phoenix server in the background?", "d6e0bada-1959-4eec-a9d2-0bfade768d8f"},
	{"why does scrolling back in xterm.js not work with tmux?", "d6e0bada-1959-4eec-a9d2-0bfade768d8f"},
	{"did we remove the react web app in favor of static PNG files?", "5b539e53-47c8-4996-bc4e-3896a787c8ab"},
	{"what went into CLAUDE.md for graph-monitor?", "5b539e53-47c8-4996-bc4e-3896a787c8ab"},
	{"why would jobs be routed to codex-1 and codex-2?", "019a7ae6-1945-7c63-98f2-210adb922af9"},
	{"removing the celery queue separation for one codex queue", "019a7ae6-1945-7c63-98f2-210adb922af9"},
	{"adding the opk rules and opk workspace init subcommands", "c61729d4-da6d-46a4-9a29-ec2c614e5e23"},
	{"the number guessing game in python in the Apps directory", "fce98fd7-e6b5-4f01-ade5-271721b00f9c"},
	{"unused import anyhow in worker_example.rs", "fce98fd7-e6b5-4f01-ade5-271721b00f9c"},
	{"asking a subagent how he is doing", "609efeca-2f51-4118-b077-e91c9fe63f73"},
	{"should the public API be async/await or Combine?", "019d8c27-aea2-7ae0-bf0a-1f8bde758747"},
}

// TestRetrieveWithLibrarian measures what filing the sessions with the
// librarian does to retrieve: the share of questions whose first item
// comes from the session that holds the answer, and the median bundle in
// tokens, before and after the librarian's entries join the vault.
// Filing must not make the answers worse, nor the bundles large.
func TestRetrieveWithLibrarian(t *testing.T) {
	// An item is the evidence when it is a passage of the session, or of
	// an entry filed from it: the two are one source.
	type result struct {
		first, any float64
		median     int
		notFirst   []string
	}
	measure := func(m Memory, sessions map[string]string) result {
		var r result
		var tokens []int
		for _, c := range sessionQuestions {
			b, err := Retrieve(t.Context(), m, Request{Query: c.q})
			if err != nil {
				t.Fatal(err)
			}
			tokens = append(tokens, b.Tokens)
			if len(b.Items) == 0 || !(strings.HasPrefix(sessions[b.Items[0].Name], c.want) || strings.HasPrefix(b.Items[0].Conversation, c.want+"@")) {
				r.notFirst = append(r.notFirst, c.q)
			}
			for i, it := range b.Items {
				if strings.HasPrefix(sessions[it.Name], c.want) || strings.HasPrefix(it.Conversation, c.want+"@") {
					if i == 0 {
						r.first++
					}
					r.any++
					break
				}
			}
			if testing.Verbose() {
				t.Logf("%q:\n%s", c.q, b.Text())
			}
		}
		n := float64(len(sessionQuestions))
		r.first, r.any = r.first/n, r.any/n
		slices.Sort(tokens)
		r.median = tokens[len(tokens)/2]
		return r
	}
	raw, rawSessions := withSessions(t, fixture(t))
	before := measure(raw, rawSessions)
	filed := fixture(t)
	addFiled(t, filed)
	filed, filedSessions := withSessions(t, filed)
	after := measure(filed, filedSessions)
	t.Logf("raw sessions: first %.2f, any %.2f, median %d tokens; filed by the librarian: first %.2f, any %.2f, median %d tokens",
		before.first, before.any, before.median, after.first, after.any, after.median)
	t.Logf("first item not the evidence: raw %q; filed %q", before.notFirst, after.notFirst)
	if after.first < before.first {
		t.Errorf("with the librarian's entries the first item is the evidence for %.2f of the questions, without them %.2f", after.first, before.first)
	}
	if after.median >= 800 {
		t.Errorf("median bundle %d tokens with the librarian's entries, want under 800", after.median)
	}
}

// TestRetrieveOneItemPerConversation checks that an entry the librarian
// filed from a session and that session's passage are one source: the
// bundle quotes one of them, dated when the conversation took place, and
// says which conversation it is.
func TestRetrieveOneItemPerConversation(t *testing.T) {
	m := fixture(t)
	addFiled(t, m)
	m, _ = withSessions(t, m)
	b, err := Retrieve(t.Context(), m, Request{Query: "how did we start the phoenix server in the background?"})
	if err != nil {
		t.Fatal(err)
	}
	const ref = "d6e0bada-1959-4eec-a9d2-0bfade768d8f@2026-02-10T22:57:54Z"
	n := 0
	for _, it := range b.Items {
		if it.Conversation == ref {
			n++
			if got := it.Date.UTC().Format("2006-01-02"); got != "2026-02-10" {
				t.Errorf("item %s dated %s, want the conversation's day 2026-02-10", it.Name, got)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d items of conversation %s, want 1:\n%s", n, ref, b.Text())
	}
	if !slices.ContainsFunc(b.Omitted, func(o Omitted) bool { return strings.HasPrefix(o.Reason, "the same conversation as ") }) {
		t.Errorf("no passage left out as the same conversation: omitted %+v", b.Omitted)
	}
	if !strings.Contains(b.Text(), "2026-02-10") {
		t.Errorf("the bundle's text does not date the conversation:\n%s", b.Text())
	}
}

// TestRetrieveHoldsSearchFirst: for each labelled question over the real
// transcripts, asked of the entries the librarian filed from them and the
// sessions, the entry `search` ranks first is in `retrieve`'s bundle, or
// left out for an item of the bundle that holds what it says (a
// near-duplicate, or a passage of the conversation it was filed from):
// one answer for one question.
func TestRetrieveHoldsSearchFirst(t *testing.T) {
	data, err := os.ReadFile("../eval/retrievaleval/testdata/questions.json")
	if err != nil {
		t.Fatal(err)
	}
	var questions []struct {
		Question string `json:"question"`
	}
	if err := json.Unmarshal(data, &questions); err != nil {
		t.Fatalf("questions.json: %v", err)
	}
	v := vaulttest.New(t, vault.WithClock(now))
	m := open(t, v)
	addFiled(t, m)
	m, _ = withSessions(t, m)
	checked := 0
	for _, q := range questions {
		res, _, err := Search(t.Context(), m, index.Query{Text: q.Question})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 {
			continue
		}
		first := res[0].Name
		b, err := Retrieve(t.Context(), m, Request{Query: q.Question})
		if err != nil {
			t.Fatal(err)
		}
		checked++
		if slices.ContainsFunc(b.Items, func(it Item) bool { return it.Name == first }) {
			continue
		}
		i := slices.IndexFunc(b.Omitted, func(o Omitted) bool { return o.Name == first })
		if i >= 0 {
			o := b.Omitted[i]
			for _, prefix := range []string{"near-duplicate of ", "the same conversation as "} {
				if by, ok := strings.CutPrefix(o.Reason, prefix); ok && slices.ContainsFunc(b.Items, func(it Item) bool { return it.Name == by }) {
					o.Reason = ""
				}
			}
			if o.Reason == "" {
				continue
			}
		}
		t.Errorf("%q: search ranks %s first; retrieve leaves it out (%+v):\n%s", q.Question, first, b.Omitted, b.Text())
	}
	if checked < len(questions)/3 {
		t.Errorf("search found an entry for %d of %d questions", checked, len(questions))
	}
}
