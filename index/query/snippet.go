package query

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctx0/ctx0/index/query/when"
	"github.com/ctx0/ctx0/internal/words"
)

// A search shows each result with a snippet of its body, the words that
// matched marked. FTS5's snippet() finds them by reading the entry's row
// of the full-text index again and tokenizing the whole body twice, and on
// a vault of 100,000 entries that was the largest part of a search. A
// Marker finds them in Go from the body alone (see text.go), and picks the
// window as snippet() does, so that snippets read the same.

// Marker marks the words and phrases of one query in a text. It keeps the
// terms of the words it has read, for the next text: it is not safe for
// concurrent use.
type Marker struct {
	phrases []phrase
	terms   map[string]string // a token as written: its term
	// firsts tells the ASCII bytes a phrase's first term starts with: an
	// ASCII token that starts with none begins no match.
	firsts [utf8.RuneSelf]bool
	// days are the days the query names (Plan.Days), read at now, and
	// dayPhrase tells the phrases that name them: a text that names one
	// of those days in any form holds those phrases (see Cover).
	days      []when.Day
	dayPhrase []bool
	now       time.Time
}

// phrase is a word or phrase of the query, as index terms.
type phrase struct {
	terms  []string
	prefix bool // the last term is a prefix
}

// NewMarker returns the marker of what q looks for in a body: its words
// and phrases, but not those it excludes (NOT) or looks for in another
// field (title:).
func NewMarker(q string) *Marker { return Plain(q).Marker() }

func newMarker(root *node) *Marker {
	m := &Marker{terms: map[string]string{}}
	var walk func(n *node)
	walk = func(n *node) {
		switch {
		case n == nil:
		case n.isSeq:
			for _, c := range n.pos {
				walk(c)
			}
		case n.or != nil:
			for _, c := range n.or {
				walk(c)
			}
		case n.field == "" || n.field == "body":
			var p phrase
			for _, sp := range words.Tokens(n.text) {
				p.terms = append(p.terms, words.Term(n.text[sp.Start:sp.End]))
			}
			p.prefix = n.prefix
			if len(p.terms) > 0 {
				m.phrases = append(m.phrases, p)
				if c := p.terms[0][0]; c < utf8.RuneSelf {
					m.firsts[c] = true
				}
			}
		}
	}
	walk(root)
	return m
}

// instance is where a phrase matches: its number and its first token.
type instance struct{ phrase, pos int }

// Snippet returns the n tokens of text that hold the most of the query's
// phrases, each match between open and close, with ellipsis where the
// text goes on before or after.
func (m *Marker) Snippet(text string, n int, open, close, ellipsis string) string {
	return m.snippet(text, n, open, close, ellipsis, true)
}

// Head is Snippet of the first n tokens of text: for a text found by
// other means than its words, whose start says best what it is about.
func (m *Marker) Head(text string, n int, open, close, ellipsis string) string {
	return m.snippet(text, n, open, close, ellipsis, false)
}

func (m *Marker) snippet(text string, n int, open, close, ellipsis string, best bool) string {
	toks := words.Tokens(text)
	if len(toks) == 0 || n <= 0 {
		return text
	}
	insts := m.find(text, toks)
	start := 0
	if best {
		start = bestWindow(text, toks, insts, m.phrases, n)
	}
	end := min(start+n, len(toks)) // exclusive

	var b strings.Builder
	from := 0
	if start > 0 {
		b.WriteString(ellipsis)
		from = toks[start].Start
	}
	// The matches in the window, those that overlap merged into one mark.
	for i := 0; i < len(insts); {
		first := insts[i].pos
		last := first + len(m.phrases[insts[i].phrase].terms) - 1
		for i++; i < len(insts) && insts[i].pos <= last; i++ {
			last = max(last, insts[i].pos+len(m.phrases[insts[i].phrase].terms)-1)
		}
		if first < start || first >= end {
			continue
		}
		last = min(last, end-1)
		b.WriteString(text[from:toks[first].Start])
		b.WriteString(open)
		b.WriteString(text[toks[first].Start:toks[last].End])
		b.WriteString(close)
		from = toks[last].End
	}
	if end == len(toks) {
		b.WriteString(text[from:])
	} else {
		b.WriteString(text[from:toks[end-1].End])
		b.WriteString(ellipsis)
	}
	return b.String()
}

// find returns the instances of m's phrases in text, in the order of their
// positions.
func (m *Marker) find(text string, toks []words.Span) []instance {
	var insts []instance
	for pos := range toks {
		if c := text[toks[pos].Start]; c < utf8.RuneSelf && !m.firsts[c|0x20] {
			continue // as term would say for each phrase, at once
		}
		for pi, p := range m.phrases {
			if pos+len(p.terms) > len(toks) {
				continue
			}
			ok := true
			for k, want := range p.terms {
				got, ok2 := m.term(text[toks[pos+k].Start:toks[pos+k].End], want[0])
				switch {
				case !ok2:
					ok = false
				case k == len(p.terms)-1 && p.prefix:
					ok = strings.HasPrefix(got, want)
				default:
					ok = got == want
				}
				if !ok {
					break
				}
			}
			if ok {
				insts = append(insts, instance{pi, pos})
			}
		}
	}
	return insts
}

// term returns the term of tok, if it can begin with first: stemming keeps
// a word's first letter, so most tokens are turned away without being
// folded or stemmed. Terms are kept for the texts to come, which repeat
// most words.
func (m *Marker) term(tok string, first byte) (string, bool) {
	if c := tok[0]; c < 0x80 && c|0x20 != first { // an ASCII token starts with a letter or a digit
		return "", false
	}
	t, ok := m.terms[tok]
	if !ok {
		t = words.Term(tok)
		m.terms[tok] = t
	}
	return t, t[0] == first
}

// bestWindow returns the first token of the window of n tokens to show,
// scored as FTS5's snippet() scores them: 1000 for each phrase the window
// holds and 1 for each repeat, centred on the matches it holds; or, for
// 100 more (120 at the start of the text), begun at the start of the
// sentence of a match.
func bestWindow(text string, toks []words.Span, insts []instance, phrases []phrase, n int) int {
	if len(insts) == 0 {
		return 0
	}
	var sentences []int
	if len(toks) > n {
		sentences = sentenceStarts(text, toks)
	}
	seen := make([]bool, len(phrases))
	// score scores the window of n tokens from from; first and last are
	// the first token of its first match and the token after its last.
	score := func(from int) (s, first, last int) {
		clear(seen)
		first = -1
		// The instances are in order: those of the window only, so that a
		// long text with many matches costs n log n, not n².
		i, _ := slices.BinarySearchFunc(insts, from, func(in instance, pos int) int { return in.pos - pos })
		for _, in := range insts[i:] {
			if in.pos >= from+n {
				break
			}
			if seen[in.phrase] {
				s++
			} else {
				s += 1000
				seen[in.phrase] = true
			}
			if first < 0 {
				first = in.pos
			}
			last = in.pos + len(phrases[in.phrase].terms)
		}
		return s, first, last
	}
	best, bestStart := 0, 0
	for _, in := range insts {
		s, first, last := score(in.pos)
		if s > best {
			adj := first - (n-(last-first))/2
			adj = max(min(adj, len(toks)-n), 0)
			best, bestStart = s, adj
		}
		if len(toks) <= n {
			continue
		}
		// The start of the match's sentence.
		j, _ := slices.BinarySearch(sentences, in.pos+1)
		if at := sentences[j-1]; at < in.pos {
			s, _, _ := score(at)
			if s += 100; at == 0 {
				s += 20
			}
			if s > best {
				best, bestStart = s, at
			}
		}
	}
	return bestStart
}

// sentenceStarts returns the tokens that begin a sentence: the first, and
// each that follows a '.' or ':' and white space.
func sentenceStarts(text string, toks []words.Span) []int {
	out := []int{0}
	for i := 1; i < len(toks); i++ {
		j := toks[i].Start - 1
		for j >= 0 && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r') {
			j--
		}
		if j >= 0 && j != toks[i].Start-1 && (text[j] == '.' || text[j] == ':') {
			out = append(out, i)
		}
	}
	return out
}
