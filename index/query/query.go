// Package query translates what a person or an agent types into a search
// box into an SQLite FTS5 MATCH expression, and marks what it matches in a
// snippet of an entry's body (see Marker). The expression it returns is
// always well formed, whatever the input: every word and phrase is quoted,
// so characters that mean something to FTS5 (- : ^ * ( ) and the like) are
// taken literally unless they are part of the small syntax below.
//
//	deploy AND staging  both words, in any order; words are stemmed, so
//	                    "deploying" finds "deploy"
//	"staging deploy"    the words next to each other, in this order
//	deploy OR release   either word (OR binds tighter than the implicit AND
//	                    of a strict query: "a b OR c" is a and (b or c))
//	deploy NOT staging  deploy but not staging; "-staging" says the same
//	depl*               words that start with "depl"
//	title:sarah         a word in one field: name, title, tags (or tag), body
//	(a OR b) c          grouping
//
// OR, NOT and AND are operators only in capitals. A query of nothing but
// exclusions cannot be answered by a full-text index, so its words are
// searched for instead.
//
// A query that uses none of that syntax (no quotes, AND, OR, NOT, -word,
// prefix* or field:) is natural language, a question or a few words as
// people and agents type them: "how does Sarah like to be contacted". Its
// stop words are dropped (words.IsStop; a query of nothing but stop
// words keeps them) and the rest are optional terms, ORed, so that an entry
// holding some of them is found; BM25 ranks those holding more, and rarer,
// terms first, and Cover tells a ranking how many of the terms a text holds
// and how close together. Parentheses alone group nothing and do not make
// a query strict.
//
// Parse reads a query once into a Plan, which gives the FTS5 expression,
// the Marker of its snippets and the words it looks for, to every caller.
package query

import (
	"strings"
	"unicode"
)

// maxDepth bounds the nesting of parentheses that are kept as grouping;
// deeper ones are ignored, so no query can overflow FTS5's parser.
const maxDepth = 8

// fields are the indexed columns a word can be limited to, by what a user
// may type before the colon.
var fields = map[string]string{"name": "name", "title": "title", "tags": "tags", "tag": "tags", "body": "body"}

// Translate returns the FTS5 expression for q, or "" when q holds nothing to
// search for (no letters or digits): Plain(q).Expr().
func Translate(q string) string {
	return Plain(q).Expr()
}

// clean makes q safe to quote for FTS5, which reads its query as a C
// string: invalid UTF-8 is replaced and control characters, NUL among them,
// become spaces.
func clean(q string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(q, "\uFFFD"))
}

type kind int

const (
	tWord kind = iota
	tPhrase
	tOr
	tNot
	tOpen
	tClose
)

type token struct {
	kind   kind
	text   string
	field  string // an FTS5 column, or ""
	prefix bool
}

// lex splits q into tokens. It never fails: an unclosed quote runs to the
// end of q. strict reports whether q uses any operator: a phrase, AND, OR,
// NOT or -word, a prefix* or a field:.
func lex(q string) (toks []token, strict bool) {
	rs := []rune(q)
	field := ""
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
			field = ""
			continue
		case r == '(':
			toks = append(toks, token{kind: tOpen})
			i++
			continue
		case r == ')':
			toks = append(toks, token{kind: tClose})
			i++
			continue
		case r == '"':
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				j++
			}
			t := token{kind: tPhrase, text: string(rs[i+1 : min(j, len(rs))]), field: field}
			i = j + 1
			for i < len(rs) && rs[i] == '*' {
				t.prefix = true
				i++
			}
			toks = append(toks, t)
			field = ""
			strict = true
			continue
		case r == '-' && i+1 < len(rs) && !unicode.IsSpace(rs[i+1]) && rs[i+1] != '-':
			toks = append(toks, token{kind: tNot})
			strict = true
			i++
			continue
		}
		j := i
		for j < len(rs) && !unicode.IsSpace(rs[j]) && !strings.ContainsRune(`()"`, rs[j]) {
			j++
		}
		w := string(rs[i:j])
		i = j
		switch w {
		case "OR":
			toks = append(toks, token{kind: tOr})
			strict = true
			continue
		case "NOT":
			toks = append(toks, token{kind: tNot})
			strict = true
			continue
		case "AND":
			strict = true
			continue
		}
		if k, rest, ok := strings.Cut(w, ":"); ok {
			if f, known := fields[strings.ToLower(k)]; known {
				strict = true
				if rest == "" {
					// title:"a phrase": the field goes to the next token.
					field = f
					continue
				}
				field, w = f, rest
			}
		}
		t := token{kind: tWord, text: strings.TrimRight(w, "*"), field: field}
		t.prefix = len(t.text) < len(w)
		strict = strict || t.prefix
		toks = append(toks, t)
		field = ""
	}
	return toks, strict
}

// node is a parsed query: a leaf (one quoted word or phrase), an OR of
// nodes, or a sequence of required and excluded nodes.
type node struct {
	text, field string
	prefix      bool
	or          []*node
	pos, neg    []*node
	isSeq       bool
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() (token, bool) {
	if p.i < len(p.toks) {
		return p.toks[p.i], true
	}
	return token{}, false
}

// seq parses required and excluded operands up to the end, or up to the
// ')' that closes a group when depth > 0.
func (p *parser) seq(depth int) *node {
	n := &node{isSeq: true}
	for {
		t, ok := p.peek()
		if !ok {
			break
		}
		if t.kind == tClose {
			p.i++
			if depth > 0 {
				break
			}
			continue // an unmatched ')' is noise
		}
		if t.kind == tOr {
			p.i++ // an OR with nothing on its left
			continue
		}
		neg := false
		for t.kind == tNot {
			neg = true
			p.i++
			if t, ok = p.peek(); !ok {
				break
			}
		}
		if !ok {
			break
		}
		operand := p.or(depth)
		switch {
		case operand == nil:
		case neg:
			n.neg = append(n.neg, operand)
		default:
			n.pos = append(n.pos, operand)
		}
	}
	if len(n.pos) == 0 {
		// Exclusions alone cannot be searched: search their words.
		n.pos, n.neg = n.neg, nil
	}
	if len(n.pos) == 0 {
		return nil
	}
	return n
}

// or parses operands joined by OR.
func (p *parser) or(depth int) *node {
	var alts []*node
	for {
		if a := p.unary(depth); a != nil {
			alts = append(alts, a)
		}
		t, ok := p.peek()
		if !ok || t.kind != tOr {
			break
		}
		p.i++
		// NOT right after OR has no FTS5 meaning; skip it.
		for t, ok = p.peek(); ok && t.kind == tNot; t, ok = p.peek() {
			p.i++
		}
	}
	switch len(alts) {
	case 0:
		return nil
	case 1:
		return alts[0]
	}
	return &node{or: alts}
}

// unary parses one word, phrase or group.
func (p *parser) unary(depth int) *node {
	t, ok := p.peek()
	if !ok {
		return nil
	}
	switch t.kind {
	case tWord, tPhrase:
		p.i++
		return leaf(t.text, t.field, t.prefix)
	case tOpen:
		p.i++
		if depth >= maxDepth {
			return nil // too deep: the group's contents join the enclosing one
		}
		return p.seq(depth + 1)
	}
	return nil // ')', OR or NOT where an operand belongs: the caller moves on
}

// leaf is one quoted word or phrase, or nil if text has no letters or
// digits, which FTS5 could not match.
func leaf(text, field string, prefix bool) *node {
	if !strings.ContainsFunc(text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return nil
	}
	return &node{text: Segment(text), field: field, prefix: prefix}
}

// render writes n in FTS5 syntax; grouped wraps a compound in parentheses.
// unfielded drops field filters, for a table whose text has no fields.
func (n *node) render(grouped, unfielded bool) string {
	if n == nil {
		return ""
	}
	var s string
	switch {
	case n.isSeq:
		parts := make([]string, len(n.pos))
		for i, c := range n.pos {
			parts[i] = c.render(true, unfielded)
		}
		s = strings.Join(parts, " AND ")
		if len(n.neg) > 0 {
			if len(parts) > 1 {
				s = "(" + s + ")"
			}
			negs := make([]string, len(n.neg))
			for i, c := range n.neg {
				negs[i] = c.render(true, unfielded)
			}
			s += " NOT " + group(negs, " OR ")
		}
		if grouped && (len(n.pos) > 1 || len(n.neg) > 0) {
			s = "(" + s + ")"
		}
		return s
	case n.or != nil:
		parts := make([]string, len(n.or))
		for i, c := range n.or {
			parts[i] = c.render(true, unfielded)
		}
		return "(" + strings.Join(parts, " OR ") + ")"
	}
	s = `"` + strings.ReplaceAll(n.text, `"`, `""`) + `"`
	if n.prefix {
		s += "*"
	}
	if n.field != "" && !unfielded {
		s = "{" + n.field + "} : " + s
	}
	return s
}

func group(parts []string, op string) string {
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, op) + ")"
}
