package kind

import (
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
)

// Statement is a decision sentence said as the choice itself, the way a
// careful person would title it: without the words that ask for it or
// report it ("Let's", "I want to", "can you", "please", "in a previous
// session we", "we decided to"), without the vehicle of a change ("update
// my spec to remove…" is "Remove…"), and without words that only point at
// the moment ("just", "this queue" is "the queue"); "go with X" is "use
// X". "Let's rename /data-capture to /src" is "Rename /data-capture to
// /src". A frame with nothing after it is left as it is.
func Statement(s string) string {
	s = clean(s)
	for {
		rest := strings.TrimSpace(requestFrame().ReplaceAllString(s, ""))
		if rest == s || rest == "" {
			break
		}
		s = rest
	}
	if m := vehicle().FindStringIndex(s); m != nil && decision().MatchString(s[m[1]:]) {
		s = s[m[1]:]
	}
	// "Go with X" is the choice of X: "Use X"; "stick with X" keeps it.
	s = goWith().ReplaceAllString(s, "Use ")
	s = stickWith().ReplaceAllString(s, "Keep ")
	s = politeness().ReplaceAllString(s, " ")
	s = pointing().ReplaceAllStringFunc(s, func(m string) string {
		w, next, _ := strings.Cut(m, " ")
		if notPointed[strings.ToLower(next)] {
			return m
		}
		if w[0] == 'T' {
			return "The " + next
		}
		return "the " + next
	})
	// Emphasis marks left at the end of a bold line go with it.
	s = clean(strings.TrimRight(clean(s), "?!,;*_~"))
	return capitalize(s)
}

var (
	// requestFrame is what a sentence that asks for a change, or reports
	// one, opens with before the change: taken off one at a time.
	requestFrame = lazy.Regexp(`(?i)^(?:(?:yes|yeah|yep|ok|okay|so|and|also|now|then|alright|right|great|nice|cool|perfect)\b[,.!]*\s*|` +
		`(?:please|pls|kindly)\b[,]?\s*|` +
		`(?:can|could|would|will) (?:you|we)\s+(?:please\s+)?|` +
		`(?:let'?s|lets|let us)\s+|` +
		`(?:i|we) (?:want|need|would like|'d like|wanna) (?:you )?to\s+|` +
		`(?:i|we)'d like (?:you )?to\s+|` +
		`(?:we|i)(?:\s+(?:should|must|will|need to|have to|could)|'ll)\s+|` +
		`(?:we|i)(?:'ve| have)? decided (?:to|that|on)\s+|` +
		`the decision is (?:to|that)?\s*|decision:\s*|` +
		`in (?:a|the|our|my) (?:previous|last|earlier) (?:session|conversation|chat),?\s+(?:we|i)\s+(?:have\s+|had\s+)?)`)
	// vehicle is a change asked of a document that says what to decide
	// ("update my spec to remove X"): the decision is what follows, when
	// that reads as one.
	vehicle = lazy.Regexp(`(?i)^(?:update|change|edit|revise|amend|rewrite)\s+(?:my|the|our|this)\s+(?:spec|specs|specification|plan|design|design doc|docs|documentation|readme|rfc|proposal)(?:\.md)?\s+to\s+`)
	// goWith and stickWith open a choice said with a phrasal verb.
	goWith    = lazy.Regexp(`(?i)^(?:go|going|went) with\s+`)
	stickWith = lazy.Regexp(`(?i)^(?:stick|sticking|stay|staying) with\s+`)
	// politeness is a word of asking inside the sentence, and "just".
	politeness = lazy.Regexp(`(?i)(?:,\s*)?\b(?:please|pls|just)\b,?\s*`)
	// pointing is a word that points at something in the conversation:
	// out of it, "this queue" is "the queue".
	pointing = lazy.Regexp(`\b(?:[Tt]his|[Tt]hese|[Tt]hose) [A-Za-z][\w-]*`)
)

// notPointed are the words after "this" that make it a pronoun ("this is
// slow", "do this and that"), not a pointer at a thing.
var notPointed = map[string]bool{"is": true, "was": true, "will": true, "would": true, "should": true, "can": true, "could": true, "does": true, "did": true, "has": true, "had": true, "and": true, "or": true, "to": true, "in": true, "on": true, "for": true, "with": true, "one": true, "way": true, "time": true, "week": true, "month": true, "year": true, "morning": true, "afternoon": true, "evening": true, "session": true}
