package redact

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// A rule whose every match opens with one of a few literal words (ghp_,
// AKIA, hvs., s.) and perhaps a word boundary runs only where such a word
// occurs, matched anchored there: Go's regexp skips ahead only to a single
// case-sensitive prefix, so a pattern such as \b(?:hvs\.…|s\.…) would
// otherwise step its automaton over every byte of every text that holds
// "s.", which most prose does.
type prefixed struct {
	words    []string // the literal openings, lower case when fold
	fold     bool
	boundary bool // the pattern opened with \b
	anchored *regexp.Regexp
}

// prefixedOf analyses expr; nil when its matches do not all open with a
// literal word of two bytes or more.
func prefixedOf(expr string) *prefixed {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	p := &prefixed{}
	// The pattern is a concatenation; its first part, after a word
	// boundary, must be the literal words.
	first, rest := re, []*syntax.Regexp(nil)
	if re.Op == syntax.OpConcat && len(re.Sub) > 0 {
		first, rest = re.Sub[0], re.Sub[1:]
		if first.Op == syntax.OpWordBoundary && len(rest) > 0 {
			p.boundary = true
			first, rest = rest[0], rest[1:]
		}
	}
	words, fold, ok := openings(first)
	if !ok {
		return nil
	}
	for _, w := range words {
		if len(w) < 2 || fold && strings.ToLower(w) != asciiLower(w) {
			return nil
		}
	}
	p.words, p.fold = words, fold
	if fold {
		for i, w := range p.words {
			p.words[i] = strings.ToLower(w)
		}
	}
	parts := append([]*syntax.Regexp{first}, rest...)
	body := &syntax.Regexp{Op: syntax.OpConcat, Sub: parts, Flags: re.Flags}
	if len(parts) == 1 {
		body = first
	}
	anchored, err := regexp.Compile(`^(?:` + body.String() + `)`)
	if err != nil {
		return nil
	}
	p.anchored = anchored
	return p
}

// openings returns the literal words every match of re opens with.
func openings(re *syntax.Regexp) (words []string, fold, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}, re.Flags&syntax.FoldCase != 0, true
	case syntax.OpCapture:
		return openings(re.Sub[0])
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return nil, false, false
		}
		return openings(re.Sub[0])
	case syntax.OpAlternate:
		for i, sub := range re.Sub {
			w, f, ok := openings(sub)
			if !ok || i > 0 && f != fold {
				return nil, false, false
			}
			words, fold = append(words, w...), f
		}
		return words, fold, true
	}
	return nil, false, false
}

// findAll is FindAllStringSubmatchIndex of the whole pattern, found by
// matching it anchored where one of its opening words occurs.
func (p *prefixed) findAll(s string) [][]int {
	hay := s
	if p.fold {
		hay = asciiLower(s)
	}
	var starts []int
	for _, w := range p.words {
		for i := 0; ; {
			j := strings.Index(hay[i:], w)
			if j < 0 {
				break
			}
			starts = append(starts, i+j)
			i += j + 1
		}
	}
	if len(starts) == 0 {
		return nil
	}
	slices.Sort(starts)
	var out [][]int
	next := 0
	for _, at := range starts {
		if at < next {
			continue
		}
		if p.boundary && at > 0 && isWordByte(s[at-1]) == isWordByte(s[at]) {
			continue
		}
		m := p.anchored.FindStringSubmatchIndex(s[at:])
		if m == nil {
			continue
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += at
			}
		}
		out = append(out, m)
		next = max(m[1], at+1)
	}
	return out
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// asciiLower lowers ASCII letters only, so that offsets in the result are
// offsets in s.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = lowerASCII(b[j])
			}
			return string(b)
		}
	}
	return s
}
