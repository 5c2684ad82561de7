package curator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
	"github.com/ctx0/ctx0/internal/words"
)

// capitalized is a run of two or more capitalized words: a full name or
// an organisation ("Maria Okafor", "Lumen Capital").
var capitalized = lazy.Regexp(`\p{Lu}[\p{L}\p{M}&'’.-]*(?:\s+\p{Lu}[\p{L}\p{M}&'’.-]*)+`)

// clearSamePerson finds two contacts that are clearly one person: one's
// title is part of the other's full name ("Maria" of "Maria Okafor"), and
// the evidence is strong: the short one's text names the full name, or
// both texts name the same organisation. A short name that more than one
// full name contains, with evidence for more than one, is left alone. The
// full name survives: it is the person's name; the short one becomes its
// alias, and the merge keeps every fact of both.
func (w *work) clearSamePerson() (survivor, dup *doc, why string) {
	var contacts []*doc
	for _, d := range w.liveDocs() {
		if d.e.Type() == "contact" && dedupable(d) {
			contacts = append(contacts, d)
		}
	}
	for _, short := range contacts {
		sw := words.Lower(short.e.Title())
		if len(sw) == 0 {
			continue
		}
		var found *doc
		var because string
		n := 0
		for _, full := range contacts {
			fw := words.Lower(full.e.Title())
			if full == short || len(fw) <= len(sw) || !containsRun(fw, sw) {
				continue
			}
			if e := samePersonEvidence(short, full); e != "" {
				found, because = full, e
				n++
			}
		}
		if n == 1 {
			return found, short, fmt.Sprintf("%q is part of the full name %q, and %s", short.e.Title(), found.e.Title(), because)
		}
	}
	return nil, nil, ""
}

// samePersonEvidence is why short and full are one person, or "".
func samePersonEvidence(short, full *doc) string {
	fullName := strings.Join(words.Lower(full.e.Title()), " ")
	if strings.Contains(" "+words.Normal(short.e.Body())+" ", " "+fullName+" ") {
		return fmt.Sprintf("%s's text names %q", short.name, full.e.Title())
	}
	orgs := func(d *doc) []string {
		var out []string
		for _, m := range capitalized().FindAllString(d.e.Body(), -1) {
			if o := strings.Join(words.Lower(m), " "); o != fullName && !containsRun(words.Lower(full.e.Title()), words.Lower(m)) {
				out = append(out, o)
			}
		}
		return out
	}
	theirs := orgs(full)
	for _, o := range orgs(short) {
		if slices.Contains(theirs, o) {
			return fmt.Sprintf("both name %q", o)
		}
	}
	return ""
}

// containsRun reports whether want appears in have as a run of words.
func containsRun(have, want []string) bool {
	for i := 0; i+len(want) <= len(have); i++ {
		if slices.Equal(have[i:i+len(want)], want) {
			return true
		}
	}
	return false
}
