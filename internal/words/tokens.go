// Package words is how ctx0 reads text as words: where a word starts and
// ends, its index term, the English stop words, how alike two sets of
// words are, and the few ways a count or a text is said in one line. It is
// a leaf, importing no other ctx0 package, so that the index, its query
// plans, the librarian, the curator and retrieval all cut text the same
// way: a word one of them finds is a word the others find.
//
// Words are read as the index's tokenizer reads them, FTS5's 'porter
// unicode61 remove_diacritics 2' (see package index's schema), so that Go
// code can find what FTS5 would match without asking it: a token is a run
// of letters, digits and private-use characters; it is folded to lower
// case without diacritics, then stemmed by the Porter algorithm, which
// FTS5 applies to tokens of 3 to 64 bytes. index/query's
// TestTokensMatchFTS5 and FuzzMarksMatchFTS5 hold the two readings
// together.
package words

import (
	"strings"
	"unicode"
	"unicode/utf8"

	porter "github.com/blevesearch/go-porterstemmer"
	"golang.org/x/text/unicode/norm"
)

// Span is a word of a text: its byte offsets.
type Span struct{ Start, End int }

// Tokens returns the tokens of s as FTS5's unicode61 tokenizer cuts them.
func Tokens(s string) []Span {
	out := make([]Span, 0, len(s)/6+1) // words of English average five letters
	start := -1
	for i := 0; i < len(s); {
		c := s[i]
		n, in := 1, false
		if c < utf8.RuneSelf {
			in = asciiWord[c]
		} else {
			var r rune
			r, n = utf8.DecodeRuneInString(s[i:])
			in = unicode.In(r, unicode.L, unicode.N, unicode.Co)
		}
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			out = append(out, Span{start, i})
			start = -1
		}
		i += n
	}
	if start >= 0 {
		out = append(out, Span{start, len(s)})
	}
	return out
}

// asciiWord tells the ASCII characters a token is made of.
var asciiWord = func() (w [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		w[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return w
}()

// Spans returns the words of s: its tokens, a token that mixes a spaceless
// script with other letters ("Go言語") cut where the script changes. The
// index puts a separator around each character of a spaceless script (see
// index/query.Segment), so each part is searched on its own.
func Spans(s string) []Span {
	toks := Tokens(s)
	out := make([]Span, 0, len(toks))
	for _, sp := range toks {
		start, inRun := sp.Start, false
		for i, r := range s[sp.Start:sp.End] {
			if sl := Spaceless(r); i == 0 {
				inRun = sl
			} else if sl != inRun {
				out = append(out, Span{start, sp.Start + i})
				start, inRun = sp.Start+i, sl
			}
		}
		out = append(out, Span{start, sp.End})
	}
	return out
}

// Split returns the words of s, as Spans cuts them, as written.
func Split(s string) []string {
	spans := Spans(s)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = s[sp.Start:sp.End]
	}
	return out
}

// Lower returns the words of s in lower case: how two texts are compared
// word by word.
func Lower(s string) []string { return Split(strings.ToLower(s)) }

// Normal returns the words of s in lower case, one space apart: two texts
// that differ only in case, spacing and punctuation read the same.
func Normal(s string) string { return strings.Join(Lower(s), " ") }

// Spaceless reports whether r belongs to a script written without spaces
// between words. U+30FC, the katakana long vowel mark, is of the Common
// script but only ever appears inside Japanese words.
func Spaceless(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 0x30FC
}

// Fold returns a token in lower case without diacritics.
func Fold(tok string) string {
	ascii := true
	for i := 0; i < len(tok); i++ {
		if tok[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(tok)
	}
	var b strings.Builder
	for _, r := range tok {
		r = unicode.ToLower(r)
		if r < utf8.RuneSelf || !unicode.Is(unicode.Latin, r) {
			b.WriteRune(r) // FTS5 removes the diacritics of Latin letters only
			continue
		}
		for _, d := range norm.NFD.String(string(r)) {
			if !unicode.Is(unicode.Mn, d) {
				b.WriteRune(d)
			}
		}
	}
	return b.String()
}

// Stem returns the index term of a folded token: "deploys", "deployed",
// "deploying" and "deploy" all give "deploy". FTS5's stemmer reads bytes,
// a byte of a multi-byte character as a consonant; so does this one,
// given each byte as a rune of its own.
func Stem(folded string) string {
	if len(folded) < 3 || len(folded) > 64 {
		return folded
	}
	rs := make([]rune, len(folded))
	for i := range len(folded) {
		rs[i] = rune(folded[i])
	}
	rs = porter.StemWithoutLowerCasing(rs)
	b := make([]byte, len(rs))
	for i, r := range rs {
		b[i] = byte(r)
	}
	return string(b)
}

// Term returns the index term of a token: the key under which the index
// finds it, and which words that differ only by inflection share.
func Term(tok string) string { return Stem(Fold(tok)) }
