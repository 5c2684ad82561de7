package extractor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ctx0/ctx0/index/query/when"
	"github.com/ctx0/ctx0/internal/lazy"
)

// dayBoost is how much more a candidate scores when it names the day the
// question names ("the dentist appointment on 4 April": "When is it?"
// "Tuesday 4 April 2023"), or was said or learned on it ("what did we
// decide on 3 March?"): twice as much, as for a window (windowBoost), so
// that it goes ahead of an equal one that names only the month or
// another day of it.
const dayBoost = 1.0

// calendarDay is a day a text names as a calendar does: its month and
// day, and its year when the words give one (0 when they do not). Its
// month is 0 for a day of the month said alone ("on the 4th").
type calendarDay struct {
	year  int
	month time.Month
	day   int
}

// same reports whether d and o are one day: a year either leaves out is
// any year's, as a person hears "4 April" of the coming or the last one,
// and a month either leaves out any month's.
func (d calendarDay) same(o calendarDay) bool {
	return d.day == o.day && (d.month == 0 || o.month == 0 || d.month == o.month) && (d.year == 0 || o.year == 0 || d.year == o.year)
}

func (d calendarDay) String() string {
	if d.month == 0 {
		return fmt.Sprintf("day %d of a month", d.day)
	}
	s := time.Date(2000, d.month, d.day, 0, 0, 0, 0, time.UTC).Format("2 January")
	if d.year != 0 {
		s += " " + time.Date(d.year, 1, 1, 0, 0, 0, 0, time.UTC).Format("2006")
	}
	return s
}

// namedDays returns the days spans name as a calendar does, each a day
// long ("4 April", "April 4th", "the 4th of April", "2026-04-04"), with
// their year when spans gave one (withYear) and 0 otherwise. Days counted
// from now ("yesterday"), weeks, months, and what bounds a time ("since 4
// April") are not named days. A day written with slashes ("4/4") is not
// read: which number is the month differs by country.
func namedDays(spans []when.Span, withYear bool) []calendarDay {
	var out []calendarDay
	for _, s := range spans {
		w := s.Window
		if !s.Named || s.Event != "" || s.Op != "" || w.Since.IsZero() || !w.Until.Equal(w.Since.AddDate(0, 0, 1)) {
			continue
		}
		d := calendarDay{month: w.Since.Month(), day: w.Since.Day()}
		if withYear || givesYear(s.Text) {
			d.year = w.Since.Year()
		}
		out = append(out, d)
	}
	return out
}

// givesYear reports whether the words of a time give its year: a year
// ("4 April 2023") or an ISO date.
func givesYear(text string) bool {
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return r != '-' && (r < '0' || r > '9') }) {
		if len(w) >= 4 && isDigits(w[:4]) && (len(w) == 4 || w[4] == '-') {
			return true
		}
	}
	return false
}

// ordinalDay is a day of the month said alone at the end of a clause ("who
// is coming on the 4th?"), which month the question leaves to the
// listener; "the 4th floor", "the 4th time" are not days.
var ordinalDay = lazy.Regexp(`(?i)\bthe\s+(([1-9]|[12][0-9]|3[01])(?:st|nd|rd|th))\s*(?:$|[?!.,;:])`)

// askedDays are the days the question names (see namedDays), and the
// days of the month it names alone: a text that names one holds what the
// question asks of that day, and what was said on it may be what the
// question asks happened then.
func (r *retrieval) askedDays() []calendarDay {
	days := namedDays(r.when.Spans, false)
	if r.req.Plan == nil {
		return days
	}
	for _, m := range ordinalDay().FindAllStringSubmatch(r.req.Query, -1) {
		d, _ := strconv.Atoi(m[2])
		days = append(days, calendarDay{day: d})
	}
	return days
}

// onDay boosts a candidate whose passage names a day the question names,
// in any of its common forms, or that happened on the last such day up to
// now (a session's date, an entry's; see lastOn): a date in a question is
// as often the day of something spoken of weeks before as the day it was
// said, so both are evidence, and neither keeps the other out as a window
// does.
func (r *retrieval) onDay(c *candidate) {
	asked := r.askedDays()
	if len(asked) == 0 {
		return
	}
	// A year-less day in the passage is of the year around when it was
	// said.
	at := c.date
	if at.IsZero() {
		at = r.m.now()
	}
	named := namedDays(when.Find(c.passage.text, at), true)
	for _, a := range asked {
		if slices.ContainsFunc(named, a.same) {
			c.mult *= 1 + dayBoost
			c.why = append(c.why, "names "+a.String())
			return
		}
	}
	if c.date.IsZero() {
		return
	}
	y, m, d := c.date.Date()
	for _, a := range asked {
		last := a.lastOn(r.m.now())
		if ly, lm, ld := last.Date(); !last.IsZero() && y == ly && m == lm && d == ld {
			c.mult *= 1 + dayBoost
			c.why = append(c.why, "said on "+a.String())
			return
		}
	}
}

// matcherFor returns the matcher of t for this question: a text that
// names a day the question names holds the words naming it.
func (r *retrieval) matcherFor(t terms) matcher {
	m := matcher{t: t, days: r.askedDays(), now: r.m.now()}
	if len(m.days) == 0 {
		return m
	}
	dayWords := map[string]bool{}
	for _, s := range r.when.Spans {
		if len(namedDays([]when.Span{s}, false)) == 0 {
			continue
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(s.Text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			dayWords[w] = true
		}
	}
	if r.req.Plan != nil {
		for _, m := range ordinalDay().FindAllStringSubmatch(r.req.Query, -1) {
			dayWords[strings.ToLower(m[1])] = true
		}
	}
	for i, w := range t.words {
		if dayWords[w] {
			m.dayTerms = append(m.dayTerms, i)
		}
	}
	return m
}

// lastOn is the latest day up to now that d names: d itself when it
// gives its year, else this year's or an earlier one's ("what did we
// decide on 3 March?" asks of the last 3 March), this month's or an
// earlier one's for a day of the month said alone ("on the 4th"); zero
// when there is none within a few years (29 February).
func (d calendarDay) lastOn(now time.Time) time.Time {
	at := func(y int, m time.Month) time.Time { return time.Date(y, m, d.day, 0, 0, 0, 0, now.Location()) }
	if d.year != 0 {
		return at(d.year, d.month)
	}
	for k := 0; k < 8; k++ {
		t := at(now.Year()-k, d.month)
		if d.month == 0 {
			t = at(now.Year(), now.Month()-time.Month(k))
		}
		if t.Day() == d.day && !t.After(now) {
			return t
		}
	}
	return time.Time{}
}
