package redact

import (
	"iter"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ctx0/ctx0/internal/lazy"
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

func lazyPrefixed(expr string) func() *prefixed {
	return sync.OnceValue(func() *prefixed { return prefixedOf(expr) })
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
	first := re
	if re.Op == syntax.OpConcat && len(re.Sub) > 0 {
		first = re.Sub[0]
		if first.Op == syntax.OpWordBoundary && len(re.Sub) > 1 {
			p.boundary = true
			first = re.Sub[1]
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
	// The pattern as written, anchored: syntax.Regexp.String would
	// rebuild it without the \b, but costs milliseconds a pattern. The \b
	// then reads at the start of s[at:], where it holds when the word
	// opens with a word character; findAll checks it against s itself.
	if p.boundary {
		for _, w := range p.words {
			if !isWordByte(w[0]) {
				return nil
			}
		}
	}
	anchored, err := regexp.Compile(`^(?:` + expr + `)`)
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

// A pattern that opens with a run of name characters of any length
// ([\w.-]{0,50}? before "api_key", [A-Za-z0-9_.-]* before "password")
// keeps one automaton thread alive per character of every word, so on
// prose full of the words it looks for it is slow for nothing. Its gate is
// the pattern without that run: it matches wherever the pattern does, with
// far fewer threads, and when it does not match the pattern is not run.
func lazyGate(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return gateOf(expr) })
}

// gateOf is the gate of expr; nil when expr does not open with such a run.
func gateOf(expr string) *regexp.Regexp {
	rest := gateExpr(expr)
	if rest == "" {
		return nil
	}
	g, err := regexp.Compile(rest)
	if err != nil {
		return nil
	}
	return g
}

// gateExpr is expr without the runs of name characters it opens with; ""
// when it opens with none. The runs are cut from the text as written
// (syntax.Regexp.String would rebuild the rest, but costs milliseconds a
// pattern, paid by the first command that redacts): a flag group such as
// (?i) or (?i: stays, a class or \w with a quantifier of minimum 0 goes.
// The parse tree confirms the pattern opens with such a run.
func gateExpr(expr string) string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) < 2 || !isNameRun(re.Sub[0]) {
		return ""
	}
	var kept strings.Builder
	i, cut := 0, false
	for i < len(expr) {
		if m := flagGroup().FindString(expr[i:]); m != "" {
			kept.WriteString(m)
			i += len(m)
			continue
		}
		n := runLen(expr[i:])
		if n == 0 {
			break
		}
		i += n
		cut = true
	}
	if !cut {
		return ""
	}
	rest := kept.String() + expr[i:]
	if _, err := syntax.Parse(rest, syntax.Perl); err != nil {
		return ""
	}
	return rest
}

// flagGroup is a group that sets flags, alone or opening a group.
var flagGroup = lazy.Regexp(`^\(\?[imsU-]+[:)]`)

// runLen is the length of the run that opens s: a class, \w or . with a
// quantifier of minimum 0 (*, ?, {0,n}, lazy or not); 0 if none.
func runLen(s string) int {
	i := 0
	switch {
	case strings.HasPrefix(s, "["):
		i = 1
		if strings.HasPrefix(s[i:], "^") {
			i++
		}
		if strings.HasPrefix(s[i:], "]") {
			i++
		}
		for i < len(s) && s[i] != ']' {
			switch {
			case s[i] == '\\':
				i++
			case strings.HasPrefix(s[i:], "[:"):
				if j := strings.Index(s[i:], ":]"); j >= 0 {
					i += j + 1
				}
			}
			i++
		}
		if i >= len(s) {
			return 0
		}
		i++ // the ]
	case strings.HasPrefix(s, `\w`), strings.HasPrefix(s, `\S`):
		i = 2
	case strings.HasPrefix(s, "."):
		i = 1
	default:
		return 0
	}
	q := quantifier().FindString(s[i:])
	if q == "" {
		return 0
	}
	return i + len(q)
}

var quantifier = lazy.Regexp(`^(?:\*|\?|\{0,\d+\})\??`)

// isNameRun reports whether re is a run of a character class that may be
// empty.
func isNameRun(re *syntax.Regexp) bool {
	return (re.Op == syntax.OpStar || re.Op == syntax.OpRepeat && re.Min == 0) && isClass(re.Sub[0])
}

func isClass(re *syntax.Regexp) bool {
	return re.Op == syntax.OpCharClass || re.Op == syntax.OpAnyCharNotNL
}

// assignName and assignOperator are how gitleaks' rules for a value
// assigned to a name ("generic-api-key", "discord-client-secret" and some
// sixty more) put the operator after the name's keyword.
const (
	assignName     = `(?:[ \t\w.-]{0,20})[\s'"]{0,3}`
	assignOperator = `(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`
)

// isAssignment reports whether a gitleaks pattern is built on that
// template.
func isAssignment(expr string) bool {
	return strings.Contains(expr, assignName) && strings.Contains(expr, assignOperator)
}

// assignWindows returns the parts of s where a rule built on
// the assignment template can match: around each of its keywords that an operator
// follows, as the template allows (up to 20 name characters, 3 spaces or
// quotes). Prose is full of "key", "token" and "access" with no operator
// after them; the rule's pattern, costly for its many bounded runs, then
// runs on none of it.
func assignWindows(s, lower string, keywords []string) [][2]int {
	var wins [][2]int
	for _, k := range keywords {
		k = strings.ToLower(k)
		for at := range occurrences(lower, k) {
			if end := operatorAfter(s, at+len(k)); end >= 0 {
				// The pattern allows 50 name characters before the keyword
				// and a value of 150 after the operator, with a few bytes
				// of spaces and quotes between.
				wins = append(wins, [2]int{max(0, at-64), min(len(s), end+170)})
			}
		}
	}
	return mergeWindows(wins)
}

// assigned reports whether one of keywords occurs in lower (s with ASCII
// lowered) with an operator of the assignment template after it: where
// alone a rule built on that template can match.
func assigned(s, lower string, keywords []string) bool {
	for _, k := range keywords {
		k = strings.ToLower(k)
		for at := range occurrences(lower, k) {
			if operatorAfter(s, at+len(k)) >= 0 {
				return true
			}
		}
	}
	return false
}

// mergeWindows sorts windows and joins those that overlap.
func mergeWindows(wins [][2]int) [][2]int {
	if len(wins) == 0 {
		return nil
	}
	slices.SortFunc(wins, func(a, b [2]int) int { return a[0] - b[0] })
	merged := wins[:1]
	for _, w := range wins[1:] {
		if last := &merged[len(merged)-1]; w[0] <= last[1] {
			last[1] = max(last[1], w[1])
		} else {
			merged = append(merged, w)
		}
	}
	return merged
}

// operatorAfter returns where an operator of the assignment template starts after
// s[i:], or -1.
func operatorAfter(s string, i int) int {
	n := 0
	for ; i < len(s) && n < 20 && (isWordByte(s[i]) || s[i] == ' ' || s[i] == '\t' || s[i] == '.' || s[i] == '-'); i++ {
		n++
	}
	n = 0
	for ; i < len(s) && n < 3 && strings.IndexByte(" \t\r\n\f\v'\"", s[i]) >= 0; i++ {
		n++
	}
	if i < len(s) && strings.IndexByte("=>:|?,", s[i]) >= 0 {
		return i
	}
	return -1
}

// assignMatches finds the matches of a rule built on the assignment template whose
// pattern opens with a run of name characters and then its keywords
// (anchored: that pattern without the run, anchored at its start): it is
// matched anchored at each keyword an operator follows, and the match is
// taken to start where the name holding the keyword starts, as the run
// would have taken it (the allowlists read the whole name:
// "primary_key"). The secret is the same either way.
func assignMatches(anchored *regexp.Regexp, s, lower string, keywords []string) [][]int {
	var out [][]int
	for _, k := range keywords {
		k = strings.ToLower(k)
		for at := range occurrences(lower, k) {
			if operatorAfter(s, at+len(k)) < 0 {
				continue
			}
			m := anchored.FindStringSubmatchIndex(s[at:])
			if m == nil {
				continue
			}
			for x := range m {
				if m[x] >= 0 {
					m[x] += at
				}
			}
			start := at
			for start > 0 && at-start < 50 && isNameByte(s[start-1]) {
				start--
			}
			m[0] = start
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b []int) int { return a[0] - b[0] })
	return out
}

func isNameByte(c byte) bool { return isWordByte(c) || c == '.' || c == '-' }

// findInWindows is FindAllStringSubmatchIndex of re on each window of s,
// in s's offsets.
func findInWindows(re *regexp.Regexp, s string, wins [][2]int) [][]int {
	var out [][]int
	for _, w := range wins {
		for _, m := range re.FindAllStringSubmatchIndex(s[w[0]:w[1]], -1) {
			for i := range m {
				if m[i] >= 0 {
					m[i] += w[0]
				}
			}
			out = append(out, m)
		}
	}
	return out
}

// hintWindows returns the parts of s where a near rule whose matches are
// at most reach bytes long can match: a hint lies in the match or up to
// nearWindow bytes before it, so the match lies within reach of a hint
// either way. A window ends at a word's edge on both sides, so that \b
// reads there as it reads in s.
func hintWindows(s, lower string, hints []string, reach int) [][2]int {
	var wins [][2]int
	for _, h := range hints {
		h = strings.ToLower(h)
		for at := range occurrences(lower, h) {
			start, end := max(0, at-reach), min(len(s), at+len(h)+nearWindow+reach)
			for start > 0 && isWordByte(s[start-1]) {
				start--
			}
			for end < len(s) && isWordByte(s[end]) {
				end++
			}
			wins = append(wins, [2]int{start, end})
		}
	}
	return mergeWindows(wins)
}

// maxLen is the longest text re can match, in bytes; -1 when unbounded
// or too long to be worth the windows (over 2 KB).
func maxLen(expr string) int {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return -1
	}
	n := length(re)
	if n > 2048 {
		return -1
	}
	return n
}

func length(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += utf8.RuneLen(r)
		}
		return n
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax
	case syntax.OpCapture:
		return length(re.Sub[0])
	case syntax.OpQuest:
		return length(re.Sub[0])
	case syntax.OpRepeat:
		if re.Max < 0 {
			return 1 << 20
		}
		return re.Max * length(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n += length(sub)
		}
		return min(n, 1<<20)
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			n = max(n, length(sub))
		}
		return n
	}
	return 1 << 20 // star, plus and anything unknown: unbounded
}

// occurrences yields each index at which word stands in lower, overlapping
// ones included: where the windows and anchored matches of a rule start.
func occurrences(lower, word string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i <= len(lower); {
			j := strings.Index(lower[i:], word)
			if j < 0 || !yield(i+j) {
				return
			}
			i += j + 1
		}
	}
}
