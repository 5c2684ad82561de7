package vault

import (
	"path"
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
)

// SlugFromTitle is a short file name made from the subject of a title:
// without the frame a sentence opens with ("We decided to", "Let's", "I
// want to", "From now on,"), without the reason or aside after it
// ("because…", "; reply within a day"), and in whole words and phrases:
// when the subject is longer than 60 bytes it ends before the phrase that
// does not fit ("…separation" rather than "…separation-and-just-have"),
// never on a word such as "to" or "the". "" when no word makes a name.
// Slashes separate words, so that a title never names a folder. A secret
// in the title is redacted first: no name carries one. A name Windows
// reserves for a device gets "-entry" ("Nul" names nul-entry).
func SlugFromTitle(title string) string {
	title, _ = Redact(title)
	s := subjectSlug(title)
	// Lowercasing can give a secret its shape (GLPAT-… becomes glpat-…).
	if r, _ := Redact(s); r != s {
		s = normalizeSegment(r)
	}
	if reservedOnWindows(s) {
		s += "-entry"
	}
	return s
}

// subjectSlug is SlugFromTitle before its guards.
func subjectSlug(title string) string {
	subject := withoutFrame(title)
	if loc := subjectEnd().FindStringIndex(subject); loc != nil && loc[0] > 0 {
		subject = withoutFrame(subject[:loc[0]])
	}
	// A title already cut short ("…") ends mid-phrase too.
	trimmed := strings.TrimSpace(subject)
	subject = strings.TrimRight(trimmed, "….")
	shortened := subject != trimmed && strings.HasSuffix(trimmed, "…")
	words := strings.Fields(strings.NewReplacer("/", " ", "\\", " ").Replace(subject))
	// Each word is added to the name made so far, so that a word that
	// makes nothing ("..") leaves it as it was.
	names := make([]string, len(words)+1) // names[i]: the name of the first i words
	fits := 0
	for i, w := range words {
		next := normalizeSegment(names[i] + " " + w)
		if len(next) > 60 && names[i] != "" {
			break
		}
		names[i+1], fits = next, i+1
	}
	kept := fits
	if fits < len(words) {
		// Cut before the phrase that does not fit whole, if it opens
		// after the first two words and at most three words back.
		for k := fits; k >= max(2, fits-3); k-- {
			if phraseStart[strings.ToLower(words[k])] {
				kept = k
				break
			}
		}
	}
	for kept > 1 && (kept < len(words) || shortened) && (phraseStart[strings.ToLower(words[kept-1])] || danglingWord[strings.ToLower(words[kept-1])]) {
		kept--
	}
	return names[kept]
}

// withoutFrame is s without the frames it opens with.
func withoutFrame(s string) string {
	for {
		rest := subjectFrame().ReplaceAllString(s, "")
		if rest == s || strings.TrimSpace(rest) == "" {
			return s
		}
		s = rest
	}
}

var (
	// subjectFrame is what a sentence opens with before its subject.
	subjectFrame = lazy.Regexp(`(?i)^\s*(?:(?:yes|ok|okay|so|and|also|note)[,:]\s+|(?:please|in a previous session,?)\s+|remember(?: that)?[,:]?\s+|(?:we|i)(?:'ve| have)? decided (?:to|that|on)\s+|(?:let'?s|let us)\s+(?:go with\s+|stick with\s+)?|(?:we|i)(?:'ll| will)\s+(?:go with\s+)?|we(?:'re| are) going with\s+|the decision is(?: to| that)?\s*|decision:\s*|i (?:want|need|would like|'d like) to\s+|we (?:should|need to|want to)\s+|from now on,?\s+|going forward,?\s+|(?:when|whenever|if|before|after|once)\s+[^,]{1,40},\s+|(?:[^\s:]+\s+){0,2}(?:fix|fixed|note|decision|decided|update|todo|error|failed|fails|issue|problem|bug|question|reminder|tip|fact|rule|preference|correction|summary|outcome|result):\s+)`)
	// subjectEnd is where a sentence's subject ends: a stop, a reason or
	// an aside. Not a colon: what stands before one is a label ("Laptop
	// one: Alex uses vim") or part of a quote ("fails with 'go: module not
	// found'"), and the name is made from the whole gist, the label and
	// what it labels; a label that is only a frame ("Fix:", "Note:") is
	// dropped by subjectFrame.
	subjectEnd = lazy.Regexp(`(?i)[.;!?](?:\s|$)|\s+(?:because|since|so that|given that|as it|as they|which means)\b|,\s+(?:because|since|so|which|but|as)\b|\s+[—–]\s+|\s+\(`)
)

// phraseStart are the words a phrase opens with: a name cut for length
// ends before one. danglingWord are words no name ends on.
var (
	phraseStart  = setOf("and", "or", "but", "to", "for", "with", "without", "in", "on", "at", "by", "from", "of", "into", "over", "under", "instead", "rather", "than", "that", "which", "who", "when", "while", "after", "before", "so", "if", "because", "since", "as", "via")
	danglingWord = setOf("the", "a", "an", "my", "our", "your", "its", "their", "this", "these", "those", "is", "are", "was", "be", "it", "just", "not", "no", "very", "more", "most", "favor", "favour", "instead", "spite", "lieu", "addition")
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// ProjectSlug is the name, within its folder, of the entry for a project
// given as a path or a repository: its last part, "web-app" for
// "github.com/acme/web.app". Entries filed from the project's sessions
// carry it in their project field, so whoever scopes by project compares
// this; "" when it makes no name.
func ProjectSlug(project string) string {
	project = strings.TrimRight(strings.ReplaceAll(strings.TrimSpace(project), "\\", "/"), "/")
	if project == "" {
		return ""
	}
	n, err := NormalizeName(strings.ReplaceAll(path.Base(project), ".", " "))
	if err != nil {
		return ""
	}
	return n
}
