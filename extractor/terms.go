package extractor

import (
	"slices"
	"strings"
	"time"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/index/query/when"
	"github.com/ctx0/ctx0/internal/lazy"
	"github.com/ctx0/ctx0/internal/words"
)

// terms is what a question asks about: the words a search looks for and a
// passage is judged by, from the question's plan (package query), which
// every search of the retrieval uses as it is.
type terms struct {
	// plan is the question read by package query; nil for the terms of a
	// learned query's steps.
	plan  *query.Plan
	words []string // content words, lowercased, each once, in the order asked
	stems []string // their index terms (words.Term); a CJK word is its own term
	// run is, for a word that is a pair of characters cut from a longer
	// run of a spaceless script (see query.Pairs), a number for that run;
	// -1 for other words.
	run []int
	// not are the stems of the words the question excludes (NOT word,
	// -word): an entry that holds one is not quoted.
	not []string
	// text is the question without its syntax and excluded words: where
	// the names it uses are looked for.
	text string
	// expr is the search for the index: the question as typed, "" when it
	// has nothing to search for. Without operators it is natural language,
	// its content words optional terms, so that a long question still finds
	// entries that hold some of them, the ones holding more ranking higher.
	expr string
}

// analyze reads a text a program searches for as typed (a learned query's
// phrase or question): the terms of its plain plan (query.Plain).
func analyze(q string) terms { return termsFor(query.Plain(q)) }

// termsFor returns the terms of a question already read as p.
func termsFor(p *query.Plan) terms {
	t := termsOf(p)
	t.plan = p
	if !p.Empty() {
		t.expr = strings.TrimSpace(p.Text())
	}
	return t
}

// termsOf returns the terms that plans look for together.
func termsOf(plans ...*query.Plan) terms {
	var t terms
	var sought []string
	seen := map[string]bool{}
	n := 0
	for _, p := range plans {
		sought = append(sought, p.Sought())
		for _, w := range p.Excluded() {
			t.not = append(t.not, words.Term(w))
		}
		for _, w := range p.Words() {
			n++
			ps := query.Pairs(w)
			for _, pw := range ps {
				if seen[pw] {
					continue
				}
				seen[pw] = true
				t.words = append(t.words, pw)
				t.stems = append(t.stems, words.Term(pw))
				if len(ps) > 1 {
					t.run = append(t.run, n)
				} else {
					t.run = append(t.run, -1)
				}
			}
		}
	}
	t.text = strings.Join(sought, " ")
	return t
}

// isASCIIWord reports whether w is made of ASCII letters only. A term that
// is not (a run of a spaceless script, a word with digits) is also looked
// for inside longer words, as it is written (query.Within).
func isASCIIWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isLetter(w[i]) {
			return false
		}
	}
	return true
}

// matcher tells which of a question's terms a text holds.
type matcher struct {
	t terms
	// days are the days the question names (query.Plan.Days), read at
	// now, and dayTerms the indexes in t.words of the words naming them:
	// a text that names one of those days in any form ("April 4th" for
	// "4 April", "2023-04-04") holds those words.
	days     []when.Day
	dayTerms []int
	now      time.Time
}

// wikiTarget is a wikilink; a passage is judged by the name it shows, not
// by the folders of its target ("contacts/" would answer "contact").
var wikiTarget = lazy.Regexp(`\[\[(?:[^\]|#]*/)?([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]`)

// excludes reports whether text holds a word the question excludes.
func (m matcher) excludes(text string) bool {
	if len(m.t.not) == 0 {
		return false
	}
	have := stemSet(wikiTarget().ReplaceAllString(text, "$1 $2"))
	for _, s := range m.t.not {
		if have[s] {
			return true
		}
	}
	return false
}

// matched returns the indexes in t.words of the terms that text holds.
func (m matcher) matched(text string) []int {
	if len(m.t.words) == 0 {
		return nil
	}
	if strings.Contains(text, "[[") {
		text = wikiTarget().ReplaceAllString(text, "$1 $2")
	}
	have := map[string]bool{}
	lower := strings.ToLower(text)
	for _, w := range words.Split(lower) {
		have[words.Term(w)] = true
	}
	var out []int
	for i, s := range m.t.stems {
		if have[s] || !isASCIIWord(s) && query.Within(lower, s) > 0 {
			out = append(out, i)
		}
	}
	if !holdsAll(out, m.dayTerms) && m.namesDay(text) {
		for _, i := range m.dayTerms {
			if !slices.Contains(out, i) {
				out = append(out, i)
			}
		}
		slices.Sort(out)
	}
	return out
}

// namesDay reports whether text names a day the question names, of any
// year.
func (m matcher) namesDay(text string) bool {
	_, _, ok := when.NamesDay(text, m.now, false, m.days)
	return ok
}

// counts returns how many times text holds each of the question's terms,
// by their indexes in t.words.
func (m matcher) counts(text string) []int {
	out := make([]int, len(m.t.words))
	if len(m.t.words) == 0 {
		return out
	}
	if strings.Contains(text, "[[") {
		text = wikiTarget().ReplaceAllString(text, "$1 $2")
	}
	lower := strings.ToLower(text)
	have := map[string]int{}
	for _, w := range words.Split(lower) {
		have[words.Term(w)]++
	}
	for i, s := range m.t.stems {
		out[i] = have[s]
		if out[i] == 0 && !isASCIIWord(s) {
			out[i] = query.Within(lower, s)
		}
	}
	return out
}
