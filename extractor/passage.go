package extractor

import (
	"math"
	"strings"
	"time"

	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault/entry"
)

// A passage is the part of an entry a bundle quotes: a paragraph, a list,
// or a piece of a long one, with the lines it spans in the file so that an
// agent can read around it.
type passage struct {
	text       string
	start, end int // lines in the file, 1-based, inclusive; 0 when not from a file
}

// maxBlock caps a passage, in tokens: long paragraphs are cut into
// pieces of about this size, so a bundle quotes what is relevant rather
// than a whole section.
const maxBlock = 120

// minBlock is the size under which a passage takes in the block after it,
// when that one still fits maxBlock: a one-line answer reads better with
// the sentence that follows.
const minBlock = 30

// blocks cuts an entry's body into the passages it can be quoted by:
// paragraphs (a heading goes with the paragraph under it; a fenced code
// block stays whole unless it is long), then paragraphs over maxBlock cut
// by lines and sentences.
func blocks(e *entry.Entry) []passage {
	body := e.Body()
	line := bodyLine(e)
	var paras []passage
	var cur []string
	start, fenced := 0, false
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, passage{text: strings.Join(cur, "\n"), start: start, end: start + len(cur) - 1})
		}
		cur = nil
	}
	for _, l := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		l = strings.TrimRight(l, "\r")
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
		}
		switch {
		case trimmed == "" && !fenced:
			// Headings and marker lines alone stay open, to join the
			// paragraph under them: they never stand for an entry. So
			// does an error, to be quoted with its fix.
			if len(cur) > 0 && !leads(cur) {
				flush()
			}
		default:
			if len(cur) == 0 {
				start = line
			}
			cur = append(cur, l)
		}
		line++
	}
	flush()
	// Where the entry was learned ("Learned 2025-11-13 in [[episodes/…]]")
	// goes with the paragraph before it: alone it holds the project's or
	// the day's name and nothing of what was learned.
	for i := 1; i < len(paras); i++ {
		if provenance(paras[i].text) {
			paras[i-1] = passage{text: paras[i-1].text + "\n" + paras[i].text, start: paras[i-1].start, end: paras[i].end}
			paras = append(paras[:i], paras[i+1:]...)
			i--
		}
	}
	var out []passage
	for _, p := range paras {
		out = append(out, split(p)...)
	}
	return out
}

// leads reports whether the lines of a paragraph lead into the next one:
// headings and conversation marker lines alone, or an error (the
// librarian's "Error: …", followed by its "Fix: …").
func leads(lines []string) bool {
	if strings.HasPrefix(strings.TrimSpace(lines[0]), "Error:") {
		return true
	}
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if _, ok := sessions.MarkerRef(t); !ok && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

// provenance reports whether a paragraph only says where its entry was
// learned: "Learned 2025-11-13 in [[episodes/2025-11/2025-11-13]] …".
func provenance(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "Learned ") && strings.Contains(t, "[[") && !strings.Contains(t, "\n")
}

// split cuts a passage over maxBlock into pieces: by lines if it has
// several (a list, code), else by sentences.
func split(p passage) []passage {
	if Tokens(p.text) <= maxBlock {
		return []passage{p}
	}
	lines := strings.Split(p.text, "\n")
	if len(lines) > 1 {
		var out []passage
		var cur []string
		first := p.start
		for i, l := range lines {
			if len(cur) > 0 && Tokens(strings.Join(append(cur, l), "\n")) > maxBlock {
				out = append(out, split(passage{text: strings.Join(cur, "\n"), start: first, end: p.start + i - 1})...)
				cur, first = nil, p.start+i
			}
			cur = append(cur, l)
		}
		return append(out, split(passage{text: strings.Join(cur, "\n"), start: first, end: p.end})...)
	}
	var out []passage
	var b strings.Builder
	for _, s := range sentences(p.text) {
		if b.Len() > 0 && Tokens(b.String()+s) > maxBlock {
			out = append(out, passage{text: strings.TrimSpace(b.String()), start: p.start, end: p.end})
			b.Reset()
		}
		if Tokens(s) > maxBlock {
			s = clip(s, maxBlock)
		}
		b.WriteString(s)
	}
	if strings.TrimSpace(b.String()) != "" {
		out = append(out, passage{text: strings.TrimSpace(b.String()), start: p.start, end: p.end})
	}
	return out
}

// sentences cuts text after each '.', '!' or '?' (or their CJK forms)
// that ends a sentence, keeping the spaces with the sentence before.
func sentences(text string) []string {
	var out []string
	last := 0
	for i, r := range text {
		switch r {
		case '.', '!', '?':
			if next := i + 1; next == len(text) || text[next] == ' ' {
				end := next
				for end < len(text) && text[end] == ' ' {
					end++
				}
				out = append(out, text[last:end])
				last = end
			}
		case '。', '！', '？':
			end := i + len(string(r))
			out = append(out, text[last:end])
			last = end
		}
	}
	if last < len(text) {
		out = append(out, text[last:])
	}
	return out
}

// clip shortens text to at most max tokens, at a word boundary, marking
// the cut with an ellipsis. It assumes max leaves room for one.
func clip(text string, max int) string {
	if Tokens(text) <= max {
		return text
	}
	// Find the longest prefix that fits, by bisection over byte offsets
	// at spaces (or at any rune for text without spaces).
	cuts := []int{}
	for i, r := range text {
		if r == ' ' || r == '\n' || words.Spaceless(r) {
			cuts = append(cuts, i)
		}
	}
	if len(cuts) == 0 {
		for i := range text {
			cuts = append(cuts, i)
		}
	}
	lo, hi := 0, len(cuts)-1
	best := ""
	for lo <= hi {
		mid := (lo + hi) / 2
		cand := strings.TrimRight(text[:cuts[mid]], " \n,;:") + "…"
		if Tokens(cand) <= max {
			best, lo = cand, mid+1
		} else {
			hi = mid - 1
		}
	}
	return best
}

// weights are the weights of a question's terms when judging passages:
// a term that fewer of the candidate entries hold tells more (inverse
// document frequency over the candidates).
func weights(t terms, texts []string) []float64 {
	m := matcher{t: t}
	df := make([]int, len(t.words))
	for _, text := range texts {
		for _, i := range m.matched(text) {
			df[i]++
		}
	}
	w := make([]float64, len(t.words))
	for i := range w {
		w[i] = math.Log(1 + float64(len(texts)+1)/float64(df[i]+1))
	}
	return w
}

// best returns the passage of ps that holds the most of the question's
// weight, the earliest among equals (the lead paragraph when none holds
// any), joined with the next one when it is short; and the indexes of the
// terms it holds.
func best(ps []passage, m matcher, w []float64) (passage, []int) {
	if len(ps) == 0 {
		return passage{}, nil
	}
	at, top := 0, -1.0
	var hold []int
	for i, p := range ps {
		got := m.matched(p.text)
		s := 0.0
		for _, j := range got {
			s += w[j]
		}
		if s > top {
			at, top, hold = i, s, got
		}
	}
	p := ps[at]
	if strings.HasPrefix(p.text, "Error:") && at+1 < len(ps) {
		// An error is quoted with its fix, however long.
		joined := p.text + "\n" + ps[at+1].text
		return passage{text: joined, start: p.start, end: ps[at+1].end}, m.matched(joined)
	}
	if Tokens(p.text) < minBlock && at+1 < len(ps) {
		if joined := p.text + "\n" + ps[at+1].text; Tokens(joined) <= maxBlock {
			p = passage{text: joined, start: p.start, end: ps[at+1].end}
			hold = m.matched(joined)
		}
	}
	return p, hold
}

// said is what an entry says of the conversations it was filed from: the
// Ref in its conversation field, and, in an episode, the Ref each dated
// section names in its marker line (see sessions.Marker).
type said struct {
	ref      string
	sections []section // in the order of the file
}

// section is a part of an entry under a heading, from line on.
type section struct {
	line int
	ref  string
}

// saidIn reads what e says of its conversations.
func saidIn(e *entry.Entry) said {
	var s said
	if v, ok := e.Get(sessions.RefField); ok {
		s.ref, _ = v.(string)
	}
	body := e.Body()
	if !strings.Contains(body, "Conversation: `") {
		return s
	}
	line := bodyLine(e)
	for _, l := range strings.Split(body, "\n") {
		switch {
		case strings.HasPrefix(l, "#"):
			s.sections = append(s.sections, section{line: line})
		case len(s.sections) > 0 && s.sections[len(s.sections)-1].ref == "":
			if ref, ok := sessions.MarkerRef(l); ok {
				s.sections[len(s.sections)-1].ref = ref
			}
		}
		line++
	}
	return s
}

// at returns the Ref of the conversation the passage starting at line was
// said in or filed from, and when that conversation began; "" if none.
func (s said) at(line int) (ref string, at time.Time) {
	ref = s.ref
	in := ""
	for _, sec := range s.sections {
		if sec.line > line {
			break
		}
		in = sec.ref
	}
	if in != "" {
		ref = in
	}
	if _, t, ok := sessions.ParseRef(ref); ok {
		at = t
	}
	return ref, at
}

// bodyLine is the line of the file on which e's body starts.
func bodyLine(e *entry.Entry) int {
	return 1 + strings.Count(string(e.Bytes()[:len(e.Bytes())-len(e.Body())]), "\n")
}
