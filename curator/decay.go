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
					Why: fmt.Sprintf("seen again on %s (%d observations): confidence %.2f", last.UTC().Format("2006-01-02"), n, decay.Strength(n))})
			} else {
				w.change(Change{Kind: KindObserve, Entry: d.name,
					Why: fmt.Sprintf("first counted: %d observation(s), last on %s: confidence %.2f", n, last.UTC().Format("2006-01-02"), decay.Strength(n))})
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
			Why: fmt.Sprintf("confidence %.2f, below %.2f: observed %d time(s), last on %s, and halving every %s", c, w.cfg.Threshold, n, last.UTC().Format("2006-01-02"), durationText(w.cfg.HalfLife))})
	}
	return nil
}

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
