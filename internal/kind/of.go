package kind

import (
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
)

// prefers is a preference said of someone in the third person ("Sarah
// prefers email", "the user prefers Bun"): rule catches the first person.
var prefers = lazy.Regexp(`(?i)\bprefers\b`)

// Of is the type of entry a short text someone asks to remember reads
// as, by the rules the offline librarian files a conversation's sentences
// by: "decision" for a choice made ("we decided to use Postgres", "switch
// to pnpm instead of npm"), "preference" for a standing rule or a liking
// ("always run the linter first", "I prefer tabs", "Sarah prefers
// email"), "milestone" for something shipped, signed or raised, "contact"
// for a person introduced by name and role ("Meet Priya Patel, our new
// designer", "Sarah Chen is our investor"), "fact" for
// a lasting fact about someone named or about a tool ("Mateo moved to
// Lisbon", "Node 24 no longer requires the flag"), and "note" for anything
// else. A text of several sentences is typed by its first.
func Of(text string) string {
	ss := sentences(strings.TrimSpace(text))
	if len(ss) == 0 {
		return "note"
	}
	s := clean(ss[0])
	bare := opener().ReplaceAllString(s, "")
	switch {
	case decision().MatchString(bare):
		return "decision"
	case IsRule(s),
		prefers().MatchString(s) && !strings.HasSuffix(s, "?"):
		return "preference"
	case milestone().MatchString(bare):
		return "milestone"
	case PersonIn(bare) != "":
		return "contact"
	}
	if _, fact := personFactIn(s); fact != "" {
		return "fact"
	}
	if knowledge().MatchString(bare) && isFact(bare) {
		return "fact"
	}
	return "note"
}

// PersonIntroduced is the name of the person a text introduces ("Meet
// Priya Patel, our new designer" → "Priya Patel"), by the rule Of tells a
// contact by; "" when it introduces none.
func PersonIntroduced(text string) string {
	ss := sentences(strings.TrimSpace(text))
	if len(ss) == 0 {
		return ""
	}
	return PersonIn(opener().ReplaceAllString(clean(ss[0]), ""))
}
