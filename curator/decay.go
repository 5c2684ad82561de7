package curator

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ctx0/ctx0/vault/decay"
	"github.com/ctx0/ctx0/vault/entry"
)

// reinforce records the observations made since the last run and
// archives those whose confidence fell below the threshold.
func (w *work) reinforce() error {
	for _, d := range w.liveDocs() {
		if !decay.Observed(d.e) {
			continue
		}
		_, recorded := d.e.Get(decay.FieldObservations)
		n, last := decay.Observations(d.e)
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
					Why: fmt.Sprintf("said again on %s, %s in all: now held with %s confidence", dateOf(last), times(n), percent(decay.Strength(n)))})
			} else {
				w.change(Change{Kind: KindObserve, Entry: d.name,
					Why: fmt.Sprintf("said %s so far, last on %s: held with %s confidence, more each time it is said again", times(n), dateOf(last), percent(decay.Strength(n)))})
			}
		}
		c := decay.Confidence(d.e, w.now, w.cfg.HalfLife)
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
	if err := d.e.Set(decay.FieldObservations, n); err != nil {
		return err
	}
	if err := d.e.Set(decay.FieldLastObserved, last.UTC().Truncate(time.Second)); err != nil {
		return err
	}
	if err := d.e.Set(decay.FieldConfidence, math.Round(decay.Strength(n)*100)/100); err != nil {
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
