package extractor

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctx0/ctx0/internal/lazy"
)

// terms is what a question asks about: the words a search looks for and a
// passage is judged by.
type terms struct {
	words []string // content words, lowercased, each once, in the order asked
	stems []string // their match keys (see stem); a CJK word is its own key
	// run is, for a word that is a pair of characters cut from a longer
	// run of a spaceless script (see pairs), a number for that run; -1 for
	// other words.
	run []int
	// not are the stems of the words the question excludes (NOT word,
	// -word): an entry that holds one is not quoted.
	not []string
	// text is the question without its syntax and excluded words: where
	// the names it uses are looked for.
	text string
	// expr is the search for the index, in package query's syntax: the
	// question as typed when it uses that syntax (quotes, OR, NOT, a
	// field:, a prefix*), else its content words joined by OR, so that a
	// long question still finds entries that hold some of its words, the
	// ones holding more ranking higher.
	expr string
}

// analyze reads a question.
func analyze(q string) terms {
	t := terms{text: q, expr: q}
	syntax := hasSyntax(q)
	if syntax {
		var excluded []string
		t.text, excluded = splitExcluded(q)
		for _, w := range splitWords(strings.Join(excluded, " ")) {
			t.not = append(t.not, stem(strings.ToLower(w)))
		}
	}
	seen := map[string]bool{}
	for n, w := range splitWords(t.text) {
		ps := pairs(w)
		for _, p := range ps {
			lw := strings.ToLower(strings.TrimSuffix(p, "*"))
			if lw == "" || stopwords[lw] || seen[lw] || (len(lw) == 1 && lw[0] < utf8.RuneSelf) {
				continue
			}
			seen[lw] = true
			t.words = append(t.words, lw)
			t.stems = append(t.stems, stem(lw))
			if len(ps) > 1 {
				t.run = append(t.run, n)
			} else {
				t.run = append(t.run, -1)
			}
		}
	}
	if !syntax {
		t.expr = strings.Join(t.words, " OR ")
	}
	return t
}

// pairs returns a word of a spaceless script longer than two characters as
// its overlapping pairs of characters, and any other word as itself: a
// question written without spaces ("東京のユーザー会はどこ") is one run,
// which no entry holds whole, and pairs are how such text is searched
// without a dictionary.
func pairs(w string) []string {
	r := []rune(w)
	if len(r) <= 2 || !spaceless(r[0]) {
		return []string{w}
	}
	out := make([]string, 0, len(r)-1)
	for i := 0; i+1 < len(r); i++ {
		out = append(out, string(r[i:i+2]))
	}
	return out
}

// splitExcluded separates a query in package query's syntax into the text
// it looks for, without operators and field names, and the words and
// phrases it excludes (after NOT, or with a leading '-').
func splitExcluded(q string) (text string, excluded []string) {
	var keep []string
	negate, inPhrase := false, false
	for _, f := range strings.Fields(q) {
		if k, rest, ok := strings.Cut(f, ":"); ok && (k == "name" || k == "title" || k == "tags" || k == "tag" || k == "body") {
			f = rest
		}
		switch {
		case f == "NOT" && !inPhrase:
			negate = true
			continue
		case f == "OR" || f == "AND":
			continue
		case strings.HasPrefix(f, "-") && len(f) > 1 && !inPhrase:
			negate, f = true, f[1:]
		}
		if strings.Count(f, `"`)%2 == 1 {
			inPhrase = !inPhrase
		}
		if negate {
			excluded = append(excluded, f)
		} else {
			keep = append(keep, f)
		}
		if !inPhrase {
			negate = false
		}
	}
	return strings.Join(keep, " "), excluded
}

// hasSyntax reports whether q uses package query's syntax beyond plain
// words: then it is searched as typed.
func hasSyntax(q string) bool {
	if strings.ContainsAny(q, `"*()`) {
		return true
	}
	for _, f := range strings.Fields(q) {
		if f == "OR" || f == "NOT" || f == "AND" || strings.HasPrefix(f, "-") && len(f) > 1 {
			return true
		}
		if k, _, ok := strings.Cut(f, ":"); ok && (k == "name" || k == "title" || k == "tags" || k == "tag" || k == "body") {
			return true
		}
	}
	return false
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

// stopwords are words a question is made of that say nothing about what it
// asks: searching for them would find every entry.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any anything are as at
		be been before being below between both but by can could did do does doing done down during each
		else ever every few find for from further get give given had has have having he her here hers
		him his how i if in into is it its itself just know let like look me more most my no nor not now
		of off on once only or other our ours out over own please recall remember same say says she
		should show so some something still such tell than that the their theirs them then there these
		they thing things this those through to too under until up us very was we were what whatever
		when where whether which while who whom whose why will with would you your yours`) {
		m[w] = true
	}
	return m
}()
