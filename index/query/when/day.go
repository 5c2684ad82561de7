package when

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ctx0/ctx0/internal/lazy"
)

// Day is a day a text names as a calendar does: its month and day, and its
// year when the words give one (0 when they do not). Its Month is 0 for a
// day of the month said alone ("on the 4th").
type Day struct {
	Year  int
	Month time.Month
	Day   int
}

// Same reports whether d and o are one day: a year either leaves out is
// any year's, as a person hears "4 April" of the coming or the last one,
// and a month either leaves out any month's.
func (d Day) Same(o Day) bool {
	return d.Day == o.Day && (d.Month == 0 || o.Month == 0 || d.Month == o.Month) && (d.Year == 0 || o.Year == 0 || d.Year == o.Year)
}

func (d Day) String() string {
	if d.Month == 0 {
		return fmt.Sprintf("day %d of a month", d.Day)
	}
	s := time.Date(2000, d.Month, d.Day, 0, 0, 0, 0, time.UTC).Format("2 January")
	if d.Year != 0 {
		s += " " + time.Date(d.Year, 1, 1, 0, 0, 0, 0, time.UTC).Format("2006")
	}
	return s
}

// LastOn is the latest day up to now that d names: d itself when it gives
// its year, else this year's or an earlier one's ("what did we decide on 3
// March?" asks of the last 3 March), this month's or an earlier one's for
// a day of the month said alone ("on the 4th"); zero when there is none
// within a few years (29 February).
func (d Day) LastOn(now time.Time) time.Time {
	at := func(y int, m time.Month) time.Time { return time.Date(y, m, d.Day, 0, 0, 0, 0, now.Location()) }
	if d.Year != 0 {
		return at(d.Year, d.Month)
	}
	for k := 0; k < 8; k++ {
		t := at(now.Year()-k, d.Month)
		if d.Month == 0 {
			t = at(now.Year(), now.Month()-time.Month(k))
		}
		if t.Day() == d.Day && !t.After(now) {
			return t
		}
	}
	return time.Time{}
}

// Days returns the days spans name as a calendar does, each a day long
// ("4 April", "April 4th", "the 4th of April", "2026-04-04"), with their
// year when spans gave one (withYear) and 0 otherwise. Days counted from
// now ("yesterday"), weeks, months, and what bounds a time ("since 4
// April") are not named days. A day written with slashes ("4/4") is not
// read: which number is the month differs by country.
func Days(spans []Span, withYear bool) []Day {
	var out []Day
	for _, s := range spans {
		w := s.Window
		if !s.Named || s.Event != "" || s.Op != "" || w.Since.IsZero() || !w.Until.Equal(w.Since.AddDate(0, 0, 1)) {
			continue
		}
		d := Day{Month: w.Since.Month(), Day: w.Since.Day()}
		if withYear || givesYear(s.Text) {
			d.Year = w.Since.Year()
		}
		out = append(out, d)
	}
	return out
}

// givesYear reports whether the words of a time give its year: a year
// ("4 April 2023") or an ISO date.
func givesYear(text string) bool {
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return r != '-' && (r < '0' || r > '9') }) {
		if len(w) >= 4 && allDigits(w[:4]) && (len(w) == 4 || w[4] == '-') {
			return true
		}
	}
	return false
}

// ordinalDay is a day of the month said alone at the end of a clause ("who
// is coming on the 4th?"), which month the question leaves to the
// listener; "the 4th floor", "the 4th time" are not days.
var ordinalDay = lazy.Regexp(`(?i)\bthe\s+(([1-9]|[12][0-9]|3[01])(?:st|nd|rd|th))\s*(?:$|[?!.,;:])`)

// Asked are the days a question asked at now names: those its time
// expressions name as a calendar does (see Days), without a year unless
// they give it, and the days of the month it names alone ("on the 4th");
// and words, the question's words that name them, in lower case. A text
// that names one of those days in any form holds what the question asks
// of that day, and what was said on it may be what the question asks
// happened then.
func Asked(question string, spans []Span) (days []Day, words []string) {
	for _, s := range spans {
		ds := Days([]Span{s}, false)
		if len(ds) == 0 {
			continue
		}
		days = append(days, ds...)
		words = append(words, strings.FieldsFunc(strings.ToLower(s.Text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })...)
	}
	for _, m := range ordinalDay().FindAllStringSubmatch(question, -1) {
		d, _ := strconv.Atoi(m[2])
		days = append(days, Day{Day: d})
		words = append(words, strings.ToLower(m[1]))
	}
	return days, words
}

// NamesDay returns the first of days that text, said at at, names in any
// of its common forms (see Days), and the byte offset of the words that
// name it; ok is false when it names none. withYear reads a day the text
// names without a year as of the year around at (a passage of a
// conversation held then); otherwise it is of any year.
func NamesDay(text string, at time.Time, withYear bool, days []Day) (d Day, start int, ok bool) {
	if len(days) == 0 {
		return Day{}, 0, false
	}
	for _, s := range Find(text, at) {
		for _, n := range Days([]Span{s}, withYear) {
			for _, a := range days {
				if a.Same(n) {
					return a, s.Start, true
				}
			}
		}
	}
	return Day{}, 0, false
}
