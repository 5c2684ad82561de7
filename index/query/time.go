package query

import (
	"slices"
	"strings"
	"time"

	"github.com/ctx0/ctx0/index/query/when"
)

// readTime reads the time p's question says in words, against now: the
// window it counts from now ("last week", "yesterday") or names as a
// stretch of the calendar ("in July 2025", "in 2024", "last spring"), and
// the question without those words, to search for. A day named as a
// calendar does ("on 26 March") stays in the question, for a text about
// that day may hold it as written, and sets no window: it is as often the
// day of an event spoken of before as the day something was said. A
// question in the query syntax is searched as typed and sets no window;
// what it says of time is still read (When).
func (p *Plan) readTime(now time.Time) {
	p.reading = when.Read(p.text, now)
	p.now = now
	p.days, p.dayWords = when.Asked(p.text, p.reading.Spans)
	if len(p.reading.Spans) == 0 || !p.natural {
		return
	}
	var w when.Window
	var b strings.Builder
	at := 0
	for _, s := range p.reading.Spans {
		if s.Named && !calendarSpan(s.Window) {
			continue
		}
		if s.Event == "" {
			w = w.Intersect(s.Window)
		}
		b.WriteString(p.text[at:s.Start])
		b.WriteString(" ")
		at = s.End
	}
	b.WriteString(p.text[at:])
	p.window = w
	if rest := strings.Join(strings.Fields(b.String()), " "); rest != p.text {
		// A day named stays in the rest (see above), and so does what the
		// question asks of it.
		p.rest = Plain(rest)
		p.rest.days, p.rest.dayWords, p.rest.now = p.days, p.dayWords, now
	}
}

// Days returns the days the question names (see when.Asked): a text that
// names one in any of its common forms holds the question's words naming
// it (see Marker.Cover), and ranks above one that names only another day
// of that month; nil for Plain's plans.
func (p *Plan) Days() []when.Day { return slices.Clone(p.days) }

// DayWords returns the question's words that name its Days, in lower
// case.
func (p *Plan) DayWords() []string { return slices.Clone(p.dayWords) }

// Now returns the time the question was read at (Parse); zero for Plain's
// plans. Parse(p.Text(), p.Now()) reads it again alike, as a search in
// another process does.
func (p *Plan) Now() time.Time { return p.now }

// calendarSpan reports whether w is a stretch of the calendar longer
// than a week (a month, a season, a year): the time a question asks
// about, rarely written as such in what was said then.
func calendarSpan(w when.Window) bool {
	return !w.Since.IsZero() && !w.Until.IsZero() && w.Until.Sub(w.Since) > 8*24*time.Hour
}

// When returns what the question says of time: its time expressions, the
// events it places its time by ("since the launch"), whether it asks when.
func (p *Plan) When() when.Reading { return p.reading }

// Window returns the time the question's words ask about, counted from
// now or named as a stretch of the calendar; zero when they name none or
// the question is in the query syntax. Events are not dated here: that
// takes a search (see When).
func (p *Plan) Window() when.Window { return p.window }

// Rest returns the plan of the question without the words that set its
// Window: what to search for among the texts of that time. It is p when
// no words were taken out.
func (p *Plan) Rest() *Plan {
	if p.rest == nil {
		return p
	}
	return p.rest
}

// Timed returns what to search for in the time the question's words say,
// and that time intersected with since and until (a request's own
// bounds): ok is false, and the question to be searched as typed, when it
// sets no window (see Window), places its time by an event (only a
// retrieval dates events), or says nothing but a time.
func (p *Plan) Timed(since, until time.Time) (rest *Plan, w when.Window, ok bool) {
	if p.window.IsZero() || len(p.reading.Events()) > 0 || p.Rest().Empty() {
		return p, when.Window{}, false
	}
	return p.Rest(), p.window.Intersect(when.Window{Since: since, Until: until}), true
}
