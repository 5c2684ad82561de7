package extractor

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/index/query/when"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// TestRetrieveTimeInQuestion checks that a time the question says in words
// is read against the memory's now: it favours what happened then, its
// words are not searched for, and the dates of the items say when.
func TestRetrieveTimeInQuestion(t *testing.T) {
	m := fixture(t) // now is Sunday 2026-02-01
	for _, c := range []struct {
		q, window string
	}{
		{"what did we decide 17 days ago?", "2026-01-15"},
		{"what about the daemon last week?", "2026-01-19 to 2026-01-25"},
	} {
		b, err := Retrieve(t.Context(), m, Request{Query: c.q})
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Items) == 0 || !strings.Contains(b.Items[0].Why, "in "+c.window) {
			t.Fatalf("%q: the first item is not of %s:\n%s", c.q, c.window, b.Text())
		}
		for _, s := range b.Plan.Searches {
			if strings.Contains(s, "ago") || strings.Contains(s, "week") {
				t.Errorf("%q: searched for the time's words: %q", c.q, s)
			}
		}
	}
}

// TestRetrieveWindowAlone checks that a question of nothing but a time
// lists what is dated then.
func TestRetrieveWindowAlone(t *testing.T) {
	m := fixture(t)
	b, err := Retrieve(t.Context(), m, Request{Query: "what happened last week?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) == 0 {
		t.Fatalf("nothing listed for last week:\n%s", b.Text())
	}
	from, to := time.Date(2026, 1, 19, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 26, 0, 0, 0, 0, time.UTC)
	for _, it := range b.Items {
		if it.Date.Before(from) || !it.Date.Before(to) {
			t.Errorf("item %s dated %s, not last week", it.Name, it.Date)
		}
	}
}

// TestRetrieveSinceEvent checks that "since the memory spec" is dated by
// the entry that tells of it.
func TestRetrieveSinceEvent(t *testing.T) {
	m := fixture(t)
	b, err := Retrieve(t.Context(), m, Request{Query: "what changed since the memory spec?"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(b.Plan.Searches, func(s string) bool { return strings.HasPrefix(s, "when: since memory spec: 2026-01-26") }) {
		t.Errorf("the event is not dated by milestones/memory-spec-final: plan %q", b.Plan.Searches)
	}
}

// TestRetrieveSinceUntil checks that Since and Until keep only what
// happened in their time, the entries the question names included.
func TestRetrieveSinceUntil(t *testing.T) {
	m := fixture(t)
	since, until := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 21, 0, 0, 0, 0, time.UTC)
	b, err := Retrieve(t.Context(), m, Request{Query: "who is Sarah and what did we decide?", Since: since, Until: until})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) == 0 {
		t.Fatalf("nothing in the window:\n%s", b.Text())
	}
	for _, it := range b.Items {
		if it.Date.Before(since) || !it.Date.Before(until) {
			t.Errorf("item %s dated %s, outside %s to %s", it.Name, it.Date, since, until)
		}
	}
}

// TestRetrieveNamedDateSearched checks that a date named as a calendar does
// is searched for as written, and favours nothing: "on 26 March" is as
// often the day of an event spoken of before as the day something was
// said.
func TestRetrieveNamedDateSearched(t *testing.T) {
	m := fixture(t)
	b, err := Retrieve(t.Context(), m, Request{Query: "what did we decide on 15 January?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Plan.Searches) == 0 || !strings.Contains(b.Plan.Searches[0], "15 January") {
		t.Errorf("the date is not searched for: plan %q", b.Plan.Searches)
	}
	for _, it := range b.Items {
		if strings.Contains(it.Why, "in 2026-01-15") {
			t.Errorf("item %s favoured for the named date: %s", it.Name, it.Why)
		}
	}
}

// TestRetrieveEventDatedByItsConversation checks that an event the
// librarian filed is dated when its conversation took place, not when it
// was filed.
func TestRetrieveEventDatedByItsConversation(t *testing.T) {
	m := fixture(t)
	addFiled(t, m) // filed on 2026-05-01 from conversations of 2025 and 2026
	b, err := Retrieve(t.Context(), m, Request{Query: "what broke after the phoenix server start?"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(b.Plan.Searches, func(s string) bool { return strings.HasPrefix(s, "when: after phoenix server start: 2026-02-10") }) {
		t.Errorf("the event is not dated by its conversation: plan %q", b.Plan.Searches)
	}
}

// TestRetrieveNothingAfterNow checks that a question about the past keeps
// nothing that happened after now, and only what happened in its time
// when anything did: the entries the librarian filed from later
// conversations and those of other weeks stay out.
func TestRetrieveNothingAfterNow(t *testing.T) {
	m := fixture(t) // now is Sunday 2026-02-01
	addFiled(t, m)  // filed on 2026-05-01 from conversations of 2025 and 2026
	for _, c := range []struct {
		q            string
		since, until time.Time
	}{
		{"what did we decide last week?", time.Date(2026, 1, 19, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 26, 0, 0, 0, 0, time.UTC)},
		{"what did Sarah say last week?", time.Date(2026, 1, 19, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 26, 0, 0, 0, 0, time.UTC)},
		{"what did we fix in January 2026?", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)},
	} {
		b, err := Retrieve(t.Context(), m, Request{Query: c.q})
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Items) == 0 && !strings.Contains(b.Summary, "dated "+when.Window{Since: c.since, Until: c.until}.String()) {
			t.Errorf("%q: nothing found, and the summary does not say of when:\n%s", c.q, b.Text())
		}
		for _, it := range b.Items {
			if it.Date.After(clock) {
				t.Errorf("%q: item %s dated %s, after now", c.q, it.Name, it.Date.Format(time.DateOnly))
			} else if !it.Date.IsZero() && (it.Date.Before(c.since) || !it.Date.Before(c.until)) {
				t.Errorf("%q: item %s dated %s, outside %s to %s", c.q, it.Name, it.Date.Format(time.DateOnly), c.since.Format(time.DateOnly), c.until.Format(time.DateOnly))
			}
		}
	}
}

// TestRetrieveWordsNothingOfItsTimeHolds checks that a question whose
// words nothing of its time holds says so, naming the time and the words,
// and is not sure of what it lists instead: "what did Sarah say last
// week?" is not a question without words.
func TestRetrieveWordsNothingOfItsTimeHolds(t *testing.T) {
	m := fixture(t) // now is Sunday 2026-02-01
	for _, c := range []struct{ q, summary string }{
		{"what did Sarah say in July 2025?", "Nothing in the vault or in past sessions dated 2025-07 mentions sarah, and nothing else is dated then."},
		{"what did Sarah say about the harbor last week?", "Nothing dated 2026-01-19 to 2026-01-25 mentions sarah, harbor; listed instead is what is dated then."},
		// Stop words are searched when nothing else is left, but a
		// person never asked for "what" or "did": they are not named.
		{"what did we do in July 2025?", "Nothing in the vault or in past sessions is dated 2025-07."},
	} {
		b, err := Retrieve(t.Context(), m, Request{Query: c.q})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.Summary, c.summary) {
			t.Errorf("%q: summary %q, want it to start %q", c.q, b.Summary, c.summary)
		}
		if b.Level != "low" {
			t.Errorf("%q: confidence %s (%.2f) for what does not hold the question's words", c.q, b.Level, b.Confidence)
		}
	}
}

// TestRetrieveDatesRelativeTimesInPassages checks that a past session's
// passage shows beside "yesterday" the day it named when it was said.
func TestRetrieveDatesRelativeTimesInPassages(t *testing.T) {
	m := fixture(t)
	st := openSessions(t, m)
	dir := t.TempDir()
	var b strings.Builder
	for i, l := range []struct{ role, text string }{
		{"user", "The harbor deploy broke yesterday, can you check the rollback script?"},
		{"assistant", "The rollback script pointed at the old bucket; I fixed the path."},
	} {
		msg := `"content":` + strconv.Quote(l.text)
		if l.role == "assistant" {
			msg = `"id":"m1","content":[{"type":"text","text":` + strconv.Quote(l.text) + `}]`
		}
		fmt.Fprintf(&b, `{"type":%q,"sessionId":"s-harbor","cwd":"/home/me/harbor","uuid":"u%d","timestamp":"2026-01-14T10:0%d:00.000Z","message":{"role":%q,%s}}`+"\n", l.role, i, i, l.role, msg)
	}
	file := filepath.Join(dir, "s-harbor.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := sessions.FindFiles(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Ingest(t.Context(), files, sessions.Options{}); err != nil {
		t.Fatal(err)
	}
	m.Sessions = st
	bu, err := Retrieve(t.Context(), m, Request{Query: "why did the harbor deploy break?"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bu.Text(), "yesterday (2026-01-13)") {
		t.Errorf("the passage does not date its yesterday:\n%s", bu.Text())
	}
}

// TestSearchNothingAfterNow checks that a search whose words ask about the
// past finds, when nothing of that time holds its other words, what the
// words alone find before now, and nothing after it.
func TestSearchNothingAfterNow(t *testing.T) {
	m := fixture(t) // now is Sunday 2026-02-01
	for name, created := range map[string]string{
		"decisions/lighthouse-budget-cut.md":    "2026-01-05T10:00:00Z",
		"decisions/lighthouse-budget-raised.md": "2026-03-10T10:00:00Z",
	} {
		body := "---\ntitle: Lighthouse budget\ntype: decision\ncreated: " + created + "\nupdated: " + created + "\n---\nThe lighthouse budget was settled.\n"
		if err := writeFile(filepath.Join(m.Vault.Root(), filepath.FromSlash(name)), []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, m.Vault.Root())
	q := "what did we decide about the lighthouse budget last week?"
	res, _, err := Search(t.Context(), m, index.Query{Text: q})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range res {
		names = append(names, r.Name)
	}
	if !slices.Contains(names, "decisions/lighthouse-budget-cut") || slices.Contains(names, "decisions/lighthouse-budget-raised") {
		t.Errorf("%q: found %q, want the decision of before now and not the one after", q, names)
	}
}

// TestRetrieveWindowAloneByWhenItHappened: a question of nothing but a
// time lists what happened then, the latest to happen first, not the
// latest filed: a fact learned on Monday and filed on Saturday after
// Friday's note comes after it.
func TestRetrieveWindowAloneByWhenItHappened(t *testing.T) {
	v := vaulttest.New(t, vault.WithClock(now)) // now is Sunday 2026-02-01
	for name, text := range map[string]string{
		"knowledge/monday.md": "---\ntitle: Harbor rollback\nconversation: \"abc@2026-01-19T09:00:00Z\"\ncreated: 2026-01-31T10:00:00Z\nupdated: 2026-01-31T10:00:00Z\n---\nThe harbor rollback script points at the new bucket.\n",
		"knowledge/friday.md": "---\ntitle: Pier review\nupdated: 2026-01-23T10:00:00Z\n---\nThe pier review moved to March.\n",
	} {
		if err := writeFile(filepath.Join(v.Root(), filepath.FromSlash(name)), []byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, v.Root())
	m := open(t, v)
	b, err := Retrieve(t.Context(), m, Request{Query: "what happened last week?"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range b.Items {
		got = append(got, it.Name)
	}
	if want := []string{"knowledge/friday", "knowledge/monday"}; !slices.Equal(got, want) {
		t.Errorf("items %q, want %q:\n%s", got, want, b.Text())
	}
}
