// Package when reads the times that people and agents say in words ("last
// week", "yesterday", "in March", "on 8 May 2023", "3 days ago", "since
// the launch") and resolves them against a given now into windows of time.
// It is pure: no clock, no files; now is always an argument, so a question
// asked today and a conversation replayed from 2023 read alike.
//
// Weeks start on Monday. A month or a weekday without a year is the most
// recent one not after now ("in March", "last Friday"), or the next one
// after now when the words say so ("next Friday"); a day of a month
// without a year ("on May 8") is the nearest such day. Bare weekday names,
// month names without a preposition or a day ("may", "march"), and bare
// numbers are not read as times: they too often mean something else.
package when

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// Window is a span of time, from Since (included) to Until (excluded). A
// zero bound is open.
type Window struct {
	Since, Until time.Time
}

// IsZero reports whether w bounds nothing.
func (w Window) IsZero() bool { return w.Since.IsZero() && w.Until.IsZero() }

// Contains reports whether t is in w.
func (w Window) Contains(t time.Time) bool {
	return (w.Since.IsZero() || !t.Before(w.Since)) && (w.Until.IsZero() || t.Before(w.Until))
}

// Intersect returns the time both windows hold; it may be empty (Since
// not before Until).
func (w Window) Intersect(o Window) Window {
	if w.Since.IsZero() || o.Since.After(w.Since) {
		w.Since = o.Since
	}
	if w.Until.IsZero() || !o.Until.IsZero() && o.Until.Before(w.Until) {
		w.Until = o.Until
	}
	return w
}

// String writes w as dates: a day (2023-05-07), a calendar month
// (2023-03), a calendar year (2023), a range (2023-05-01 to 2023-05-07,
// its last day included), or an open one (since 2023-05-01, before
// 2023-05-01).
func (w Window) String() string {
	const day = "2006-01-02"
	switch {
	case w.IsZero():
		return ""
	case w.Until.IsZero():
		return "since " + w.Since.Format(day)
	case w.Since.IsZero():
		return "before " + w.Until.Format(day)
	}
	s, u := w.Since, w.Until
	midnight := func(t time.Time) bool {
		return t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0
	}
	if midnight(s) && midnight(u) {
		switch {
		case u.Equal(s.AddDate(0, 0, 1)):
			return s.Format(day)
		case s.Day() == 1 && u.Equal(s.AddDate(0, 1, 0)):
			return s.Format("2006-01")
		case s.YearDay() == 1 && u.Equal(s.AddDate(1, 0, 0)):
			return s.Format("2006")
		}
		return s.Format(day) + " to " + u.AddDate(0, 0, -1).Format(day)
	}
	return s.Format(day) + " to " + u.Format(day)
}

// Span is a time expression found in a text.
type Span struct {
	Start, End int    // byte offsets of the words in the text
	Text       string // the words
	// Window is the time the words name. It is zero for an Event.
	Window Window
	// Event is set for words that place a time by an event rather than a
	// date ("since the launch"): the words naming the event ("launch"),
	// which a caller may date by what mentions it.
	Event string
	// Op is how the window or the event bounds time: "" (in it), since,
	// after, before or until.
	Op string
	// Named is set when the words name a date as a calendar does (a day
	// or month number, a month's name, a year: "8 May", "March 2023"),
	// rather than counting from now ("yesterday", "last week"): a text
	// about the same time may hold them as written.
	Named bool
}

// Reading is what a question says about time.
type Reading struct {
	// Window is the time the question asks about: the intersection of
	// its spans' windows; zero when it names none.
	Window Window
	// Rest is the question without its time expressions.
	Rest string
	// Spans are the time expressions, in order.
	Spans []Span
	// AsksWhen is set for a question about when something happened
	// ("when did we ...").
	AsksWhen bool
}

// Events returns the spans that place a time by an event.
func (r Reading) Events() []Span {
	var out []Span
	for _, s := range r.Spans {
		if s.Event != "" {
			out = append(out, s)
		}
	}
	return out
}

// Read reads the time expressions of a question asked at now.
func Read(text string, now time.Time) Reading {
	r := Reading{Spans: Find(text, now)}
	var rest strings.Builder
	at := 0
	for _, s := range r.Spans {
		rest.WriteString(text[at:s.Start])
		rest.WriteString(" ")
		at = s.End
		if s.Event == "" {
			r.Window = r.Window.Intersect(s.Window)
		}
	}
	rest.WriteString(text[at:])
	r.Rest = strings.Join(strings.Fields(rest.String()), " ")
	toks := tokenize(text)
	r.AsksWhen = len(toks) > 0 && toks[0].w == "when" || strings.Contains(strings.ToLower(text), "what date") || strings.Contains(strings.ToLower(text), "what day")
	return r
}

// Find returns the time expressions of text, said at now, in order.
func Find(text string, now time.Time) []Span {
	toks := tokenize(text)
	var out []Span
	for i := 0; i < len(toks); {
		s, n := match(toks, i, now)
		if n == 0 {
			i++
			continue
		}
		s.Start, s.End = toks[i].start, toks[i+n-1].end
		s.Text = text[s.Start:s.End]
		s.Named = named(toks[i : i+n])
		out = append(out, s)
		i += n
	}
	return out
}

// Annotate writes beside each relative time expression of text the dates
// it names, said at now: "yesterday" becomes "yesterday (2023-05-07)".
// Expressions that are dates already ("8 May 2023"), events, and open
// windows are left as they are, and so is an expression already followed
// by a parenthesis.
func Annotate(text string, now time.Time) string {
	var b strings.Builder
	at := 0
	for _, s := range Find(text, now) {
		if s.Event != "" || s.Window.Since.IsZero() || s.Window.Until.IsZero() || absolute(s.Text) || vague[strings.ToLower(s.Text)] || seasonal(s.Text) {
			continue
		}
		if rest := strings.TrimLeft(text[s.End:], " "); strings.HasPrefix(rest, "(") {
			continue
		}
		b.WriteString(text[at:s.End])
		fmt.Fprintf(&b, " (%s)", s.Window)
		at = s.End
	}
	b.WriteString(text[at:])
	return b.String()
}

// named reports whether toks name a date as a calendar does.
func named(toks []tok) bool {
	for _, t := range toks {
		if _, month := monthOf(t.w); month || t.num >= 1000 || len(t.w) >= 7 && allDigits(t.w[:4]) {
			return true
		}
	}
	return false
}

// vague are words read as a time that say too little to be dated in a
// text.
var vague = map[string]bool{"recently": true, "lately": true}

// seasonal reports whether the words of a span name a season: "in the
// summer" said in passing is rarely a date worth writing beside it.
func seasonal(text string) bool {
	for _, t := range tokenize(text) {
		if _, ok := seasons[t.w]; ok {
			return true
		}
	}
	return false
}

// absolute reports whether the words of a span give a year: they name
// their dates already.
func absolute(text string) bool {
	for _, t := range tokenize(text) {
		if _, ok := iso(t.w, time.UTC); ok || t.num >= 1000 {
			return true
		}
	}
	return false
}

// tok is a word of a text: lowercased, with its byte offsets, and its
// value when it is a number ("8", "8th", "2023"), else -1.
type tok struct {
	w          string
	start, end int
	num        int
}

func tokenize(text string) []tok {
	var out []tok
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := strings.ToLower(text[start:end])
		out = append(out, tok{w: w, start: start, end: end, num: number(w)})
		start = -1
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' && start >= 0 && isoPart(text[start:i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(text))
	return out
}

// isoPart reports whether s may be the start of an ISO date (2023, 2023-05).
func isoPart(s string) bool {
	return len(s) == 4 && allDigits(s) || len(s) == 7 && allDigits(s[:4]) && s[4] == '-' && allDigits(s[5:])
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// number reads a number or an ordinal written in digits: 8, 8th, 2023;
// -1 for anything else.
func number(w string) int {
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		if d, ok := strings.CutSuffix(w, suf); ok && allDigits(d) && len(d) <= 2 {
			w = d
			break
		}
	}
	if !allDigits(w) || len(w) > 4 {
		return -1
	}
	n := 0
	for i := 0; i < len(w); i++ {
		n = n*10 + int(w[i]-'0')
	}
	return n
}
