package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// fold maps s to a key that two strings share exactly when strings.EqualFold
// finds them equal: each rune becomes the least rune of its case-folding
// orbit. Titles and aliases are compared ignoring case (see vault.Resolve),
// and an indexed key column lets SQL do that comparison.
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				return r - 'a' + 'A' // the least of {a, A}; also right for k and s
			}
			return r
		}
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		return m
	}, s)
}
