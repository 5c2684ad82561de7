package extractor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/index/query/when"
	"github.com/ctx0/ctx0/sessions"
)

// windowBoost is how much more a candidate scores when what it tells
// happened in the time the question asks about ("last week", "in March"):
// twice as much, so that it goes ahead of an equal one from another time.
const windowBoost = 1.0

// keepWindow keeps, of the candidates, what happened in the time the
// question's words ask about, as --since and --until do: a question about
// last week or about July is not answered by another week's or month's
// passage that holds its words, nor by what happened after now (a replay
// with --now, an entry filed since). Undated candidates stay.
func (r *retrieval) keepWindow(cs []*candidate) {
	if r.asked.IsZero() {
		return
	}
	w := r.askedPast()
	for _, c := range cs {
		if !c.date.IsZero() && !w.Contains(c.date) {
			c.score = 0
		}
	}
}

// askedPast is the window the question's words ask about, ended at now
// when it began before: what was said or learned is dated by when, and
// nothing was said after now.
func (r *retrieval) askedPast() when.Window {
	now := r.m.now()
	if r.asked.Since.Before(now) {
		return r.asked.Intersect(when.Window{Until: now})
	}
	return r.asked
}

// SearchSessions searches what was said in past sessions, reading the
// time the query says in words as Search does: what was said then, or,
// when nothing was, what the words alone find. q.Plan is the query as the
// request read it (query.Parse); nil: q.Text is read here, at now.
func SearchSessions(ctx context.Context, s Sessions, q sessions.Query, now time.Time) ([]sessions.Hit, error) {
	if q.Plan == nil {
		q.Plan = query.Parse(q.Text, now)
	}
	q.Text = q.Plan.Text()
	if rest, w, ok := q.Plan.Timed(q.Since, q.Until); ok {
		tq := q
		tq.Text, tq.Plan, tq.Since, tq.Until = rest.Text(), rest, w.Since, w.Until
		hits, err := s.Search(ctx, tq)
		if err != nil || len(hits) > 0 {
			return hits, err
		}
	}
	q.Until = pastUntil(q.Plan, q.Until, now)
	return s.Search(ctx, q)
}

// pastUntil bounds until at now for a question whose words ask about the
// past ("last week", "in July"): whatever else it finds, nothing that
// happened after now answers it (a replay with --now, an entry filed
// since). A question that says no time, or a time to come, keeps until.
func pastUntil(p *query.Plan, until, now time.Time) time.Time {
	w := p.Window()
	if w.IsZero() || !w.Since.Before(now) {
		return until
	}
	if until.IsZero() || now.Before(until) {
		return now
	}
	return until
}

// dateEvents dates the events the question places its time by ("since the
// launch"): each is when the best entry or past session that mentions it
// happened. An event nothing mentions leaves the window as it is.
func (r *retrieval) dateEvents(ctx context.Context) error {
	for _, ev := range r.when.Events() {
		at, from, err := r.eventTime(ctx, ev.Event)
		if err != nil {
			return err
		}
		if at.IsZero() {
			r.plan.Searches = append(r.plan.Searches, fmt.Sprintf("when: %s %s: not found", ev.Op, ev.Event))
			continue
		}
		day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, at.Location())
		w := when.ByOp(ev.Op, when.Window{Since: day, Until: day.AddDate(0, 0, 1)})
		r.window = r.window.Intersect(w)
		r.plan.Searches = append(r.plan.Searches, fmt.Sprintf("when: %s %s: %s (%s)", ev.Op, ev.Event, day.Format(time.DateOnly), from))
	}
	return nil
}

// eventTime is when the best match for an event's words happened, and the
// name of what says so.
func (r *retrieval) eventTime(ctx context.Context, words string) (time.Time, string, error) {
	p := query.Plain(strings.Join(strings.Fields(words), " "))
	if r.entriesInScope() {
		res, err := r.m.Index.Search(ctx, index.Query{Text: p.Text(), Plan: p, Limit: 1})
		if err != nil {
			return time.Time{}, "", fmt.Errorf("retrieve %q: date %q: %w", r.req.Query, words, err)
		}
		if len(res) > 0 {
			// When what it tells happened: the conversation it was
			// filed from, the day it is filed under, else its date.
			c := &candidate{kind: "entry", name: res[0].Name}
			if err := r.read(ctx, c); err != nil {
				return time.Time{}, "", err
			}
			at := c.date
			if _, t := c.said.at(0); !t.IsZero() {
				at = t
			}
			if !at.IsZero() {
				return at, res[0].Name, nil
			}
		}
	}
	if r.m.Sessions != nil {
		hits, err := r.m.Sessions.Search(ctx, sessions.Query{Text: p.Text(), Plan: p, Limit: 1})
		switch {
		case errors.Is(err, ErrNoSessions):
		case err != nil:
			return time.Time{}, "", fmt.Errorf("retrieve %q: date %q: %w", r.req.Query, words, err)
		case len(hits) > 0:
			return hits[0].Time, fmt.Sprintf("conversation:%d", hits[0].Conversation), nil
		}
	}
	return time.Time{}, "", nil
}

// inWindow boosts a candidate that happened in the time the question asks
// about.
func (r *retrieval) inWindow(c *candidate) {
	if r.window.IsZero() || c.date.IsZero() || !r.window.Contains(c.date) {
		return
	}
	c.mult *= 1 + windowBoost
	c.why = append(c.why, "in "+r.window.String())
}

// listWindow gathers the entries dated in the time a question asks about
// when it holds no other words to search for ("what happened last week?"),
// the latest first.
func (r *retrieval) listWindow(ctx context.Context) error {
	if !r.entriesInScope() {
		return nil
	}
	w := r.window.Intersect(when.Window{Since: r.req.Since, Until: r.req.Until})
	res, err := r.m.Index.Latest(ctx, index.Listing{Since: w.Since, Until: w.Until, Limit: searchLimit})
	if err != nil {
		return fmt.Errorf("retrieve %q: %w", r.req.Query, err)
	}
	r.plan.Searches = append(r.plan.Searches, "when: "+r.window.String())
	for i, h := range res {
		if !r.inScope(h.Name) {
			continue
		}
		c := r.add(h.Name)
		c.title, c.typ, c.project, c.date = h.Title, h.Type, h.Project, h.Happened
		c.text = float64(len(res) - i) // the latest first
	}
	return nil
}
