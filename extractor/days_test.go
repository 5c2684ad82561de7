package extractor

import (
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// TestMatcherNamesTheAskedDay: a text that names the day the question
// names, in any common form, holds the question's words naming it; one
// that names only its month, or another day whose digits hold the day's
// ("14 April", "2023-04-14", "10:45"), does not.
func TestMatcherNamesTheAskedDay(t *testing.T) {
	v := vaulttest.New(t, vault.WithClock(now))
	m := open(t, v)
	for _, question := range []string{
		"who is coming with me to the dentist appointment on 4 April?",
		"who is coming with me to the dentist appointment on April 4th?",
		"who is coming with me to the dentist appointment on the 4th of April?",
		"who is coming with me to the dentist appointment on the 4th?",
	} {
		p := query.Parse(question, now())
		r := newRetrieval(m, Request{Query: question, Plan: p}, termsFor(p))
		want := 2 // the day's number and its month
		if strings.HasSuffix(question, "the 4th?") {
			want = 1
		}
		if len(r.match.dayTerms) != want {
			t.Fatalf("%q: day terms %v of words %q", question, r.match.dayTerms, r.t.words)
		}
		for _, tt := range []struct {
			text string
			want bool
		}{
			// The forms a day is named in are tested by when.TestNamesDay; here,
			// that the reading is wired in: one named, one not.
			{"Tuesday 4 April 2023, at 10:30.", true},
			{"Booked for 2023-04-04 at 10:30.", true},
			{"Noted: dentist appointment on 14 April (2023-04-14) at 10:45.", false},
		} {
			held := r.match.matched(tt.text)
			if got := holdsAll(held, r.match.dayTerms); got != tt.want {
				t.Errorf("%q in %q: holds the day's words %v, want %v (held %v of %q)", question, tt.text, got, tt.want, held, r.t.words)
			}
		}
	}
}

// TestRetrieveDayOfWhatWasSpokenOf: "who is coming with me to the dentist
// appointment on 4 April?" is answered by the conversation weeks before
// whose reply to "When is it?" names that day, not by those of other
// dentist appointments that month, whose "14 April" and "18 April" hold
// the month and, as digits, the day's number; in any common form of the
// day the question names. And a question naming a day is answered too by
// what was said on it ("what did we decide on 3 March?").
func TestRetrieveDayOfWhatWasSpokenOf(t *testing.T) {
	v := vaulttest.New(t, vault.WithClock(now))
	m := open(t, v)
	st := openSessions(t, m)
	at := func(mo time.Month, d int) time.Time { return time.Date(2025, mo, d, 9, 0, 0, 0, time.UTC) }
	convs := []chat{
		{"s-nadia", at(time.March, 3), []string{
			"Can you help me remember something? My sister Nadia will come along to the dentist appointment with me.",
			"Sure. When is it?",
			"Friday 4 April, at 10:30.",
			"Got it, I'll keep that in mind.",
			"Also, we decided to move the nightly build to Jenkins.",
			"Good call."}},
		{"s-samir", at(time.March, 14), []string{
			"Reminder for later: my dentist appointment is on Monday 14 April 2025 at 10:45 and Samir is coming with me.",
			"Noted, Samir is coming with you to the dentist."}},
		{"s-omar", at(time.March, 20), []string{
			"My dentist appointment on 18 April: Omar is coming with me, please remember that.",
			"Okay, Omar is coming with you on 18 April."}},
		{"s-deploy", at(time.March, 12), []string{
			"About the deploys: we decided to keep them on Fridays, after the review.",
			"Fridays it is."}},
		{"s-parser", at(time.March, 21), []string{
			"Omar thinks we should rewrite the parser, I'm not convinced.",
			"Measure first, then decide."}},
	}
	ingestChats(t, st, t.TempDir(), "/home/hana/src/atlas", convs)
	m.Sessions = st
	for _, q := range []string{
		"who is coming with me to the dentist appointment on 4 April?",
		"who is coming with me to the dentist appointment on April 4th?",
		"who is coming with me to the dentist appointment on the 4th of April?",
		"who is coming with me to the dentist appointment on 2025-04-04?",
		"who is coming with me to the dentist appointment on the 4th?",
	} {
		b, err := Retrieve(t.Context(), m, Request{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Items) == 0 || !strings.Contains(b.Items[0].Passage, "Nadia") {
			t.Errorf("%q: want the conversation naming that day first:\n%s", q, b.Text())
		}
	}
	b, err := Retrieve(t.Context(), m, Request{Query: "what did we decide on 3 March?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Items) == 0 || !strings.Contains(b.Items[0].Passage, "Jenkins") {
		t.Errorf("want the conversation of 3 March first:\n%s", b.Text())
	}
}

// FuzzNamesDay: any text read for the days it names neither panics nor
// holds a word of the question it does not say.
func FuzzNamesDay(f *testing.F) {
	for _, s := range []string{"Tuesday 4 April 2023, at 10:30.", "on the 4th of April", "2023-04-04", "14 April", "4/4", "the 31st?", ""} {
		f.Add(s)
	}
	v := vaulttest.New(f, vault.WithClock(now))
	m := open(f, v)
	question := "who is coming with me on the 4th of April, and on the 4th?"
	p := query.Parse(question, now())
	r := newRetrieval(m, Request{Query: question, Plan: p}, termsFor(p))
	f.Fuzz(func(t *testing.T, text string) {
		for _, i := range r.match.matched(text) {
			if i < 0 || i >= len(r.t.words) {
				t.Errorf("matched %d of %d words", i, len(r.t.words))
			}
		}
	})
}
