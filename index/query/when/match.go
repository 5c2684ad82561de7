package when

import (
	"strings"
	"time"
)

// ops are the words that bound time by what follows them.
var ops = map[string]string{"since": "since", "from": "since", "after": "after", "before": "before", "until": "until", "till": "until"}

// preps are the words that may stand before a time and belong to it ("in
// March", "on 8 May"); after one, a month name or a year alone is a time.
var preps = map[string]bool{"in": true, "on": true, "during": true, "of": true, "at": true, "within": true, "over": true, "for": true, "by": true}

// match reads the time expression that starts at toks[i]: the span and
// the number of words it takes, 0 if none starts there.
func match(toks []tok, i int, now time.Time) (Span, int) {
	w := toks[i].w
	if op, ok := ops[w]; ok {
		if b, n := base(toks, i+1, now, true); n > 0 {
			// from X to Y, since X until Y: a range.
			if j := i + 1 + n; j < len(toks) && (toks[j].w == "to" || toks[j].w == "until" || toks[j].w == "till") && op == "since" {
				if e, m := base(toks, j+1, now, true); m > 0 && b.Since.Before(e.Until) {
					return Span{Window: Window{b.Since, e.Until}}, 2 + n + m
				}
			}
			return Span{Window: ByOp(op, b), Op: op}, 1 + n
		}
		if ev, n := event(toks, i+1); n > 0 {
			return Span{Event: ev, Op: op}, 1 + n
		}
		return Span{}, 0
	}
	if w == "between" {
		if a, n := base(toks, i+1, now, true); n > 0 {
			if j := i + 1 + n; j < len(toks) && toks[j].w == "and" {
				if b, m := base(toks, j+1, now, true); m > 0 && a.Since.Before(b.Until) {
					return Span{Window: Window{a.Since, b.Until}}, 2 + n + m
				}
			}
		}
		return Span{}, 0
	}
	if preps[w] {
		if b, n := base(toks, i+1, now, true); n > 0 {
			return Span{Window: b}, 1 + n
		}
		return Span{}, 0
	}
	if b, n := base(toks, i, now, false); n > 0 {
		return Span{Window: b}, n
	}
	return Span{}, 0
}

// ByOp is the time op says of a window: since it began, after it ended,
// before it began, until it ended; "" is the window itself.
func ByOp(op string, w Window) Window {
	switch op {
	case "since":
		return Window{Since: w.Since}
	case "after":
		return Window{Since: w.Until}
	case "before":
		return Window{Until: w.Since}
	case "until":
		return Window{Until: w.Until}
	}
	return w
}

// determiners start the name of an event ("since the launch").
var determiners = map[string]bool{"the": true, "my": true, "our": true, "his": true, "her": true, "their": true, "your": true}

// eventStop ends the name of an event.
var eventStop = map[string]bool{"and": true, "or": true, "to": true, "in": true, "on": true, "at": true, "of": true, "with": true, "for": true, "we": true, "i": true, "you": true, "did": true, "was": true, "is": true, "what": true, "how": true, "who": true, "have": true, "has": true, "had": true}

// event reads the name of an event after a determiner: at most three
// words.
func event(toks []tok, i int) (string, int) {
	if i >= len(toks) || !determiners[toks[i].w] {
		return "", 0
	}
	var words []string
	j := i + 1
	for ; j < len(toks) && len(words) < 3 && !eventStop[toks[j].w] && toks[j].num < 0; j++ {
		words = append(words, toks[j].w)
	}
	if len(words) == 0 {
		return "", 0
	}
	return strings.Join(words, " "), j - i
}

// base reads a time at toks[i]: the window and the number of words.
// afterPrep says a preposition or an operator came before, so that a
// month name or a year alone is taken for a time.
func base(toks []tok, i int, now time.Time, afterPrep bool) (Window, int) {
	if i >= len(toks) {
		return Window{}, 0
	}
	the := 0
	if toks[i].w == "the" {
		the = 1
		i++
		if i >= len(toks) {
			return Window{}, 0
		}
	}
	w, n := base1(toks, i, now, afterPrep || the == 1)
	if n == 0 || w.IsZero() {
		return Window{}, 0
	}
	return w, the + n
}

func base1(toks []tok, i int, now time.Time, afterPrep bool) (Window, int) {
	today := day(now)
	at := func(j int) string {
		if j < len(toks) {
			return toks[j].w
		}
		return ""
	}
	w := toks[i].w
	switch w {
	case "today", "tonight":
		return days(today, 1), 1
	case "yesterday":
		return days(today.AddDate(0, 0, -1), 1), 1
	case "tomorrow":
		return days(today.AddDate(0, 0, 1), 1), 1
	case "recently", "lately":
		return Window{today.AddDate(0, 0, -30), today.AddDate(0, 0, 1)}, 1
	case "day":
		// the day before yesterday, the day after tomorrow
		switch {
		case at(i+1) == "before" && at(i+2) == "yesterday":
			return days(today.AddDate(0, 0, -2), 1), 3
		case at(i+1) == "after" && at(i+2) == "tomorrow":
			return days(today.AddDate(0, 0, 2), 1), 3
		}
		return Window{}, 0
	case "this", "last", "next", "past", "coming":
		return relative(toks, i, now)
	}
	// the week before (last), the month before last: counted back from
	// last week, the one a question about the past is heard against.
	if u, ok := unitOf(w); ok && u != "day" && !strings.HasSuffix(w, "s") && at(i+1) == "before" && i > 0 && toks[i-1].w == "the" {
		n := 2
		if at(i+2) == "last" {
			n++
		}
		return ago(now, 2, u), n
	}
	if se, ok := seasons[w]; ok {
		// spring 2024, the summer of 2023, in the autumn
		j := i + 1
		if at(j) == "of" && yearAt(toks, j+1) > 0 {
			j++
		}
		if y := yearAt(toks, j); y > 0 {
			return seasonOf(y, se, now.Location()), j + 1 - i
		}
		if afterPrep {
			return season(now, se, ""), 1
		}
		return Window{}, 0
	}
	if t, ok := iso(w, now.Location()); ok {
		if len(w) == 7 {
			return months(t, 1), 1
		}
		return days(t, 1), 1
	}
	if n, used := count(toks, i); used > 0 {
		if u, ok := unitOf(at(i + used)); ok && at(i+used+1) == "ago" {
			return ago(now, n, u), used + 2
		}
	}
	if d := toks[i].num; d >= 1 && d <= 31 {
		// 8 May, 8th of May, 8 May 2023
		j := i + 1
		if at(j) == "of" {
			j++
		}
		if m, ok := monthOf(at(j)); ok {
			if y := yearAt(toks, j+1); y > 0 {
				return dayOf(y, m, d, now.Location()), j + 2 - i
			}
			return nearestDay(now, m, d), j + 1 - i
		}
		return Window{}, 0
	}
	if m, ok := monthOf(w); ok {
		// May 8, May 8th 2023, March 2023, March of 2023, in March
		j := i + 1
		if d := toks[min(j, len(toks)-1)].num; j < len(toks) && d >= 1 && d <= 31 {
			if y := yearAt(toks, j+1); y > 0 {
				return dayOf(y, m, d, now.Location()), 3
			}
			return nearestDay(now, m, d), 2
		}
		if at(j) == "of" && yearAt(toks, j+1) > 0 {
			return months(time.Date(yearAt(toks, j+1), m, 1, 0, 0, 0, 0, now.Location()), 1), 3
		}
		if y := yearAt(toks, j); y > 0 {
			return months(time.Date(y, m, 1, 0, 0, 0, 0, now.Location()), 1), 2
		}
		// March last year, May next year
		if step, ok := steps[at(j)]; ok && at(j+1) == "year" {
			return months(time.Date(now.Year()+step, m, 1, 0, 0, 0, 0, now.Location()), 1), 3
		}
		if afterPrep {
			return months(recentMonth(now, m, false), 1), 1
		}
		return Window{}, 0
	}
	if y := toks[i].num; afterPrep && y >= 1900 && y <= 2199 {
		return Window{time.Date(y, 1, 1, 0, 0, 0, 0, now.Location()), time.Date(y+1, 1, 1, 0, 0, 0, 0, now.Location())}, 1
	}
	return Window{}, 0
}

// relative reads "this/last/next/past/coming" and what follows: a unit
// (week, month, year, weekend), a number of units, a weekday, a month, or
// a part of today.
func relative(toks []tok, i int, now time.Time) (Window, int) {
	today := day(now)
	which := toks[i].w
	if i+1 >= len(toks) {
		return Window{}, 0
	}
	next := toks[i+1].w
	step := steps[which]
	switch next {
	case "morning", "afternoon", "evening", "night":
		if which == "this" {
			return days(today, 1), 2
		}
		if which == "last" && next == "night" {
			return days(today.AddDate(0, 0, -1), 1), 2
		}
		return Window{}, 0
	}
	if (which == "last" || which == "past") && i+2 < len(toks) {
		// the last 3 days, the past two weeks: up to today.
		if n, used := count(toks, i+1); used > 0 && n > 1 {
			if u, ok := unitOf(toks[i+1+used].w); ok {
				return rolling(today, n, u), 1 + used + 1
			}
		}
	}
	if u, ok := unitOf(next); ok && !strings.HasSuffix(next, "s") {
		if which == "past" {
			return rolling(today, 1, u), 2
		}
		switch u {
		case "day":
			return Window{}, 0
		case "week":
			return days(weekStart(today).AddDate(0, 0, 7*step), 7), 2
		case "month":
			return months(time.Date(today.Year(), today.Month()+time.Month(step), 1, 0, 0, 0, 0, today.Location()), 1), 2
		case "year":
			return Window{time.Date(today.Year()+step, 1, 1, 0, 0, 0, 0, today.Location()), time.Date(today.Year()+step+1, 1, 1, 0, 0, 0, 0, today.Location())}, 2
		}
	}
	if se, ok := seasons[next]; ok {
		return season(now, se, which), 2
	}
	if next == "weekend" && which != "past" {
		return days(weekStart(today).AddDate(0, 0, 7*step+5), 2), 2
	}
	if wd, ok := weekdayOf(next); ok {
		switch which {
		case "last", "past":
			d := today.AddDate(0, 0, -1)
			for d.Weekday() != wd {
				d = d.AddDate(0, 0, -1)
			}
			return days(d, 1), 2
		case "next", "coming":
			d := today.AddDate(0, 0, 1)
			for d.Weekday() != wd {
				d = d.AddDate(0, 0, 1)
			}
			return days(d, 1), 2
		default:
			off := (int(wd) + 6) % 7 // Monday 0
			return days(weekStart(today).AddDate(0, 0, off), 1), 2
		}
	}
	// "this may" is more often a verb than a month.
	if m, ok := monthOf(next); ok && !(which == "this" && next == "may") {
		switch which {
		case "this":
			return months(time.Date(today.Year(), m, 1, 0, 0, 0, 0, today.Location()), 1), 2
		case "last", "past":
			return months(recentMonth(now, m, true), 1), 2
		default:
			t := time.Date(today.Year(), m, 1, 0, 0, 0, 0, today.Location())
			if m <= today.Month() {
				t = t.AddDate(1, 0, 0)
			}
			return months(t, 1), 2
		}
	}
	return Window{}, 0
}

// seasons are the seasons as the calendar months of the northern
// hemisphere hold them: the month each begins in.
var seasons = map[string]time.Month{"spring": time.March, "summer": time.June, "autumn": time.September, "fall": time.September, "winter": time.December}

// seasonOf is the season that begins in month m of year y, a winter the
// one that ends in y (winter 2024 is December 2023 to February 2024).
func seasonOf(y int, m time.Month, loc *time.Location) Window {
	if m == time.December {
		y--
	}
	return months(time.Date(y, m, 1, 0, 0, 0, 0, loc), 3)
}

// season is a season of the kind that begins in month m, said with
// which (this, last, next, or "" for "in spring"): "in spring" is the
// latest begun by now; "last spring" the latest over; "next spring" the
// first to begin after now; "this spring" the one now is in, else the
// one that begins this calendar year.
func season(now time.Time, m time.Month, which string) Window {
	today := day(now)
	y := today.Year() + 1
	if m == time.December {
		y++
	}
	latest := seasonOf(y, m, now.Location())
	for latest.Since.After(today) {
		latest = Window{latest.Since.AddDate(-1, 0, 0), latest.Until.AddDate(-1, 0, 0)}
	}
	year := func(w Window, n int) Window { return Window{w.Since.AddDate(n, 0, 0), w.Until.AddDate(n, 0, 0)} }
	switch which {
	case "last", "past":
		if latest.Contains(today) {
			return year(latest, -1)
		}
		return latest
	case "next", "coming":
		return year(latest, 1)
	case "this":
		if latest.Contains(today) || latest.Since.Year() == today.Year() {
			return latest
		}
		return year(latest, 1)
	}
	return latest
}

// steps are the words that place a time relative to now, by how many
// units.
var steps = map[string]int{"this": 0, "last": -1, "past": -1, "next": 1, "coming": 1}

// count reads a count of units: 3, three, a, a few, a couple of,
// several. used is the number of words, 0 if none.
func count(toks []tok, i int) (n, used int) {
	at := func(j int) string {
		if j < len(toks) {
			return toks[j].w
		}
		return ""
	}
	if v := toks[i].num; v > 0 && v < 1000 && allDigits(toks[i].w) {
		return v, 1
	}
	switch {
	case at(i) == "a" && at(i+1) == "few":
		return 3, 2
	case at(i) == "a" && at(i+1) == "couple" && at(i+2) == "of":
		return 2, 3
	case at(i) == "couple" && at(i+1) == "of":
		return 2, 2
	}
	if v, ok := countWords[at(i)]; ok {
		return v, 1
	}
	return 0, 0
}

var countWords = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "few": 3, "several": 3}

// unitOf reads a unit of time, singular or plural.
func unitOf(w string) (string, bool) {
	u := strings.TrimSuffix(w, "s")
	switch u {
	case "day", "week", "month", "year":
		return u, true
	}
	return "", false
}

// ago is the day, week, month or year n units before now.
func ago(now time.Time, n int, unit string) Window {
	today := day(now)
	switch unit {
	case "day":
		return days(today.AddDate(0, 0, -n), 1)
	case "week":
		return days(weekStart(today.AddDate(0, 0, -7*n)), 7)
	case "month":
		t := today.AddDate(0, 0, 1-today.Day())
		return months(t.AddDate(0, -n, 0), 1)
	default:
		return Window{time.Date(today.Year()-n, 1, 1, 0, 0, 0, 0, today.Location()), time.Date(today.Year()-n+1, 1, 1, 0, 0, 0, 0, today.Location())}
	}
}

// rolling is the n units up to today, today included.
func rolling(today time.Time, n int, unit string) Window {
	end := today.AddDate(0, 0, 1)
	switch unit {
	case "day":
		return Window{today.AddDate(0, 0, -n), end}
	case "week":
		return Window{today.AddDate(0, 0, -7*n), end}
	case "month":
		return Window{today.AddDate(0, -n, 0), end}
	default:
		return Window{today.AddDate(-n, 0, 0), end}
	}
}

func day(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

func days(from time.Time, n int) Window { return Window{from, from.AddDate(0, 0, n)} }

func months(from time.Time, n int) Window { return Window{from, from.AddDate(0, n, 0)} }

// weekStart is the Monday of t's week.
func weekStart(t time.Time) time.Time {
	return t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7))
}

// recentMonth is the first day of the most recent month m not after now's
// month (before it, if strictly).
func recentMonth(now time.Time, m time.Month, strictly bool) time.Time {
	t := time.Date(now.Year(), m, 1, 0, 0, 0, 0, now.Location())
	if m > now.Month() || strictly && m == now.Month() {
		t = t.AddDate(-1, 0, 0)
	}
	return t
}

// nearestDay is the day m/d nearest to now: this year's, last year's or
// next year's.
func nearestDay(now time.Time, m time.Month, d int) Window {
	today := day(now)
	best := Window{}
	var gap time.Duration
	for _, y := range []int{today.Year() - 1, today.Year(), today.Year() + 1} {
		w := dayOf(y, m, d, now.Location())
		if w.IsZero() {
			continue
		}
		g := w.Since.Sub(today)
		if g < 0 {
			g = -g
		}
		if best.IsZero() || g < gap {
			best, gap = w, g
		}
	}
	return best
}

// dayOf is the day d of month m of year y, zero if there is none (30
// February).
func dayOf(y int, m time.Month, d int, loc *time.Location) Window {
	t := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if t.Day() != d {
		return Window{}
	}
	return days(t, 1)
}

// yearAt reads a year at toks[i], 0 if none.
func yearAt(toks []tok, i int) int {
	if i < len(toks) && toks[i].num >= 1000 && allDigits(toks[i].w) {
		return toks[i].num
	}
	return 0
}

// iso reads 2023-05-08 or 2023-05, in loc.
func iso(w string, loc *time.Location) (time.Time, bool) {
	var layout string
	switch len(w) {
	case 10:
		layout = "2006-01-02"
	case 7:
		layout = "2006-01"
	default:
		return time.Time{}, false
	}
	t, err := time.ParseInLocation(layout, w, loc)
	return t, err == nil
}

var monthNames = map[string]time.Month{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
	"september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

func monthOf(w string) (time.Month, bool) {
	m, ok := monthNames[w]
	return m, ok
}

var weekdays = map[string]time.Weekday{
	"monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday, "thursday": time.Thursday,
	"friday": time.Friday, "saturday": time.Saturday, "sunday": time.Sunday,
}

func weekdayOf(w string) (time.Weekday, bool) {
	d, ok := weekdays[w]
	return d, ok
}
