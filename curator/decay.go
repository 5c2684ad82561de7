package curator

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// Fields the curator keeps on preferences and style observations (seed
// 002's reinforcement).
const (
	// FieldObservations counts the times the observation was made: when it
	// was written, and each later time it was seen again (a conversation
	// that said it again, which the librarian records by updating the
	// entry; an edit; a duplicate merged into it).
	FieldObservations = "observations"
	// FieldLastObserved is when it was last made.
	FieldLastObserved = "last_observed"
	// FieldConfidence is its confidence as of last_observed:
	// 1 − ½^observations (0.5, 0.75, 0.88, …).
	FieldConfidence = "confidence"
)

// Observed tells whether an entry is an observation of style or
// preference, whose confidence decays: a preference, or an entry tagged
// preference or style, that an agent made (source librarian, agent or
// auto) and nobody pinned. What a person wrote (source user, or none, as
// a file written by hand may have) or pinned does not fade.
func Observed(e *entry.Entry) bool {
	switch e.Source() {
	case "librarian", "agent", "auto":
	default:
		return false
	}
	if e.Pinned() || e.Type() == "summary" {
		return false
	}
	return e.Type() == "preference" || slices.Contains(e.Tags(), "preference") || slices.Contains(e.Tags(), "style")
}

// Strength is the confidence of an observation made n times, as it is
// made: 1 − ½^n.
func Strength(n int) float64 {
	if n < 1 {
		n = 1
	}
	return 1 - math.Pow(0.5, float64(n))
}

// Confidence is an observation's confidence at now: its strength when it
// was last observed, halved for every halfLife since. An entry the
// curator has not seen yet counts one observation, at its last change.
// Entries that are not observations (see Observed) have confidence 1.
//
// With the default half-life of 60 days and threshold of 0.25, an
// observation made once is archived after 60 days without being seen
// again, one made twice after about 95 days, and one made many times
// after about 120 days.
func Confidence(e *entry.Entry, now time.Time, halfLife time.Duration) float64 {
	if !Observed(e) {
		return 1
	}
	n, last := observations(e)
	age := now.Sub(last)
	if age < 0 || last.IsZero() {
		age = 0
	}
	return Strength(n) * math.Pow(0.5, float64(age)/float64(halfLife))
}

// observations reads the observation count and time the curator
// recorded, or what they are before it has: one, at the last change.
func observations(e *entry.Entry) (int, time.Time) {
	n := 0
	if v, ok := e.Get(FieldObservations); ok {
		switch x := v.(type) {
		case int:
			n = x
		case string:
			n, _ = strconv.Atoi(x)
		}
	}
	var last time.Time
	if v, ok := e.Get(FieldLastObserved); ok {
		if s, ok := v.(string); ok {
			last, _ = vault.ParseTime(s)
		}
	}
	if n < 1 || last.IsZero() {
		n, last = 1, e.Updated()
		if last.IsZero() {
			last = e.Created()
		}
	}
	return n, last
}

// reinforce records the observations made since the last run and
// archives those whose confidence fell below the threshold.
func (w *work) reinforce() error {
	for _, d := range w.liveDocs() {
		if !Observed(d.e) {
			continue
		}
		_, recorded := d.e.Get(FieldObservations)
		n, last := observations(d.e)
		changed := d.lastChange()
		seen := false
		switch {
		case !recorded:
			// First seen by the curator: each episode that links it is a
			// conversation that said it again (the librarian links them).
			if k := episodeLinks(d.e); k > n {
				n = k
			}
			seen = true
		case changed.After(last):
			n++
			last = changed
			seen = true
		}
		if seen {
			if err := setObservations(d, n, last); err != nil {
				return err
			}
			// Every change to a file is a change the run reports: a dry
			// run lists exactly what the run commits.
			if recorded {
				w.change(Change{Kind: KindConfirm, Entry: d.name,
					Why: fmt.Sprintf("said again on %s, %s in all: now held with %s confidence", dateOf(last), times(n), percent(Strength(n)))})
			} else {
				w.change(Change{Kind: KindObserve, Entry: d.name,
					Why: fmt.Sprintf("said %s so far, last on %s: held with %s confidence, more each time it is said again", times(n), dateOf(last), percent(Strength(n)))})
			}
		}
		c := Confidence(d.e, w.now, w.cfg.HalfLife)
		if c >= w.cfg.Threshold {
			continue
		}
		nd, err := w.archive(d)
		if err != nil {
			return err
		}
		w.change(Change{Kind: KindDecay, Entry: d.name, Other: nd.name,
			Why: fmt.Sprintf("not said again since %s (said %s in all): confidence fell to %s, below the %s at which it is archived; it halves every %s unsaid", dateOf(last), times(n), percent(c), percent(w.cfg.Threshold), durationText(w.cfg.HalfLife))})
	}
	return nil
}

// times says how often something was said: once, twice, 3 times.
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// percent says a confidence as people read one: 0.5 is 50%.
func percent(c float64) string { return fmt.Sprintf("%.0f%%", c*100) }

// dateOf is t's date, as the curator's reasons give it.
func dateOf(t time.Time) string { return t.UTC().Format("2006-01-02") }

func setObservations(d *doc, n int, last time.Time) error {
	if err := d.e.Set(FieldObservations, n); err != nil {
		return err
	}
	if err := d.e.Set(FieldLastObserved, last.UTC().Truncate(time.Second)); err != nil {
		return err
	}
	if err := d.e.Set(FieldConfidence, math.Round(Strength(n)*100)/100); err != nil {
		return err
	}
	d.dirty = true
	return nil
}

// episodeLinks counts the distinct episodes an entry links to.
func episodeLinks(e *entry.Entry) int {
	n := 0
	for _, l := range e.LinkNames() {
		if strings.HasPrefix(l, "episodes/") {
			n++
		}
	}
	return n
}
