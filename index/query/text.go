package query

import (
	"strings"
	"unicode"
	"unicode/utf8"

	porter "github.com/blevesearch/go-porterstemmer"
	"golang.org/x/text/unicode/norm"
)

// This file reads text as the index's tokenizer does, 'porter unicode61
// remove_diacritics 2' (see the index's schema), so that Go code can find
// what FTS5 would match without asking it: a token is a run of letters,
// digits and private-use characters; it is folded to lower case without
// diacritics, then stemmed by the Porter algorithm, which FTS5 applies to
// tokens of 3 to 64 bytes. TestTokensMatchFTS5 and FuzzMarksMatchFTS5
// hold the two readings together.

// span is a token: its byte offsets in the text.
type span struct{ start, end int }

// tokenize returns the tokens of s.
func tokenize(s string) []span {
	out := make([]span, 0, len(s)/6+1) // words of English average five letters
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
			out = append(out, span{start, i})
			start = -1
		}
		i += n
	}
	if start >= 0 {
		out = append(out, span{start, len(s)})
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

// fold returns a token in lower case without diacritics.
func fold(tok string) string {
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

// stem returns the index term of a folded token. FTS5's stemmer reads
// bytes, a byte of a multi-byte character as a consonant; so does this
// one, given each byte as a rune of its own.
func stem(folded string) string {
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

// term returns the index term of a token.
func term(tok string) string { return stem(fold(tok)) }
