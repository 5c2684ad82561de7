package query

import (
	"strings"
	"unicode/utf8"

	"github.com/ctx0/ctx0/internal/words"
)

// zwsp separates the characters Segment splits. The index's tokenizer
// (unicode61) reads it as a separator, and it is invisible in a snippet.
const zwsp = '\u200B'

// Segment prepares text for the index and for queries alike. Scripts that
// write words without spaces (Chinese, Japanese, Korean) give unicode61 one
// token per run of characters, so a word inside a sentence could not be
// found. Segment puts a zero-width space around each of their characters:
// every character becomes a token, and a query for a word becomes the phrase
// of its characters, which matches the word wherever it is written.
func Segment(s string) string {
	i := firstSpaceless(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/2)
	b.WriteString(s[:i])
	prevSep := false
	for _, r := range s[i:] {
		if words.Spaceless(r) {
			if !prevSep {
				b.WriteRune(zwsp)
			}
			b.WriteRune(r)
			b.WriteRune(zwsp)
			prevSep = true
			continue
		}
		b.WriteRune(r)
		prevSep = r == zwsp
	}
	return b.String()
}

// Unsegment removes what Segment added, for showing indexed text.
func Unsegment(s string) string {
	if !strings.ContainsRune(s, zwsp) {
		return s
	}
	return strings.ReplaceAll(s, string(zwsp), "")
}

// OneLine makes a snippet of indexed text one line of the text as
// written: without what Segment added, runs of white space made one space.
func OneLine(s string) string { return words.OneLine(Unsegment(s)) }

// firstSpaceless returns the offset of the first character of a spaceless
// script in s, or -1. Most text is ASCII: skip it byte by byte.
func firstSpaceless(s string) int {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if words.Spaceless(r) {
			return i
		}
		i += n
	}
	return -1
}
