package curator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/vault/entry"
)

// Names that are mentioned: a person's or project's title or alias of at
// least this many letters; other entries' titles only when they have at
// least linkWords words, as shorter ones ("Deploy", "Meeting notes") are
// too common to tell a mention from a word.
const (
	minNameLen = 3
	linkWords  = 3
	maxPhrase  = 6 // words
)

// namedTypes are the types whose short names count as mentions.
var namedTypes = map[string]bool{"contact": true, "project": true}

// link adds to the links field of each entry the entries its text
// mentions by title or alias and does not link to yet.
func (w *work) link() error {
	r := w.resolver()
	phrases := map[string]string{} // phrase → entry name; "" when ambiguous
	add := func(p, name string) {
		if old, ok := phrases[p]; ok && old != name {
			phrases[p] = ""
			return
		}
		phrases[p] = name
	}
	for _, d := range w.liveDocs() {
		// me.md answers to "user", which nearly every entry says.
		if d.e.Type() == "summary" || d.name == "me" {
			continue
		}
		for _, n := range append([]string{d.e.Title()}, d.e.Aliases()...) {
			ws := words.Lower(n)
			if len(ws) == 0 || len(ws) > maxPhrase {
				continue
			}
			p := strings.Join(ws, " ")
			if namedTypes[d.e.Type()] && len([]rune(p)) >= minNameLen || len(ws) >= linkWords {
				add(p, d.name)
			}
		}
	}
	for _, d := range w.liveDocs() {
		if d.e.Type() == "summary" {
			continue
		}
		have := w.linksOf(r, d)
		ws := words.Lower(d.e.Body())
		var found []string
		why := map[string]string{}
		// A mention is the longest name it matches: "Maria Okafor"
		// links the contact of that name, not also the one named Maria.
		for i := 0; i < len(ws); i++ {
			for n := min(maxPhrase, len(ws)-i); n >= 1; n-- {
				p := strings.Join(ws[i:i+n], " ")
				t, ok := phrases[p]
				if !ok || t == "" {
					continue
				}
				if t != d.name && !have[t] && why[t] == "" {
					why[t] = p
					found = append(found, t)
				}
				i += n - 1
				break
			}
		}
		if len(found) == 0 {
			continue
		}
		slices.Sort(found)
		for _, t := range found {
			if err := w.addLinks(d, []string{t}, fmt.Sprintf("its text mentions %q", why[t])); err != nil {
				return err
			}
		}
	}
	return nil
}

// addLinks adds to d's links field those of names it lacks, each a
// change explained by why.
func (w *work) addLinks(d *doc, names []string, why string) error {
	links := d.e.LinkNames()
	added := false
	for _, t := range names {
		if slices.Contains(links, t) {
			continue
		}
		links = append(links, t)
		added = true
		w.change(Change{Kind: KindLink, Entry: d.name, Other: t, Why: why})
	}
	if !added {
		return nil
	}
	if err := d.e.Set(entry.FieldLinks, links); err != nil {
		return fmt.Errorf("link %s: %w", d.name, err)
	}
	d.dirty = true
	return nil
}
