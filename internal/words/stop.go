package words

import (
	_ "embed"
	"strings"
)

//go:embed stopwords.txt
var stopwordsText string

// stopwords is stopwords.txt as a set.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for line := range strings.Lines(stopwordsText) {
		if w := strings.TrimSpace(line); w != "" && !strings.HasPrefix(w, "#") {
			m[w] = true
		}
	}
	return m
}()

// IsStop reports whether w is an English stop word: one that says nothing
// about what a text is about, which a natural query drops and a comparison
// of texts leaves out. Case and diacritics do not matter.
func IsStop(w string) bool { return stopwords[Fold(w)] }
