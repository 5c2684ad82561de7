package extractor

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// TestNamedDays: the common forms of a day name it, with its year when
// the words give one; a month, a day counted from now, a bound and a day
// written with slashes (which number is the month differs by country) do
// not.
func TestNamedDays(t *testing.T) {
	at := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		question string
		want     []calendarDay
	}{
		{"who is coming to the dentist appointment on 4 April?", []calendarDay{{0, time.April, 4}}},
		{"who is coming on April 4th?", []calendarDay{{0, time.April, 4}}},
		{"who is coming on April 4?", []calendarDay{{0, time.April, 4}}},
		{"who is coming on the 4th of April?", []calendarDay{{0, time.April, 4}}},
		{"who is coming on 4 April 2023?", []calendarDay{{2023, time.April, 4}}},
		{"who is coming on April 4th, 2023?", []calendarDay{{2023, time.April, 4}}},
		{"who is coming on 2026-04-04?", []calendarDay{{2026, time.April, 4}}},
		{"what did we decide on 3 March?", []calendarDay{{0, time.March, 3}}},
		{"what did we decide in April?", nil},
		{"what did we decide yesterday?", nil},
		{"what did we decide since 4 April?", nil},
		{"who is coming on 4/4?", nil},
		{"who is coming on the 4th?", nil},
	}
	for _, tt := range tests {
		got := namedDays(query.Parse(tt.question, at).When().Spans, false)
		if len(got) != len(tt.want) {
			t.Errorf("%q: got days %v, want %v", tt.question, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%q: got days %v, want %v", tt.question, got, tt.want)
			}
		}
	}
}

// TestAskedDays: a day of the month said alone at the end of a clause is
// a day of any month; "the 4th floor" is not a day. What was said on a
// day the question names was said on the last such day up to now.
func TestAskedDays(t *testing.T) {
	v := vaulttest.New(t, vault.WithClock(now))
	m := open(t, v)
	tests := []struct {
		question string
		want     []calendarDay
	}{
		{"who is coming with me on the 4th?", []calendarDay{{0, 0, 4}}},
		{"what did we decide on the 21st, and why?", []calendarDay{{0, 0, 21}}},
		{"who is on the 4th floor?", nil},
		{"who is coming on the 4th of April?", []calendarDay{{0, time.April, 4}}},
		{"who is coming on the 32nd?", nil},
	}
	for _, tt := range tests {
		p := query.Parse(tt.question, now())
		r := newRetrieval(m, Request{Query: tt.question, Plan: p}, termsFor(p))
		if got := r.askedDays(); !slices.Equal(got, tt.want) {
			t.Errorf("%q: got days %v, want %v", tt.question, got, tt.want)
		}
	}
	for _, tt := range []struct {
		day  calendarDay
		want time.Time
	}{
		// now is 1 February 2026
		{calendarDay{0, 0, 4}, time.Date(2026, 1, 4, 0, 0, 0, 0, time.UTC)},
		{calendarDay{0, 0, 1}, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)},
		{calendarDay{0, 0, 31}, time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)},
		{calendarDay{0, time.March, 3}, time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)},
		{calendarDay{0, time.January, 31}, time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)},
		{calendarDay{0, time.February, 29}, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
		{calendarDay{2023, time.April, 4}, time.Date(2023, 4, 4, 0, 0, 0, 0, time.UTC)},
	} {
		if got := tt.day.lastOn(now()); !got.Equal(tt.want) {
			t.Errorf("%v.lastOn(%s) = %s, want %s", tt.day, now(), got, tt.want)
		}
	}
}

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
			{"Tuesday 4 April 2023, at 10:30.", true},
			{"It is on April 4.", true},
			{"the 4th of April, in the morning", true},
			{"Booked for 2023-04-04 at 10:30.", true},
			{"Noted, 10:30 on 4 April.", true},
			{"my dentist appointment is on Friday 14 April 2023, at 10:30", false},
			{"Noted: dentist appointment on 14 April (2023-04-14) at 10:45.", false},
			{"sometime in April", false},
			{"on 4/4", false},
		} {
			held := r.match.matched(tt.text)
			if got := holdsAll(held, r.match.dayTerms); got != tt.want {
				t.Errorf("%q in %q: holds the day's words %v, want %v (held %v of %q)", question, tt.text, got, tt.want, held, r.t.words)
			}
		}
	}
}

// TestInside: a number is held within a text only where no digit stands
// beside it; other terms anywhere within a word.
func TestInside(t *testing.T) {
	tests := []struct {
		text, term string
		want       int
	}{
		{"tuesday 4 april", "4", 1},
		{"friday 14 april", "4", 0},
		{"2023-04-14 at 10:45", "4", 0},
		{"listening on localhost:8080.", "8080", 1},
		{"ports 8080 and 18080", "8080", 1},
		{"v2.1 and v2", "v2", 2},
		{"4 and 4", "4", 2},
		{"on the 14th", "4th", 0},
		{"on the 4th", "4th", 1},
		{"v21 and v2", "v2", 1},
	}
	for _, tt := range tests {
		if got := inside(tt.text, tt.term); got != tt.want {
			t.Errorf("inside(%q, %q) = %d, want %d", tt.text, tt.term, got, tt.want)
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

// FuzzNamesDay: any text read for the days it names, and for a number
// within its words, neither panics nor holds a number more often than it
// is written.
func FuzzNamesDay(f *testing.F) {
	for _, s := range []string{"Tuesday 4 April 2023, at 10:30.", "on the 4th of April", "2023-04-04", "14 April", "4/4", "the 31st?", ""} {
		f.Add(s, "4")
	}
	v := vaulttest.New(f, vault.WithClock(now))
	m := open(f, v)
	question := "who is coming with me on the 4th of April, and on the 4th?"
	p := query.Parse(question, now())
	r := newRetrieval(m, Request{Query: question, Plan: p}, termsFor(p))
	f.Fuzz(func(t *testing.T, text, term string) {
		r.match.matched(text)
		namedDays(query.Parse(text, now()).When().Spans, false)
		if n := inside(text, term); term != "" && n > strings.Count(text, term) {
			t.Errorf("inside(%q, %q) = %d, more than it is written", text, term, n)
		}
	})
}
