package librarian

import (
	"strings"

	"github.com/ctx0/ctx0/internal/kind"
	"github.com/ctx0/ctx0/internal/lazy"
	"github.com/ctx0/ctx0/transcript"
)

// A decision is a choice that was made, filed as a statement of it with
// its reason: "Rename /data-capture to /src: we no longer need a separate
// data-capture folder", never the request as typed ("Let's rename…"), a
// line of a spec the user pasted, or a question.

// decisionIn is the decision that sentence s of the user's message i
// (whose words are text) makes, if the conversation shows it taken: said as made ("we
// decided", "in a previous session we removed…"), or asked for and then
// done or agreed to by the assistant. listed are the sentences of the
// message's lists (see listed).
func decisionIn(msgs []transcript.Message, i int, s, text string, listed map[string]bool) (Item, bool) {
	bare := opener().ReplaceAllString(s, "")
	switch {
	case listed[s]:
		// A line of a list the user wrote is a requirement of what
		// they ask for (a spec), not a choice between ways.
		return Item{}, false
	case strings.HasSuffix(s, "?") && !politeRequest().MatchString(bare):
		// "Should we switch to X?" asks; it decides nothing.
		return Item{}, false
	case !kind.Decided().MatchString(bare) && !taken(msgs, i):
		return Item{}, false
	}
	said := s
	if loc := because().FindStringIndex(s); loc != nil && loc[0] > 0 {
		// The reason is told apart ("Drop Redis: Postgres can hold the
		// queue").
		said = s[:loc[0]]
	}
	statement := kind.Statement(said)
	if len(strings.Fields(statement)) < 2 {
		return Item{}, false
	}
	why := reasonOf(s, text)
	return Item{Title: decisionTitle(statement, why), Text: statement, Why: capitalize(why), Evidence: Evidence{i, quote(s)}}, true
}

// politeRequest opens a question that asks for something to be done ("can
// you switch…?"): a request, not a question.
var politeRequest = lazy.Regexp(`(?i)^(?:(?:ok|okay|so|now|and)[,\s]+)*(?:can|could|would|will) you\b|^please\b`)

// listMarker opens a line of a list: a bullet or a number. A -, * or +
// is one when a space follows it, as in markdown ("**bold**", "--flag"
// are none).
var listMarker = lazy.Regexp(`^\s*(?:[-*+]\s+|[•◦▪‣●]\s*|\d{1,2}[.)]\s+)\S`)

// listed are the sentences of the lines of text's lists, when it has a
// list of two lines or more.
func listed(text string) map[string]bool {
	var lines []string
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if !fence && listMarker().MatchString(l) {
			lines = append(lines, l)
		}
	}
	if len(lines) < 2 {
		return nil
	}
	out := map[string]bool{}
	for _, l := range lines {
		for _, s := range sentences(l) {
			out[s] = true
		}
	}
	return out
}

// taken reports whether the assistant did or agreed to what the user
// asked in message i, before the user spoke again: it wrote a file or ran
// a command that the user did not refuse, or its reply opens by agreeing
// or saying it will.
func taken(msgs []transcript.Message, i int) bool {
	for _, m := range msgs[i+1:] {
		if m.Role == transcript.User {
			if userText(m.Text) != "" {
				return false
			}
			continue
		}
		for _, t := range m.Tools {
			if (t.Kind == transcript.Write || t.Kind == transcript.Command) && t.Outcome != transcript.Rejected {
				return true
			}
		}
		if text := strings.TrimSpace(m.Text); text != "" && agrees().MatchString(text) {
			return true
		}
	}
	return false
}

// agrees opens a reply that takes a request on.
var agrees = lazy.Regexp(`(?i)^\W*(?:(?:ok|okay|sure|great|got it|understood|perfect|absolutely|agreed|yes|alright|good (?:idea|call)|sounds good)\b[,.!]*\s*)*(?:i'll|i will|i'm going to|i am going to|let me|let's|i've|i have|we'll|done|agreed|good (?:idea|call)|sounds good|sure|okay|ok)\b`)

// decisionTitle is a decision's title: the statement, and the reason when
// the conversation gives one short enough to read beside it.
func decisionTitle(statement, why string) string {
	r := reasonClause(why)
	if r == "" || len([]rune(statement))+2+len([]rune(r)) > 100 {
		return statement
	}
	return statement + ": " + r
}

var (
	// reasonFirst is a reason said before what follows from it ("Since
	// we have one app, we need no separate folder"): what follows is the
	// point.
	reasonFirst = lazy.Regexp(`(?i)^(?:since|because|as|given that|now that)\s+[^,]+,\s+(.+)$`)
	// reasonSo is a reason said before "so" ("we use Node 24, so we need
	// no transpiler"): the reason is what comes before.
	reasonSo = lazy.Regexp(`(?i)^(.+?),?\s+so\s+(?:we|i|you|it|there|that)\b`)
	// reasonWord opens a reason.
	reasonWord = lazy.Regexp(`(?i)^(?:because|since|as|given that|now that)\s+`)
	// aside is a parenthesis.
	aside = lazy.Regexp(`\s*\([^()]*\)`)
)

// reasonClause is the point of a reason, short enough for a title, or "".
func reasonClause(why string) string {
	r := clean(aside().ReplaceAllString(why, ""))
	if m := reasonFirst().FindStringSubmatch(r); m != nil {
		r = m[1]
	} else if m := reasonSo().FindStringSubmatch(r); m != nil {
		r = m[1]
	}
	r = strings.TrimRight(clean(reasonWord().ReplaceAllString(r, "")), ".,;!? ")
	if len(strings.Fields(r)) < 3 || len([]rune(r)) > 70 {
		return ""
	}
	return r
}

// offeredPick is the decision a short answer makes by naming some of the
// ideas the assistant listed and asked about ("Here are a few ideas: …
// **Visual progress bar:** … Do any of these sound interesting?" → "Add a
// visual progress bar and long breaks"): the answer as a statement, with
// what it was chosen among. ok is false when said lists no ideas, asks
// nothing, or the answer names none.
func offeredPick(said, answer string) (Item, bool) {
	ss := sentences(answer)
	if len(ss) != 1 || len(strings.Fields(answer)) > 20 || strings.HasSuffix(ss[0], "?") || !strings.Contains(said, "?") {
		return Item{}, false
	}
	var labels []string
	for _, l := range strings.Split(said, "\n") {
		if !listMarker().MatchString(l) {
			continue
		}
		if m := ideaLabel().FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			labels = append(labels, strings.TrimSpace(m[1]+m[2]))
		}
	}
	if len(labels) < 2 {
		return Item{}, false
	}
	lower := strings.ToLower(answer)
	named := 0
	for _, label := range labels {
		if strings.Contains(lower, strings.ToLower(label)) {
			named++
		}
	}
	if named == 0 {
		return Item{}, false
	}
	statement := kind.Statement(ss[0])
	return Item{Title: statement, Text: statement, Why: "Chosen among the ideas offered: " + strings.Join(labels, "; ")}, true
}

// ideaLabel is the label of a listed idea: bold ("**Long breaks:** …") or
// before a colon ("Long breaks: …").
var ideaLabel = lazy.Regexp(`^(?:[-*+]\s+|[•◦▪‣●]\s*|\d{1,2}[.)]\s+)(?:\*\*([^*:]{3,60}?):?\*\*|([^:*]{3,40}):\s)`)
