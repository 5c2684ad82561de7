// Package decay is how sure ctx0 is of an observation an agent made (a
// preference, a style): the more often it was seen, the surer, and the
// longer since, the less. The curator records and archives by it; the
// context block leaves out what fell below the threshold.
package decay

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// Fields kept on preferences and style observations: each time one is
// seen again it is reinforced, and it fades while it is not.
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
	n, last := Observations(e)
	age := now.Sub(last)
	if age < 0 || last.IsZero() {
		age = 0
	}
	return Strength(n) * math.Pow(0.5, float64(age)/float64(halfLife))
}

// Observations reads the observation count and time the curator
// recorded, or what they are before it has: one, at the last change.
func Observations(e *entry.Entry) (int, time.Time) {
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
