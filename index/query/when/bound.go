package when

import (
	"fmt"
	"time"
)

// Bound is one end of a range as given to a command or a tool: the name it
// was given by (--since, "until"), for errors, and its text.
type Bound struct {
	Name, Text string
}

// Range reads the bounds of a range, either of which may be empty: each an
// RFC 3339 time (that instant), a date (that UTC day, as the vault's dates
// are), or a time in words read against now ("last week", "March 2026").
// The range runs from where since's time begins to where until's ends, so
// that --since 2026-01-01 --until 2026-01-31 holds all of January.
func Range(now time.Time, since, until Bound) (Window, error) {
	var w Window
	if since.Text != "" {
		s, err := parseBound(since, now)
		if err != nil {
			return w, err
		}
		if w.Since = s.Since; w.Since.IsZero() {
			w.Since = s.Until // "before March" says since nothing
		}
	}
	if until.Text != "" {
		u, err := parseBound(until, now)
		if err != nil {
			return w, err
		}
		if w.Until = u.Until; w.Until.IsZero() {
			w.Until = u.Since
		}
	}
	if !w.Since.IsZero() && !w.Until.IsZero() && !w.Since.Before(w.Until) {
		return w, fmt.Errorf("%s %s is not before %s %s", since.Name, since.Text, until.Name, until.Text)
	}
	return w, nil
}

func parseBound(b Bound, now time.Time) (Window, error) {
	if t, err := time.Parse(time.RFC3339, b.Text); err == nil {
		return Window{Since: t, Until: t}, nil
	}
	if t, err := time.Parse(time.DateOnly, b.Text); err == nil {
		return Window{Since: t, Until: t.AddDate(0, 0, 1)}, nil
	}
	r := Read(b.Text, now)
	if r.Window.IsZero() {
		// A bound is a time whatever it says: a month or a year alone
		// (March, 2023) reads as after a preposition.
		r = Read("in "+b.Text, now)
	}
	if r.Window.IsZero() || r.Rest != "" || len(r.Events()) > 0 {
		return Window{}, fmt.Errorf(`%s %q: want a date (2026-01-28), an RFC 3339 time or a time such as "last week"`, b.Name, b.Text)
	}
	return r.Window, nil
}
