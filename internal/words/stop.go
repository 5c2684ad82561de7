package words

import (
	_ "embed"
	"strings"
)

var (
	//go:embed stopwords.txt
	stopwordsText string
	//go:embed glue.txt
	glueText string

	glue      = wordSet(glueText)
	stopwords = wordSet(stopwordsText)
)

// wordSet reads a list of words, one a line, '#' starting a comment.
func wordSet(text string) map[string]bool {
	m := map[string]bool{}
	for line := range strings.Lines(text) {
		if w := strings.TrimSpace(line); w != "" && !strings.HasPrefix(w, "#") {
			m[w] = true
		}
	}
	return m
}

// IsStop reports whether w is an English stop word: one that says nothing
// about what a text is about, which a natural query drops. Case and
// diacritics do not matter.
func IsStop(w string) bool {
	w = Fold(w)
	return stopwords[w] || glue[w]
}

// IsGlue reports whether w is a glue word: a stop word that any sentence
// is built from (the, of, is, they), unlike stop words such as "only",
// "before" or "without", which frame a question but change what a
// statement says. Two statements are compared without their glue words.
// Case and diacritics do not matter.
func IsGlue(w string) bool { return glue[Fold(w)] }
