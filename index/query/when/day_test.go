package when

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAsked: the common forms of a day name it, with its year when the
// words give one; a day of the month said alone at the end of a clause is
// a day of any month ("the 4th floor" is not a day); a month, a day
// counted from now, a bound and a day written with slashes (which number
// is the month differs by country) name none. The words naming them are
// the question's.
func TestAsked(t *testing.T) {
	at := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		question string
		want     []Day
		words    []string
	}{
		{"who is coming to the dentist appointment on 4 April?", []Day{{0, time.April, 4}}, []string{"on", "4", "april"}},
		{"who is coming on April 4th?", []Day{{0, time.April, 4}}, []string{"on", "april", "4th"}},
		{"who is coming on April 4?", []Day{{0, time.April, 4}}, []string{"on", "april", "4"}},
		{"who is coming on the 4th of April?", []Day{{0, time.April, 4}}, []string{"on", "the", "4th", "of", "april"}},
		{"who is coming on 4 April 2023?", []Day{{2023, time.April, 4}}, []string{"on", "4", "april", "2023"}},
		{"who is coming on April 4th, 2023?", []Day{{2023, time.April, 4}}, []string{"on", "april", "4th", "2023"}},
		{"who is coming on 2026-04-04?", []Day{{2026, time.April, 4}}, []string{"on", "2026", "04", "04"}},
		{"what did we decide on 3 March?", []Day{{0, time.March, 3}}, []string{"on", "3", "march"}},
		{"who is coming with me on the 4th?", []Day{{0, 0, 4}}, []string{"4th"}},
		{"what did we decide on the 21st, and why?", []Day{{0, 0, 21}}, []string{"21st"}},
		{"what did we decide in April?", nil, nil},
		{"what did we decide yesterday?", nil, nil},
		{"what did we decide since 4 April?", nil, nil},
		{"who is coming on 4/4?", nil, nil},
		{"who is on the 4th floor?", nil, nil},
		{"who is coming on the 32nd?", nil, nil},
	}
	for _, tt := range tests {
		days, words := Asked(tt.question, Read(tt.question, at).Spans)
		if !slices.Equal(days, tt.want) || !slices.Equal(words, tt.words) {
			t.Errorf("%q: got days %v, words %q; want %v, %q", tt.question, days, words, tt.want, tt.words)
		}
	}
}

// TestLastOn: what was said on a day a question names was said on the last
// such day up to now.
func TestLastOn(t *testing.T) {
	now := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		day  Day
		want time.Time
	}{
		{Day{0, 0, 4}, time.Date(2026, 1, 4, 0, 0, 0, 0, time.UTC)},
		{Day{0, 0, 1}, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)},
		{Day{0, 0, 31}, time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)},
		{Day{0, time.March, 3}, time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)},
		{Day{0, time.January, 31}, time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)},
		{Day{0, time.February, 29}, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
		{Day{2023, time.April, 4}, time.Date(2023, 4, 4, 0, 0, 0, 0, time.UTC)},
	} {
		if got := tt.day.LastOn(now); !got.Equal(tt.want) {
			t.Errorf("%v.LastOn(%s) = %s, want %s", tt.day, now, got, tt.want)
		}
	}
}

// TestNamesDay: a text names 4 April in any common form, of any year
// unless asked with one; "14 April", "2023-04-14", "10:45", the month
// alone and "4/4" do not.
func TestNamesDay(t *testing.T) {
	at := time.Date(2023, 3, 3, 9, 0, 0, 0, time.UTC)
	asked := []Day{{0, time.April, 4}}
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
		d, start, ok := NamesDay(tt.text, at, false, asked)
		if ok != tt.want {
			t.Errorf("NamesDay(%q) = %v, want %v", tt.text, ok, tt.want)
			continue
		}
		if ok && (d != asked[0] || !strings.ContainsAny(tt.text[start:], "04")) {
			t.Errorf("NamesDay(%q) = %v at %d", tt.text, d, start)
		}
	}
	// Asked with its year, a day of another year is another day.
	if _, _, ok := NamesDay("Tuesday 4 April 2023", at, true, []Day{{2024, time.April, 4}}); ok {
		t.Errorf("4 April 2023 names 4 April 2024")
	}
	// A year-less day read withYear is of the year around at.
	if _, _, ok := NamesDay("on 4 April", at, true, []Day{{2023, time.April, 4}}); !ok {
		t.Errorf("4 April said in March 2023 does not name 4 April 2023")
	}
}

// FuzzAsked: any text read for the days it names neither panics nor
// names a day that is not one.
func FuzzAsked(f *testing.F) {
	for _, s := range []string{"Tuesday 4 April 2023, at 10:30.", "on the 4th of April", "2023-04-04", "14 April", "4/4", "the 31st?", ""} {
		f.Add(s)
	}
	at := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, text string) {
		days, _ := Asked(text, Find(text, at))
		for _, d := range days {
			if d.Day < 1 || d.Day > 31 || d.Month < 0 || d.Month > 12 {
				t.Errorf("%q names %v", text, d)
			}
		}
		NamesDay(text, at, true, days)
	})
}
