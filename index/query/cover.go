package query

import (
	"slices"
	"strings"

	"github.com/ctx0/ctx0/index/query/when"
	"github.com/ctx0/ctx0/internal/words"
)

// A natural query's terms are optional, so BM25 alone ranks a text that
// repeats one rare term above one that holds every term of the question in
// a sentence. A ranking corrects that on its best candidates with Cover,
// which the Marker finds from the text alone, as it finds a snippet's
// matches.

// Cover is how much of a query a text holds: how many of its words and
// phrases, and how close together.
type Cover struct {
	Held int // the query's words and phrases the text holds
	Of   int // the query's words and phrases
	// Span is the number of tokens of the shortest stretch of the text
	// that holds all Held; 0 when Held is 0.
	Span int
	// Day is set when the text names a day the query names (Plan.Days),
	// in any of its common forms ("April 4th", "2023-04-04" for "4
	// April"): it then holds the query's words naming that day, there.
	Day bool
}

// Cover returns how much of m's query text holds (text as indexed, see
// Segment).
func (m *Marker) Cover(text string) Cover {
	c := Cover{Of: len(m.phrases)}
	text = linkFolders(text)
	toks := words.Tokens(text)
	insts := m.find(text, toks)
	if _, at, ok := when.NamesDay(text, m.now, false, m.days); ok {
		c.Day = true
		pos, _ := slices.BinarySearchFunc(toks, at, func(t words.Span, at int) int { return t.Start - at })
		for pi, day := range m.dayPhrase {
			if day && !slices.ContainsFunc(insts, func(in instance) bool { return in.phrase == pi }) {
				insts = append(insts, instance{pi, pos})
			}
		}
		slices.SortStableFunc(insts, func(a, b instance) int { return a.pos - b.pos })
	}
	if len(insts) == 0 {
		return c
	}
	count := make([]int, len(m.phrases))
	for _, in := range insts {
		if count[in.phrase] == 0 {
			c.Held++
		}
		count[in.phrase]++
	}
	// The shortest window of instances that holds every phrase held: the
	// window grows to the right and, whenever it holds them all, drops
	// from the left what it can spare.
	clear(count)
	have := 0
	c.Span = int(^uint(0) >> 1)
	l := 0
	for _, in := range insts {
		if count[in.phrase] == 0 {
			have++
		}
		count[in.phrase]++
		for have == c.Held {
			end := in.pos + len(m.phrases[in.phrase].terms)
			c.Span = min(c.Span, end-insts[l].pos)
			out := insts[l]
			count[out.phrase]--
			if count[out.phrase] == 0 {
				have--
			}
			l++
		}
	}
	return c
}

// How Boost weighs a cover.
const (
	// closeTokens is the stretch, in tokens per term held, within which
	// terms count as together: three terms within twelve tokens are a
	// sentence about them.
	closeTokens = 4
	// closeWeight is the most that terms held together add to a score.
	closeWeight = 0.25
)

// DayBoost is how much more a text scores when it names the day the
// question names ("the dentist appointment on 4 April": "When is it?"
// "Tuesday 4 April 2023"), or was said on it: twice as much, so that it
// goes ahead of an equal one that names only the month or another day of
// it. Every ranking of a question weighs a day by it: search, search
// --sessions, retrieve.
const DayBoost = 1.0

// Boost is the factor a ranking multiplies a text's BM25 score by for its
// cover: the share of the query's terms it holds, (1+Held)/(1+Of), so that
// holding one term of three halves the score; then up to 1+closeWeight as
// more of them stand close together; then 1+DayBoost when it names the day
// the query names. A query of one term boosts nothing for its cover.
func (c Cover) Boost() float64 {
	if c.Day {
		c.Day = false
		return (1 + DayBoost) * c.Boost()
	}
	if c.Of <= 1 {
		return 1
	}
	b := float64(1+c.Held) / float64(1+c.Of)
	if c.Held < 2 || c.Span <= 0 {
		return b
	}
	closeness := min(1, float64(closeTokens*c.Held)/float64(c.Span))
	return b * (1 + closeWeight*closeness*float64(c.Held-1)/float64(c.Of-1))
}

// linkFolders blanks the folders of wikilinks' targets: [[contacts/sarah]]
// says "sarah", not "contacts", and would otherwise make every link to a
// contact count for a question about contacting.
func linkFolders(text string) string {
	var b []byte
	for i := 0; ; {
		j := strings.Index(text[i:], "[[")
		if j < 0 {
			break
		}
		start := i + j + 2
		end := strings.Index(text[start:], "]]")
		if end < 0 {
			break
		}
		target := text[start : start+end]
		if k := strings.IndexAny(target, "|#"); k >= 0 {
			target = target[:k]
		}
		if k := strings.LastIndexByte(target, '/'); k >= 0 {
			if b == nil {
				b = []byte(text)
			}
			for p := start; p <= start+k; p++ {
				b[p] = ' '
			}
		}
		i = start + end + 2
	}
	if b == nil {
		return text
	}
	return string(b)
}
