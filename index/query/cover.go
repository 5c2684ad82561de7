package query

import (
	"strings"

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
}

// Cover returns how much of m's query text holds (text as indexed, see
// Segment).
func (m *Marker) Cover(text string) Cover {
	c := Cover{Of: len(m.phrases)}
	text = linkFolders(text)
	insts := m.find(text, words.Tokens(text))
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

// Boost is the factor a ranking multiplies a text's BM25 score by for its
// cover: the share of the query's terms it holds, (1+Held)/(1+Of), so that
// holding one term of three halves the score; then up to 1+closeWeight as
// more of them stand close together. A query of one term boosts nothing.
func (c Cover) Boost() float64 {
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
