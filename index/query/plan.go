package query

import (
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ctx0/ctx0/index/query/when"
	"github.com/ctx0/ctx0/internal/words"
)

// Plan is a query read once. Every search takes one (the vault's, the past
// sessions', retrieve's, a learned query's step) and asks it for what it
// needs: the FTS5 expression, the marker of snippets, whether it excludes,
// whether it searches the body by name, the words it looks for, and what
// it says of time. No caller reads the query's text again. The zero Plan
// searches for nothing.
type Plan struct {
	text    string
	root    *node // nil: nothing to search for
	natural bool
	// words are the words the query looks for, as written but in lower
	// case, each once by index term: for a natural query, those left once
	// stop words are dropped; for a strict one, those of what it requires
	// or offers, not of what it excludes.
	words    []string
	excluded []string

	// What a question says of time (see Parse); zero for Plain's plans.
	reading when.Reading
	window  when.Window
	rest    *Plan // the query without its time words; nil: the plan itself
	// days are the days the question names and dayWords its words naming
	// them (when.Asked), read at now: the same for the plan and its Rest.
	days     []when.Day
	dayWords []string
	now      time.Time
}

// parses counts the calls of Parse (see Parses).
var parses atomic.Int64

// Parses returns how many questions Parse has read in this process: a
// test holds a request to reading its question once.
func Parses() int64 { return parses.Load() }

// Parse reads q, a question asked at now, into its plan: what to search
// for, and what it says of time (see When, Window and Rest). It never
// fails; a query with nothing to search for (no letters or digits) gives
// an empty plan. Every request reads its question once, with Parse, and
// hands the plan to what answers it.
func Parse(q string, now time.Time) *Plan {
	parses.Add(1)
	p := Plain(q)
	p.readTime(now)
	return p
}

// Plain reads q into its plan without reading time in it: for the
// searches a program makes rather than a person asks (a learned query's
// step, a model's plan, an event's words, a search for duplicates).
func Plain(q string) *Plan {
	c := clean(q)
	toks, strict := lex(c)
	p := &Plan{text: q}
	if !strict {
		p.natural = true
		p.root, p.words = natural(toks)
		return p
	}
	p.root = (&parser{toks: toks}).seq(0)
	if p.root != nil {
		var pos, neg []string
		p.root.leaves(false, func(n *node, excluded bool) {
			ws := words.Split(Unsegment(n.text))
			if excluded {
				neg = append(neg, ws...)
			} else {
				pos = append(pos, ws...)
			}
		})
		p.words = content(pos)
		p.excluded = distinct(lower(neg))
	}
	return p
}

// natural makes the plan of a query without operators: its content words
// (or, if it has none, all of its words) ORed. A word the tokenizer splits
// ("x-ray", "2023-05-08", "Sarah's") stays a phrase, without the stop
// words at its ends ("Sarah's" is "sarah"). A run of a spaceless script
// longer than two characters is searched as its overlapping pairs, since
// no entry holds a whole question written without spaces.
func natural(toks []token) (*node, []string) {
	var units, all [][]string
	for _, t := range toks {
		if t.kind != tWord {
			continue
		}
		ws := lower(words.Split(t.text))
		if len(ws) == 0 {
			continue
		}
		all = append(all, ws)
		for len(ws) > 0 && words.IsStop(ws[0]) {
			ws = ws[1:]
		}
		// At the end, a letter left of a contraction too: Sarah's, don't.
		for len(ws) > 0 && (words.IsStop(ws[len(ws)-1]) || letter(ws[len(ws)-1])) {
			ws = ws[:len(ws)-1]
		}
		if len(ws) == 0 || len(ws) == 1 && letter(ws[0]) {
			continue
		}
		units = append(units, ws)
	}
	if len(units) == 0 {
		units = all
	}
	n := &node{}
	var unitWords []string
	seen := map[string]bool{}
	add := func(text string) {
		key := ""
		for _, w := range words.Split(text) {
			key += words.Term(w) + " "
		}
		if !seen[key] {
			seen[key] = true
			n.or = append(n.or, &node{text: Segment(text)})
		}
	}
	for _, u := range units {
		unitWords = append(unitWords, u...)
		if !slices.ContainsFunc(u, func(w string) bool { return firstSpaceless(w) >= 0 }) {
			add(strings.Join(u, " "))
			continue
		}
		for _, w := range u {
			for _, p := range Pairs(w) {
				add(p)
			}
		}
	}
	switch len(n.or) {
	case 0:
		return nil, nil
	case 1:
		return n.or[0], content(unitWords)
	}
	return n, content(unitWords)
}

// content returns ws in lower case without stop words and single letters, each once by index term; all of them if that leaves none.
func content(ws []string) []string {
	ws = lower(ws)
	kept := slices.DeleteFunc(slices.Clone(ws), func(w string) bool {
		return words.IsStop(w) || letter(w)
	})
	if len(kept) == 0 {
		kept = ws
	}
	return distinct(kept)
}

// letter reports whether w is a single ASCII letter, which says nothing by
// itself (the s of Sarah's, the t of don't, the x of x y z).
func letter(w string) bool {
	return len(w) == 1 && ('a' <= w[0] && w[0] <= 'z' || 'A' <= w[0] && w[0] <= 'Z')
}

func lower(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = strings.ToLower(w)
	}
	return out
}

// distinct keeps the first of the words that share an index term.
func distinct(ws []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range ws {
		if t := words.Term(w); !seen[t] {
			seen[t] = true
			out = append(out, w)
		}
	}
	return out
}

// Pairs returns a word of a spaceless script longer than two characters as
// its overlapping pairs of characters, and any other word as itself: a
// question written without spaces ("東京のユーザー会はどこ") is one run,
// which no text holds whole, and pairs are how such text is searched
// without a dictionary.
func Pairs(w string) []string {
	r := []rune(w)
	if len(r) <= 2 || !words.Spaceless(r[0]) {
		return []string{w}
	}
	out := make([]string, 0, len(r)-1)
	for i := 0; i+1 < len(r); i++ {
		out = append(out, string(r[i:i+2]))
	}
	return out
}

// leaves calls f for each word or phrase of n, saying whether it is
// excluded (under a NOT).
func (n *node) leaves(excluded bool, f func(n *node, excluded bool)) {
	switch {
	case n == nil:
	case n.isSeq:
		for _, c := range n.pos {
			c.leaves(excluded, f)
		}
		for _, c := range n.neg {
			c.leaves(true, f)
		}
	case n.or != nil:
		for _, c := range n.or {
			c.leaves(excluded, f)
		}
	default:
		f(n, excluded)
	}
}

// Text returns the query as it was typed.
func (p *Plan) Text() string { return p.text }

// Empty reports whether the query holds nothing to search for.
func (p *Plan) Empty() bool { return p.root == nil }

// InBody reports whether the query limits a word to the body (body:x),
// which a table of names, titles and tags alone cannot answer.
func (p *Plan) InBody() bool {
	in := false
	p.root.leaves(false, func(n *node, _ bool) { in = in || n.field == "body" })
	return in
}

// Natural reports whether the query is natural language (no operators):
// its terms are optional, and a ranking should prefer texts that Cover
// more of them, close together.
func (p *Plan) Natural() bool { return p.natural }

// Expr returns the FTS5 expression of the query, or "" when it is empty.
func (p *Plan) Expr() string { return p.withDays(p.root.render(false, false)) }

// Unfielded returns the FTS5 expression of the query for a table of one
// text without fields (transcripts): a word limited to a field (title:x)
// is searched in that text.
func (p *Plan) Unfielded() string { return p.withDays(p.root.render(false, true)) }

// withDays ORs to a natural query's expression the number of each day it
// names in the other form it is written in ("18" for "May 18th", "18th"
// for "18 May"), so that a text naming the day only in that form ("When
// is it?" "Thursday 18 May") is found, for Cover to weigh; a text holding
// the number of another day holds no more of the query for it.
func (p *Plan) withDays(expr string) string {
	if !p.natural || expr == "" || len(p.days) == 0 {
		return expr
	}
	have := map[string]bool{}
	for _, w := range p.words {
		have[words.Term(w)] = true
	}
	var alts []string
	for _, d := range p.days {
		for _, f := range []string{strconv.Itoa(d.Day), ordinal(d.Day)} {
			if t := words.Term(f); !have[t] {
				have[t] = true
				alts = append(alts, `"`+f+`"`)
			}
		}
	}
	if len(alts) == 0 {
		return expr
	}
	return expr + " OR " + strings.Join(alts, " OR ")
}

// ordinal writes n as an ordinal in digits: 1st, 2nd, 3rd, 4th, 11th, 21st.
func ordinal(n int) string {
	suf := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suf = "st"
	case n%10 == 2:
		suf = "nd"
	case n%10 == 3:
		suf = "rd"
	}
	return strconv.Itoa(n) + suf
}

// Excludes reports whether the query excludes anything (NOT). A text that
// holds the rest of such a query may still not match it as a whole.
func (p *Plan) Excludes() bool {
	var walk func(n *node) bool
	walk = func(n *node) bool {
		if n == nil {
			return false
		}
		if len(n.neg) > 0 {
			return true
		}
		return slices.ContainsFunc(n.pos, walk) || slices.ContainsFunc(n.or, walk)
	}
	return walk(p.root)
}

// Words returns the words the query looks for, in lower case, each once:
// for a natural query its content words; for a strict one the words it
// requires or offers, without stop words unless it has nothing else. A run
// of a spaceless script is one word.
func (p *Plan) Words() []string { return slices.Clone(p.words) }

// Excluded returns the words the query excludes (NOT word, -word), in
// lower case.
func (p *Plan) Excluded() []string { return slices.Clone(p.excluded) }

// Sought returns the text the query looks for, without its operators,
// field names and excluded words: where names it mentions can be looked
// up.
func (p *Plan) Sought() string {
	if p.natural {
		return p.text
	}
	var parts []string
	p.root.leaves(false, func(n *node, excluded bool) {
		if !excluded {
			parts = append(parts, Unsegment(n.text))
		}
	})
	return strings.Join(parts, " ")
}

// Marker returns a new marker of what the query looks for in a text (see
// NewMarker). A Marker is not safe for concurrent use: take one each.
func (p *Plan) Marker() *Marker {
	m := newMarker(p.root)
	if len(p.days) == 0 {
		return m
	}
	dayTerms := map[string]bool{}
	for _, w := range p.dayWords {
		dayTerms[words.Term(w)] = true
	}
	m.days, m.now = p.days, p.now
	m.dayPhrase = make([]bool, len(m.phrases))
	for i, ph := range m.phrases {
		m.dayPhrase[i] = !slices.ContainsFunc(ph.terms, func(t string) bool { return !dayTerms[t] })
	}
	return m
}
