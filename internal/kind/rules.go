// Package kind holds the rules that tell what a short text someone says
// reads as: a decision, a preference or standing rule, a milestone, a
// lasting fact (about someone named, or about a tool), or a note. The
// vault types a remembered text by them and the offline librarian files a
// conversation's sentences by them, so both read a sentence alike.
package kind

import (
	"strings"
	"unicode/utf8"

	"github.com/ctx0/ctx0/internal/lazy"
)

var (
	// asking opens the sentence of a message that says what the user wants.
	asking = lazy.Regexp(`(?i)^(?:(?:ok|okay|so|now|and)[,\s]+)*(?:can you|could you|would you|please|let's|i want|i need|i'd like|we need|help me|add|fix|update|create|make|write|implement|remove|rename|start|run)\b`)
	// rule is a standing instruction or a stated preference: it says how
	// to do things from now on ("always", "never", "from now on", "I
	// prefer"), not how the user feels about this moment ("I hate this
	// bug", "I don't like this output").
	rule = lazy.Regexp(`(?i)^(?:(?:and|also|so|ok|okay|please)[,\s]+)*(?:from now on|going forward|in (?:the )?future|i (?:always |really |strongly )?prefer|i(?:'d| would) rather|i (?:really )?like .+ better|always\b|never\b|don't ever|do not ever|please always|please never|make sure (?:to )?always|my preference is)`)
	// notRule is what opens like a rule and is not one.
	notRule = lazy.Regexp(`(?i)^(?:never ?mind|always a\b|never again\W*$)`)
	// decision is a choice made in the conversation: said as one
	// (decided), or asked for as a change of plan (changeAsked).
	decision = lazy.Regexp(decidedExpr + `|` + changeAskedExpr)
	// decided is a choice said as made: "we decided", "we'll go with",
	// "let's go with B", "the decision is", a choice between two ("X in favor of Y"), or one
	// made before ("in a previous session we removed…").
	decided = lazy.Regexp(decidedExpr)
	// changeAsked is a change of plan asked for: a choice between two
	// ("use X instead of Y"), a move to something else ("switch to X",
	// "update the project to use X"), "let's go with X", "let's rename…",
	// "remove this queue separation and just have one queue". It is a
	// decision once the conversation shows it taken (the assistant does
	// it or agrees): a request alone is not one.
	changeAsked = lazy.Regexp(changeAskedExpr)
	// milestone is something reached that the user announces: a release,
	// a launch, a deal, a round, a number of users; not what is planned
	// ("we'll ship"), nor a step of the work ("I launched the server", "we
	// released the lock", "I finished the refactor").
	milestone = lazy.Regexp(`(?i)^(?:we|i|the team|our team)(?:'ve| have)?\s+(?:just\s+|finally\s+|officially\s+)?(?:` +
		`(?:shipped|launched|released|published|rolled out)\b.*\b(?:v\d|version \d|\d+\.\d+|beta|alpha|to production|to (?:all )?(?:our )?(?:customers|users)|publicly|general availability|on the app store|the (?:app|product|site|website|feature))|` +
		`went live|` +
		`signed (?:the|our|a) (?:\w+ )?(?:contract|deal|lease|agreement|term sheet|partnership)|` +
		`(?:raised|closed) (?:the|our|a) (?:\w+ )?(?:round|deal)|raised [$€£]?\d|` +
		`(?:hit|reached|crossed|passed) [$€£]?\d[\d,.]*\s*[km]?\s*(?:users|customers|stars|downloads|subscribers|members|sign-?ups|mrr|arr|in revenue)|` +
		`passed (?:the|our) (?:\w+ )?(?:audit|certification|exam))`)
	// opener is the words a sentence may open with before what it says.
	opener = lazy.Regexp(`(?i)^(?:(?:and|so|also|ok|okay|yes|yeah|great|yay|good news)[,!:\s]+)+`)
	// knowledge is a user's statement of how a tool, a version or a
	// system behaves, true beyond the conversation: "Node v24 no longer
	// requires --experimental-strip-types", "the staging DB listens on
	// 5433", "v1 of the API is deprecated".
	knowledge = lazy.Regexp(`(?i)^(?:\S+\s+){1,5}?(?:no longer (?:requires?|needs?|supports?)|now (?:requires?|supports?|ships with|defaults to)|(?:is|are) (?:now )?deprecated|(?:is|are) (?:enabled|disabled|on|off) by default|defaults to|listens on|only (?:works|runs) (?:with|on))\b`)
	// notFact opens or closes what is no standalone statement: a
	// fragment that hangs on what came before ("To prepare emotionally,
	// since…", "And then…"), a hedge ("maybe", "I think"), a feeling ("I
	// feel", "I'm so excited"), or a question.
	notFact = lazy.Regexp(`(?i)^(?:to|since|because|if|when|while|and|but|or|so|which|that|as|although|though|then|also)\b|` +
		`\b(?:maybe|perhaps|probably|possibly|might|i think|i guess|i believe|i suppose|not sure|i wonder|kind of|sort of)\b|` +
		`^i(?:'m| am)? (?:feel|felt|feeling|so |really |very )|\b(?:emotionally|excited|nervous|anxious|worried|scared|stressed|upset|happy|sad)\b|` +
		`\?$|[,;:(\-–—]$|\b(?:and|or|the|a|an|to|of|with)$`)
)

// The sources of decided and changeAsked, which decision joins: kept as
// text so that decision compiles on first use without compiling them (a
// package-level value built from them compiled both at every start).
const (
	decidedExpr = `(?i)\b(?:we(?:'ve| have)? decided|i(?:'ve| have)? decided|we'll go with|we will go with|we(?:'re| are) going with|we went with|let'?s go with|let us go with|let'?s stick with|the decision is|decision:)\b|` +
		`\bin favou?r of\b|` +
		`^(?:(?:yes|yeah|ok|okay|so|and)[,\s]+)*(?:in (?:a|the|our|my) (?:previous|last|earlier) (?:session|conversation|chat),?\s+)(?:we|i)\b`
	changeAskedExpr = `(?i)\b(?:let'?s use|we'll use)\b|` +
		`\b(?:use|using|go with|going with|pick|choose|switch to|move to|migrate to)\b[^.]*\b(?:instead of|rather than)\b|` +
		`\b(?:update|change|convert|migrate|switch|port)\b(?:\s+\S+){0,3}?\s+to (?:use|using)\b|` +
		`\b(?:switch|migrate)(?:\s+\S+){0,3}?\s+(?:to|from)\b|` +
		`^(?:(?:ok|okay|so|now|then)[,\s]+)*(?:let'?s|let us|we'll|we will|we should|i want to|i'd like to)\s+(?:\S+\s+){0,4}?(?:rename|restructure|drop|remove|replace|switch|migrate|split|merge|stick with|keep only)\b|` +
		`^(?:just\s+|please\s+)?(?:remove|drop|get rid of|replace)\b[^.]*\b(?:and (?:just )?(?:have|use|keep)|with a single|in favou?r of)\b`
)

// notNames are capitalized words that open a sentence and are no one.
var notNames = map[string]bool{"I": true, "We": true, "You": true, "He": true, "She": true, "They": true, "It": true, "This": true, "That": true, "The": true, "Our": true, "My": true, "Your": true, "Also": true, "And": true, "So": true, "But": true, "Then": true, "Now": true, "Here": true, "There": true, "Who": true, "What": true}

// isFact reports whether s is a standalone statement that can be true
// beyond the conversation: four words or more, complete, and neither a
// hedge, a feeling nor a question.
func isFact(s string) bool {
	s = strings.TrimSpace(s)
	return len(strings.Fields(s)) >= 4 && !notFact().MatchString(s)
}

// sentences splits text into sentences and lines, for matching each on
// its own. Code blocks are left out: they are not the user's words.
func sentences(text string) []string {
	var out []string
	fence := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence || t == "" {
			continue
		}
		t = strings.TrimLeft(t, "-*> ")
		start := 0
		for i := 0; i < len(t); i++ {
			if (t[i] == '.' || t[i] == '!' || t[i] == '?') && (i+1 == len(t) || t[i+1] == ' ') {
				if s := strings.TrimSpace(t[start : i+1]); s != "" && !strings.HasSuffix(s, "e.g.") && !strings.HasSuffix(s, "i.e.") {
					out = append(out, s)
					start = i + 1
				}
			}
		}
		if s := strings.TrimSpace(t[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// clean trims a quoted sentence for an entry: one line, without the
// trailing ellipses and dots of speech, and at most a paragraph long.
func clean(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimRight(s, ".: ")
	return cut(s, 500)
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return strings.ToUpper(string(r)) + s[n:]
}

// cut shortens s to at most max characters, ending with … when it cut.
func cut(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)[:max-1]
	if i := strings.LastIndexByte(string(r), ' '); i > max/2 {
		return strings.TrimRight(string(r)[:i], " ,;:") + "…"
	}
	return string(r) + "…"
}

// IsRule reports whether sentence s states a standing instruction or a
// preference ("always run the linter first", "I prefer tabs").
func IsRule(s string) bool {
	return rule().MatchString(s) && !notRule().MatchString(s) && len(strings.Fields(s)) >= 3
}

// What the offline librarian reads sentences by, beside Of.
var (
	// Asking opens the sentence of a message that says what the user wants.
	Asking = asking
	// Decision is a choice made, said as one or asked for.
	Decision = decision
	// Decided is a choice said as made; a sentence Decision matches and
	// Decided does not asks for a change.
	Decided = decided
	// Milestone is something reached that the user announces.
	Milestone = milestone
	// Opener is the words a sentence may open with before what it says.
	Opener = opener
	// Knowledge is a statement of how a tool or a system behaves.
	Knowledge = knowledge
	// NotNames are capitalized words that open a sentence and are no one.
	NotNames = notNames
)

// Sentences splits text into sentences and lines; code blocks are left out.
func Sentences(text string) []string { return sentences(text) }

// Clean trims a quoted sentence for an entry.
func Clean(s string) string { return clean(s) }

// Cut shortens s to at most max characters, ending with … when it cut.
func Cut(s string, max int) string { return cut(s, max) }

// Capitalize upper-cases the first letter of s.
func Capitalize(s string) string { return capitalize(s) }

// IsFact reports whether s is a standalone statement true beyond the
// conversation.
func IsFact(s string) bool { return isFact(s) }

// PersonFact returns the person sentence s states a lasting fact about
// and the fact, or "" when s states none.
func PersonFact(s string) (name, fact string) { return personFactIn(s) }
