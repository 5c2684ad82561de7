package query

import (
	"strings"
	"testing"
	"time"
)

// TestCoverNamesTheAskedDay: a text that names the day a question names,
// in any common form, holds the question's words naming it and is
// boosted by DayBoost; one that names only the month, or another day
// whose digits hold the day's ("14 April", "2023-04-14", "10:45"), holds
// neither, and so ranks below an equal text that names the day. A plan
// read without time (Plain) and the Rest of a timed question keep to the
// same rule.
func TestCoverNamesTheAskedDay(t *testing.T) {
	at := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	for _, question := range []string{
		"who is coming with me to the dentist appointment on 4 April?",
		"who is coming with me to the dentist appointment on April 4th?",
		"who is coming with me to the dentist appointment on the 4th of April?",
		"who is coming with me to the dentist appointment on the 4th?",
		"who came last week to the dentist appointment on 4 April?",
	} {
		p := Parse(question, at)
		if len(p.Days()) != 1 {
			t.Fatalf("%q: days %v", question, p.Days())
		}
		m := p.Rest().Marker()
		base := m.Cover("Nadia is coming with me to the dentist appointment.")
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
			text := "Nadia is coming with me to the dentist appointment. " + tt.text
			c := m.Cover(text)
			if c.Day != tt.want {
				t.Errorf("%q in %q: Day %v, want %v (%+v)", question, text, c.Day, tt.want, c)
			}
			if tt.want && (c.Held <= base.Held || c.Boost() < (1+DayBoost)*base.Boost()) {
				t.Errorf("%q in %q: %+v boosts %v, want the day's words held and above %v", question, text, c, c.Boost(), (1+DayBoost)*base.Boost())
			}
			if !tt.want && c.Boost() >= (1+DayBoost)*base.Boost() {
				t.Errorf("%q in %q: %+v boosts %v as if it named the day", question, text, c, c.Boost())
			}
		}
	}
	// A plan a program made says no day.
	if m := Plain("dentist appointment on 4 April").Marker(); m.Cover("on April 4th").Day {
		t.Errorf("a plain plan read a day")
	}
	// Read again from its text and time, as a watcher does, a plan says
	// the same days.
	p := Parse("the dentist appointment on 4 April", at)
	if again := Parse(p.Text(), p.Now()); strings.Join(again.DayWords(), " ") != strings.Join(p.DayWords(), " ") || len(again.Days()) != 1 {
		t.Errorf("read again: %v %q", again.Days(), again.DayWords())
	}
}

// TestExprFindsTheDayInEitherForm: a natural question naming a day
// searches its number in the other form it is written in too, so that a
// text naming the day only that way is found; a strict query, and a plan a
// program made, search as typed.
func TestExprFindsTheDayInEitherForm(t *testing.T) {
	at := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	for _, tt := range []struct{ q, want string }{
		{"the investor demo on 18 May?", `("investor" OR "demo" OR "18") OR "18th"`},
		{"the investor demo on May 18th?", `("investor" OR "demo" OR "18th") OR "18"`},
		{"who is coming on the 1st?", `("coming" OR "1st") OR "1"`},
		{"who is coming on 22 May?", `("coming" OR "22") OR "22nd"`},
		{"who is coming on 12 May?", `("coming" OR "12") OR "12th"`},
		{"who is coming on 2026-04-03?", `("coming" OR "2026 04 03") OR "3" OR "3rd"`},
		{"demo AND 18 May", `"demo" AND "18" AND "May"`},
	} {
		if got := Parse(tt.q, at).Expr(); got != tt.want {
			t.Errorf("Parse(%q).Expr() = %s, want %s", tt.q, got, tt.want)
		}
	}
	if got := Plain("the investor demo on 18 May?").Expr(); got != `("investor" OR "demo" OR "18")` {
		t.Errorf("Plain: %s", got)
	}
}

// TestWithin: a number is held within a text only where no digit stands
// beside it; other terms anywhere within a word.
func TestWithin(t *testing.T) {
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
		{"東京のユーザー会", "東京", 1},
	}
	for _, tt := range tests {
		if got := Within(tt.text, tt.term); got != tt.want {
			t.Errorf("Within(%q, %q) = %d, want %d", tt.text, tt.term, got, tt.want)
		}
	}
}

// FuzzWithin: a term is never held more often than it is written.
func FuzzWithin(f *testing.F) {
	for _, s := range []string{"Tuesday 4 April 2023, at 10:30.", "2023-04-14", "10:45", "localhost:8080", ""} {
		f.Add(s, "4")
	}
	f.Fuzz(func(t *testing.T, text, term string) {
		if n := Within(text, term); term != "" && n > strings.Count(text, term) {
			t.Errorf("Within(%q, %q) = %d, more than it is written", text, term, n)
		}
	})
}
