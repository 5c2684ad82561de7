package query

import "strings"

// Within counts the times text holds term within its words, for a term
// looked for inside longer words as it is written (a run of a spaceless
// script, a word with digits). A number is not held by a longer one: a
// term that starts or ends with a digit is held only where no digit goes
// on before or after it, so "4" is not said by "14", "2023-04-14" or
// "10:45", nor "4th" by "14th" (a day named in another form is matched as
// a day, see Marker.Cover), but "8080" is by "localhost:8080". A search
// of the index matches whole tokens, which holds the same rule.
func Within(text, term string) int {
	if term == "" {
		return 0
	}
	before, after := isDigit(term[0]), isDigit(term[len(term)-1])
	if !before && !after {
		return strings.Count(text, term)
	}
	n := 0
	for at := 0; ; {
		i := strings.Index(text[at:], term)
		if i < 0 {
			return n
		}
		i += at
		end := i + len(term)
		if (!before || i == 0 || !isDigit(text[i-1])) && (!after || end == len(text) || !isDigit(text[end])) {
			n++
		}
		at = i + 1
	}
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
