package extractor

import (
	"slices"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/index/query/when"
)

// askedDays are the days the question names, as its plan read them
// (query.Plan.Days): a text that names one holds what the question asks
// of that day, and what was said on it may be what the question asks
// happened then. A learned query's run (no plan) names none.
func (r *retrieval) askedDays() []when.Day {
	if r.req.Plan == nil {
		return nil
	}
	return r.req.Plan.Days()
}

// onDay boosts a candidate whose passage names a day the question names,
// in any of its common forms, or that happened on the last such day up to
// now (a session's date, an entry's; see when.Day.LastOn), by
// query.DayBoost as every ranking of a question does: a date in a
// question is as often the day of something spoken of weeks before as the
// day it was said, so both are evidence, and neither keeps the other out
// as a window does.
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
	if d, _, ok := when.NamesDay(c.passage.text, at, true, asked); ok {
		c.mult *= 1 + query.DayBoost
		c.why = append(c.why, "names "+d.String())
		return
	}
	if c.date.IsZero() {
		return
	}
	y, m, d := c.date.Date()
	for _, a := range asked {
		last := a.LastOn(r.m.now())
		if ly, lm, ld := last.Date(); !last.IsZero() && y == ly && m == lm && d == ld {
			c.mult *= 1 + query.DayBoost
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
	dayWords := r.req.Plan.DayWords()
	for i, w := range t.words {
		if slices.Contains(dayWords, w) {
			m.dayTerms = append(m.dayTerms, i)
		}
	}
	return m
}
