package extractor

import (
	"strings"
	"unicode"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/internal/lazy"
)

// terms is what a question asks about: the words a search looks for and a
// passage is judged by, from the question's plan (package query), which
// every search of the retrieval uses as it is.
type terms struct {
	// plan is the question read by package query; nil for the terms of a
	// learned query's steps.
	plan  *query.Plan
	words []string // content words, lowercased, each once, in the order asked
	stems []string // their match keys (see stem); a CJK word is its own key
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

// analyze reads a question.
func analyze(q string) terms {
	p := query.Parse(q)
	t := termsOf(p)
	t.plan = p
	if !p.Empty() {
		t.expr = strings.TrimSpace(q)
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
			t.not = append(t.not, stem(w))
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
				t.stems = append(t.stems, stem(pw))
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

// splitWords cuts text into words: runs of letters, digits and combining
// marks, with a run of a spaceless script (Chinese, Japanese, Korean) a
// word of its own. A trailing '*' stays on its word.
func splitWords(s string) []string {
	spans := wordSpans(s)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = s[sp[0]:sp[1]]
	}
	return out
}

// wordSpans returns the byte offsets of the words of s, as splitWords
// cuts them.
func wordSpans(s string) [][2]int {
	var out [][2]int
	start, cjk := -1, false
	flush := func(end int) {
		if start >= 0 {
			out = append(out, [2]int{start, end})
		}
		start = -1
	}
	for i, r := range s {
		inWord := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
		switch {
		case !inWord:
			if r == '*' && start >= 0 {
				out = append(out, [2]int{start, i + 1})
				start = -1
				continue
			}
			flush(i)
		case start >= 0 && spaceless(r) != cjk:
			flush(i)
			start, cjk = i, spaceless(r)
		case start < 0:
			start, cjk = i, spaceless(r)
		}
	}
	flush(len(s))
	return out
}

// stem reduces a lowercased word to a key that its common inflections
// share ("deploys", "deployed", "deploying" and "deploy" all give
// "deploy"), for judging passages by the words a question asks about. The
// index stems with Porter's algorithm; this is rougher, and only has to be
// consistent with itself.
func stem(w string) string {
	if !isASCIIWord(w) || len(w) <= 3 {
		return w
	}
	cut := func(suffix string) bool {
		if !strings.HasSuffix(w, suffix) || len(w)-len(suffix) < 3 {
			return false
		}
		w = w[:len(w)-len(suffix)]
		return true
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case cut("ing"), cut("ed"):
		// shipped, running: undo the doubled consonant.
		if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
			w = w[:n-1]
		}
	case strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "zes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"):
	case cut("s"), cut("ly"):
	}
	// note, notes, noted: one key.
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

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
	for _, w := range splitWords(lower) {
		have[stem(strings.TrimSuffix(w, "*"))] = true
	}
	var out []int
	for i, s := range m.t.stems {
		if have[s] || !isASCIIWord(s) && strings.Contains(lower, s) {
			out = append(out, i)
		}
	}
	return out
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
	for _, w := range splitWords(lower) {
		have[stem(strings.TrimSuffix(w, "*"))]++
	}
	for i, s := range m.t.stems {
		out[i] = have[s]
		if out[i] == 0 && !isASCIIWord(s) {
			out[i] = strings.Count(lower, s)
		}
	}
	return out
}
