package librarian

import (
	"fmt"
	"strings"

	"github.com/ctx0/ctx0/internal/kind"
	"github.com/ctx0/ctx0/internal/lazy"
	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/transcript"
)

// Offline extracts what a conversation says explicitly, without a model:
// requests to remember, preferences and standing rules, decisions, people the user introduces ("Sarah Chen is our
// investor", "my manager is Priya"), milestones the user announces ("we
// shipped v2"), error→fix pairs, the files written and commands run, and
// an extractive episode summary (the first request, what was done and
// corrected, the outcome). It is deterministic, and it only ever quotes: nothing in the
// transcript is followed, whatever it says. Insights, patterns across
// conversations, take a model. Lasting facts the user states about
// someone they name ("my sister Ana relocated to Berlin", "Ravi is
// allergic to peanuts") are facts linked to that person.
func Offline(conv sessions.Conversation, msgs []transcript.Message) Extraction {
	x := Extraction{
		Episode: summarize(msgs), Facts: []Item{}, Preferences: []Item{}, Decisions: []Item{},
		People: []Person{}, Projects: []Project{}, Milestones: []Item{}, Insights: []Item{},
		Questions: []Item{}, Resolutions: []Resolution{}, Corrections: []Item{},
	}
	seen := map[string]bool{}
	add := func(list *[]Item, it Item) {
		k := strings.ToLower(it.Text)
		if seen[k] {
			return
		}
		seen[k] = true
		*list = append(*list, it)
	}
	var corrections []string
	prevAssistant := -1 // the last assistant message before this one
	lastSaid := -1      // the last assistant message with words
	interrupted := false
	for i, m := range msgs {
		if m.Role == transcript.Assistant {
			prevAssistant = i
			if strings.TrimSpace(m.Text) != "" {
				lastSaid = i
			}
			continue
		}
		text := userText(m.Text)
		if lastSaid >= 0 {
			// A short answer to options the assistant set out ("yes"
			// to its recommendation, "B") is a choice.
			if d, ok := chosenOption(msgs[lastSaid].Text, text); ok {
				d.Evidence = Evidence{i, quote(text)}
				add(&x.Decisions, d)
				continue
			}
			if d, ok := offeredPick(msgs[lastSaid].Text, text); ok {
				d.Evidence = Evidence{i, quote(text)}
				add(&x.Decisions, d)
				continue
			}
		}
		if text == "" {
			interrupted = interrupted || strings.HasPrefix(strings.TrimSpace(m.Text), "[Request interrupted")
			continue
		}
		for _, mem := range memoryInput().FindAllStringSubmatch(text, -1) {
			// Claude Code's "#" shortcut: the user typed it to be remembered.
			s := clean(mem[1])
			if s != "" {
				it := Item{Text: s, Evidence: Evidence{i, quote(s)}}
				if isRule(s) {
					add(&x.Preferences, it)
				} else if isFact(s) {
					add(&x.Facts, it)
				}
			}
		}
		text = memoryInput().ReplaceAllString(text, "")
		inLists := listed(text)
		corrected := false
		for _, s := range sentences(text) {
			switch {
			case remember().MatchString(s):
				what := clean(remember().ReplaceAllString(s, ""))
				if what == "" {
					continue
				}
				it := Item{Text: capitalize(what), Evidence: Evidence{i, quote(s)}}
				if isRule(what) {
					add(&x.Preferences, it)
				} else if isFact(what) {
					add(&x.Facts, it)
				}
			case kind.IsRule(s):
				add(&x.Preferences, Item{Text: clean(s), Evidence: Evidence{i, quote(s)}})
			case decision().MatchString(opener().ReplaceAllString(s, "")):
				if d, ok := decisionIn(msgs, i, s, text, inLists); ok {
					add(&x.Decisions, d)
				}
			case knowledge().MatchString(opener().ReplaceAllString(s, "")) && isFact(clean(opener().ReplaceAllString(s, ""))):
				add(&x.Facts, Item{Text: capitalize(clean(opener().ReplaceAllString(s, ""))), Evidence: Evidence{i, quote(s)}})
			case milestone().MatchString(opener().ReplaceAllString(s, "")):
				add(&x.Milestones, Item{Text: capitalize(clean(opener().ReplaceAllString(s, ""))), Evidence: Evidence{i, quote(s)}})
			case !corrected && (interrupted || prevAssistant >= 0) && correction().MatchString(s) && len(strings.Fields(s)) >= 3:
				// A correction is the user's answer to what the assistant
				// just did: the message's opening sentence, or any after
				// an interruption. Unless it says so in the words of a
				// standing rule (caught above), it corrects one step
				// ("we already have a repo, so you don't need to git
				// init"): part of the episode, not a lasting preference.
				corrections = append(corrections, clean(s))
				corrected = true
			}
			said := remember().ReplaceAllString(s, "") // "remember that Diego is…"
			name, fact := personFactIn(said)
			if fact != "" {
				// A lasting fact about someone is an entry of its own,
				// linked to the person's, so that a later change
				// supersedes it; the person's notes keep what was said.
				// One of a kind that changes (where they live) is
				// titled by what it answers and replaces the last
				// entry so titled.
				it := Item{Text: fact, Evidence: Evidence{i, quote(s)}}
				if title, replaces := factTitle(name, fact); replaces {
					it.Title, it.Replaces = title, title
				} else {
					it.Title = title
				}
				add(&x.Facts, it)
			} else {
				name = kind.PersonIn(said)
			}
			if name != "" && !seen["person:"+name] {
				seen["person:"+name] = true
				x.People = append(x.People, Person{Name: name, Note: capitalize(clean(said)), Evidence: Evidence{i, quote(s)}})
			}
		}
		interrupted = false
	}
	if len(corrections) > 0 {
		x.Episode.Done = joinNonEmpty("; ", x.Episode.Done, "corrected: "+strings.Join(corrections, "; "))
	}
	if len(x.Decisions) > 0 {
		var ds []string
		for _, d := range x.Decisions {
			ds = append(ds, cut(d.Text, 160))
		}
		x.Episode.Done = joinNonEmpty("; ", x.Episode.Done, "decided: "+strings.Join(ds, "; "))
	}
	x.Resolutions = append(x.Resolutions, resolutions(msgs)...)
	if q := openQuestion(msgs); q != nil {
		x.Questions = append(x.Questions, *q)
		x.Episode.Outcome = joinNonEmpty(" ", x.Episode.Outcome, "Left open: "+q.Text)
	}
	// What the episode says is held to the extraction's limits, as a
	// model's reply is (schema.json).
	x.Episode.Title = cut(x.Episode.Title, 120)
	x.Episode.Done = cut(x.Episode.Done, 2000)
	x.Episode.Outcome = cut(x.Episode.Outcome, 2000)
	if conv.Project != "" && x.Episode.Title != "" {
		x.Projects = []Project{{Name: projectName(conv.Project), Activity: x.Episode.Title, Evidence: Evidence{firstRequest(msgs), quote(x.Episode.Request)}}}
	}
	return x
}

var (
	// memoryInput is Claude Code's record of a line the user typed after
	// "#": a note to keep in memory.
	memoryInput = lazy.Regexp(`(?s)<user-memory-input>(.*?)</user-memory-input>`)
	// remember is an explicit request to remember; what follows is kept.
	remember = lazy.Regexp(`(?i)^(?:(?:please|pls|and|also|so|ok|okay)[,\s]+)*(?:(?:can|could|would) you\s+)?(?:remember|note|keep in mind|don't forget|do not forget|make a note)(?:\s+(?:this|that|for (?:the )?future))?[:,]?\s+(?:that\s+)?`)
	// correction opens a user's answer that says the assistant got it wrong.
	correction = lazy.Regexp(`(?i)^(?:no[,.!]|no\s+(?:need|don't|do not|that|it|we|you)|nope|actually[, ]|that's (?:not|wrong)|that is (?:not|wrong)|this is wrong|wrong[,.!]|not like that|stop\b|don't\b|do not\b|we already|you don't need|you do not need|instead\b|i said|i meant|you forgot|you missed)`)
	// because introduces the reason for a decision.
	// "As" gives one only after a comma: "use X as the default" gives
	// none.
	because = lazy.Regexp(`(?i)(?:\b(?:because|since|so that|given that)|,\s+as)\s+(.+)`)
	// isRuleWords marks remembered text that says how to do things rather
	// than what is so.
	isRuleWords = lazy.Regexp(`(?i)\b(?:always|never|prefer|don't|do not|should|must|use|avoid|from now on|please)\b`)
)

// isRule reports whether a remembered text is a preference (how to do
// things) rather than a fact.
func isRule(s string) bool { return isRuleWords().MatchString(s) }

var (
	// optionLine is one option the assistant offers: a table row
	// ("| B | Keep … |"), or a line that opens with its letter or number
	// ("Option B - …", "B) …", "2. …").
	optionLine = lazy.Regexp(`^(?:\|\s*([A-Z]|\d{1,2})\s*\|\s*(.+?)\s*\|?$|(?:[-*]\s+)?(?:\*\*)?(?:option\s+)?([A-Z]|\d{1,2})(?:\*\*)?\s*(?:[).:]|\s-|\s—)\s*(?:\*\*)?\s*(.+))$`)
	// recommended names the option the assistant recommends.
	recommended = lazy.Regexp(`(?i)\brecommended:?\**:?\s*(?:option\s+)?([A-Z]|\d{1,2})\b`)
	// accepts is an answer that takes the recommendation.
	accepts = lazy.Regexp(`(?i)^(?:yes|y|yep|yeah|ok|okay|sure|agreed|recommended|sounds good|go with (?:the|your) recommendation|use the recommendation)[.!]?$`)
	// picks is an answer that names one option.
	picks = lazy.Regexp(`(?i)^(?:option\s+|(?:let'?s\s+)?go with\s+(?:option\s+)?)?([A-Z]|\d{1,2})[.!]?$`)
)

// chosenOption is the decision a short answer makes to options the
// assistant set out in said: the option picked by its letter, or the
// recommended one when the answer accepts it. ok is false when said sets
// out no options or the answer names none of them.
func chosenOption(said, answer string) (Item, bool) {
	answer = strings.TrimSpace(answer)
	var key string
	if m := picks().FindStringSubmatch(answer); m != nil {
		key = strings.ToUpper(m[1])
	} else if accepts().MatchString(answer) {
		m := recommended().FindStringSubmatch(said)
		if m == nil {
			return Item{}, false
		}
		key = strings.ToUpper(m[1])
	} else {
		return Item{}, false
	}
	options := map[string]string{}
	for _, line := range strings.Split(said, "\n") {
		line = strings.TrimSpace(line)
		if recommended().MatchString(line) {
			continue
		}
		if m := optionLine().FindStringSubmatch(line); m != nil {
			k, v := m[1]+m[3], m[2]+m[4]
			if _, dup := options[k]; !dup && strings.Trim(v, "-| ") != "" {
				options[strings.ToUpper(k)] = v
			}
		}
	}
	text, ok := options[key]
	if !ok || len(options) < 2 {
		return Item{}, false
	}
	return Item{Text: capitalize(clean(strings.Trim(text, "*| "))), Why: clean(questionBefore(said, text))}, true
}

// questionBefore is the question the assistant asked before it set out
// the option text: the last line ending in "?" above it.
func questionBefore(said, option string) string {
	head, _, _ := strings.Cut(said, option)
	lines := strings.Split(head, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasSuffix(l, "?") && !strings.HasPrefix(l, "|") {
			return "Chosen in answer to: " + l
		}
	}
	return ""
}

// userText is what the user typed, or "" for lines the agent's harness
// wrote in the user's place: slash commands, interruptions, command output.
func userText(s string) string {
	s = strings.TrimSpace(s)
	switch {
	case s == "", s == "(no content)",
		strings.HasPrefix(s, "[Request interrupted"),
		strings.HasPrefix(s, "<command-"), strings.HasPrefix(s, "<local-command"),
		strings.HasPrefix(s, "Caveat:"),
		strings.HasPrefix(s, "/") && !strings.ContainsAny(strings.TrimSpace(s), " \n"):
		return ""
	}
	return s
}

// reasonOf is the reason given for a decision: the rest of the sentence
// after "because" (or "since", "as"), else a sentence of the message that
// gives one ("…, so we don't need to transpile").
func reasonOf(s, text string) string {
	if m := because().FindStringSubmatch(s); m != nil {
		return clean(m[1])
	}
	for _, o := range sentences(text) {
		if o == s {
			continue
		}
		if because().MatchString(o) || reasonSo().MatchString(o) {
			return clean(o)
		}
	}
	return ""
}

// quote is an evidence quote: the start of what was said, on one line.
func quote(s string) string { return cut(strings.Join(strings.Fields(s), " "), 300) }

// firstRequest is the index of the user's first real message, or 0.
func firstRequest(msgs []transcript.Message) int {
	for i, m := range msgs {
		if m.Role == transcript.User && userText(memoryInput().ReplaceAllString(m.Text, "")) != "" {
			return i
		}
	}
	return 0
}

// maxListed is the most files, and the most commands, an episode lists
// (the extraction's limit).
const maxListed = 50

// invocation opens a message that runs a command or a skill ("/review",
// "$speckit-clarify"): its name is no request, only what follows it is.
var invocation = lazy.Regexp(`^[/$]([A-Za-z][\w.:-]*)\s*`)

// summarize is the extractive episode: what was asked (the first request),
// what was done (the files written, the commands run, the requests that
// followed), and the assistant's last words of substance as the outcome,
// with the question it ended on as what is left. Offline adds what was
// decided and corrected.
func summarize(msgs []transcript.Message) Episode {
	var ep Episode
	first := firstRequest(msgs)
	var ran string // the command or skill the conversation opened with
	if first < len(msgs) && msgs[first].Role == transcript.User {
		req := userText(memoryInput().ReplaceAllString(msgs[first].Text, ""))
		if m := invocation().FindStringSubmatch(req); m != nil {
			ran, req = m[1], req[len(m[0]):]
			if len(strings.Fields(req)) < 3 {
				req = ""
			}
		}
		ep.Request = cut(strings.Join(strings.Fields(req), " "), 500)
		if ss := sentences(req); len(ss) > 0 {
			title := ss[0]
			for _, s := range ss {
				if asking().MatchString(s) {
					title = s
					break
				}
			}
			ep.Title = capitalize(cut(strings.TrimRight(title, ".!?: "), 100))
		}
	}
	var later []string
	written, commands := map[string]bool{}, map[string]bool{}
	said := "" // the assistant's last words before this message
	for i, m := range msgs {
		if m.Role == transcript.Assistant && strings.TrimSpace(m.Text) != "" {
			said = m.Text
		}
		if m.Role == transcript.User && i > first {
			if t := userText(memoryInput().ReplaceAllString(m.Text, "")); t != "" {
				// Short answers ("yes", "B", the ideas picked from a
				// list) and corrections are told as what was decided
				// and corrected, not as requests. A request sent again
				// is the same request; a decision is told as one.
				_, picked := offeredPick(said, t)
				if s := content(sentences(t)); s != "" && len(later) < 5 && len(strings.Fields(t)) >= 3 && !correction().MatchString(s) && !picked &&
					!decision().MatchString(opener().ReplaceAllString(s, "")) && !strings.HasPrefix(ep.Request, s) {
					later = append(later, cut(strings.TrimRight(s, ".!? "), 160))
				}
			}
		}
		for _, t := range m.Tools {
			if t.Outcome == transcript.Rejected || t.Target == "" {
				// The user refused it: it was not run.
				continue
			}
			switch t.Kind {
			case transcript.Write:
				if !written[t.Target] && len(ep.Files) < maxListed {
					ep.Files = append(ep.Files, cut(t.Target, 300))
				}
				written[t.Target] = true
			case transcript.Command:
				if !commands[t.Target] && len(ep.Commands) < maxListed {
					ep.Commands = append(ep.Commands, cut(t.Target, 300))
				}
				commands[t.Target] = true
			}
		}
	}
	var done []string
	if len(written) > 0 {
		done = append(done, "wrote "+words.Plural(len(written), "file", "files"))
	}
	if len(commands) > 0 {
		done = append(done, "ran "+words.Plural(len(commands), "command", "commands"))
	}
	if len(later) > 0 {
		done = append(done, "then: "+strings.Join(later, "; "))
	}
	ep.Done = capitalize(strings.Join(done, "; "))
	ep.Outcome = outcome(msgs)
	if ep.Title == "" && ran != "" {
		ep.Title = "Ran " + ran
		if len(ep.Files) > 0 {
			ep.Title += " on " + projectName(ep.Files[0])
		}
	}
	if ep.Title == "" {
		ep.Title = "Conversation"
	}
	return ep
}

// outcome is the assistant's last words of substance: a paragraph of
// more than three words that is neither a heading nor a lead-in to what
// follows ("Question 3 of up to 5:"), nor a question. The question the
// assistant ended on, if the user did not answer it, is what is left open;
// what follows it in the message (options, a recommendation) is not done.
func outcome(msgs []transcript.Message) string {
	lastUser := -1
	for i, m := range msgs {
		if m.Role == transcript.User && userText(m.Text) != "" {
			lastUser = i
		}
	}
	var out, left string
	for i := len(msgs) - 1; i >= 0 && out == ""; i-- {
		m := msgs[i]
		if m.Role != transcript.Assistant || strings.TrimSpace(m.Text) == "" {
			continue
		}
		for _, para := range strings.Split(strings.TrimSpace(m.Text), "\n\n") {
			para = strings.Join(strings.Fields(withoutHeading(para)), " ")
			if strings.HasSuffix(para, "?") {
				ss := sentences(para)
				if q := ss[len(ss)-1]; i > lastUser && left == "" && !pleasantry().MatchString(q) {
					left = q
				}
				para = strings.Join(ss[:len(ss)-1], " ")
			}
			if out == "" && len(strings.Fields(para)) > 3 && !strings.HasSuffix(para, ":") && !strings.HasPrefix(para, "|") {
				out = cut(para, 500)
			}
			if left != "" && i > lastUser {
				break
			}
		}
	}
	if left != "" {
		return joinNonEmpty(" ", out, "Left open: "+left)
	}
	return out
}

// pleasantry is a closing offer to help more, which leaves nothing open.
// content is the first of ss that says something: not a greeting or a
// thank-you alone ("Thanks!" of "Thanks! I get my ideas from books"); the
// first if all are.
func content(ss []string) string {
	for _, s := range ss {
		if !greeting().MatchString(s) {
			return s
		}
	}
	if len(ss) > 0 {
		return ss[0]
	}
	return ""
}

// greeting matches a sentence that is only a greeting, thanks or an
// acknowledgement.
var greeting = lazy.Regexp(`(?i)^\W*(?:(?:thanks|thank you|thx|hi|hello|hey|great|cool|nice|awesome|perfect|ok(?:ay)?|sure|yes|yeah|yep|no|nope|wow|oh|ah|good (?:morning|afternoon|evening)|sounds good|got it|that's great|haha|lol)\b[\s,]*)+(?:so much|a lot|again|you|there)?\W*$`)

var pleasantry = lazy.Regexp(`(?i)^(?:anything else|is there anything|(?:so,? )?what (?:else )?(?:would|do) you (?:like|want)|how (?:else )?can i help|what can i (?:help|do)|what's next)\b`)

// withoutHeading is a paragraph without a first line that only heads it
// ("## Summary", "**Spec Updates**").
func withoutHeading(para string) string {
	first, rest, _ := strings.Cut(strings.TrimSpace(para), "\n")
	if f := strings.TrimSpace(first); strings.HasPrefix(f, "#") || (strings.HasPrefix(f, "**") && strings.HasSuffix(f, "**")) {
		return rest
	}
	return para
}

// joinNonEmpty joins the parts that are not empty with sep.
func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

var (
	// failed is an assistant's report of a failure after a tool use.
	failed = lazy.Regexp(`(?i)\b(?:error|errors|failed|fails|failing|failure|exception|traceback|panic|not found|no such file|permission denied|cannot|can't|couldn't|could not|doesn't work|isn't working|broke|broken|an issue|still an issue|a problem|in use)\b`)
	// worked is an assistant's report that a tool use went well.
	worked = lazy.Regexp(`(?i)\b(?:pass|passes|passed|passing|works|working|succeeded|successful|successfully|fixed|resolved|all good|builds|is running)\b`)
	// diagnosis is an assistant sentence that says what was wrong or what
	// it changes to fix it.
	diagnosis = lazy.Regexp(`(?i)\b(?:fix|the issue is|the problem is|need to|because|the cause|is being called incorrectly|instead)\b`)
	// intent is an assistant sentence that says what it is about to do
	// ("Let me fix this.", "Let me kill it and test."): no finding, and
	// nothing to know next time.
	intent = lazy.Regexp(`(?i)^(?:(?:now|ok|okay|great|first|next|then|so)[,!]?\s+)*(?:let me|let's|i'll|i will|i'm going to|i am going to)\b`)
)

// resolutions finds error→fix pairs: a tool use that failed, and a later use
// of the same command or on the same file that went through. Where the
// transcript kept its tools' outcomes (Claude Code and Codex files: their
// tools have ids), those say what failed; where it did not (a session log,
// or a state ingested before outcomes were kept), what the assistant said
// after each use is the signal.
func resolutions(msgs []transcript.Message) []Resolution {
	for _, m := range msgs {
		for _, t := range m.Tools {
			if t.ID != "" {
				return markedResolutions(msgs)
			}
		}
	}
	return saidResolutions(msgs)
}

// markedResolutions pairs the failed uses of an attempt with the next use
// of it that went through (see settled). A retry in the same message as a
// failure is not a fix of it, and neither is one that nothing explains: a
// pair is kept when the assistant said what it found or changed in
// between, wrote a file in between, or changed the command itself, so
// that the same call retried from another folder or after reading a file
// first does not pass for a lesson.
func markedResolutions(msgs []transcript.Message) []Resolution {
	type failure struct {
		msg  int
		tool transcript.Tool
	}
	var out []Resolution
	failing := map[string][]failure{}
	for i, m := range msgs {
		for _, t := range m.Tools {
			key, ok := attemptKey(t)
			if !ok || t.ID == "" {
				continue
			}
			outcome, known := settled(t, msgs[i+1:])
			fs := failing[key]
			switch {
			case !known:
			case outcome == transcript.Failed:
				failing[key] = append(fs, failure{i, t})
			case len(fs) > 0 && i > fs[0].msg:
				delete(failing, key)
				last := fs[len(fs)-1]
				r := Resolution{Error: attemptWhat(last.tool) + " failed", Evidence: Evidence{last.msg, quote(attemptWhat(last.tool))}}
				if k, report := failureReport(msgs, fs[0].msg, i); k >= 0 {
					// The failed use the report is about: the last before it.
					last = fs[0]
					for _, f := range fs {
						if f.msg < k {
							last = f
						}
					}
					r.Error = fmt.Sprintf("%s (%s)", clean(report), attemptWhat(last.tool))
					r.Evidence = Evidence{k, quote(report)}
				}
				d := diagnoses(msgs[fs[0].msg+1 : i])
				changed := written(msgs[fs[0].msg+1 : i])
				r.Fix = fixText(d, markedThen(msgs[i+1:], t, changed))
				if len(d) > 0 || len(changed) > 0 || commandChanged(fs[len(fs)-1].tool, t) {
					out = append(out, r)
				}
			}
		}
	}
	return out
}

// failureReport is the assistant's first report of a failure after
// message j, up to message i, before the user speaks again, and its index;
// k is -1 if it gave none.
func failureReport(msgs []transcript.Message, j, i int) (k int, report string) {
	for k := j + 1; k <= i; k++ {
		if msgs[k].Role == transcript.User && userText(msgs[k].Text) != "" {
			break
		}
		if first := firstSentence(msgs[k].Text); msgs[k].Role == transcript.Assistant && failed().MatchString(first) && !worked().MatchString(first) {
			return k, first
		}
	}
	return -1, ""
}

// written are the files written in msgs, relative to the session's folder,
// at most five.
func written(msgs []transcript.Message) []string {
	var files []string
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, t := range m.Tools {
			if t.Kind == transcript.Write && t.Outcome == "" && t.Target != "" && !seen[t.Target] && len(files) < 5 {
				seen[t.Target] = true
				files = append(files, strings.TrimPrefix(t.Target, strings.TrimSuffix(m.CWD, "/")+"/"))
			}
		}
	}
	return files
}

// markedThen ends a fix: the files changed, the use that went through,
// and the assistant's next words if they say it works.
func markedThen(after []transcript.Message, t transcript.Tool, changed []string) string {
	then := "Then " + attemptWhat(t) + " went through"
	for _, m := range after {
		if m.Role != transcript.Assistant || strings.TrimSpace(m.Text) == "" {
			continue
		}
		if first := firstSentence(m.Text); worked().MatchString(first) {
			then += ": " + clean(first)
		}
		break
	}
	if len(changed) > 0 {
		then = "Changed `" + strings.Join(changed, "`, `") + "`. " + then
	}
	return then + "."
}

// commandChanged reports whether a command that went through differs from
// the one that failed by more than its setup: the folder it was run from,
// a folder made or a process stopped before it. Those are steps of the
// moment (the folder did not exist yet, a stray server held the port),
// nothing to know next time.
func commandChanged(before, after transcript.Tool) bool {
	return before.Kind == transcript.Command && withoutSetup(before.Target) != withoutSetup(after.Target)
}

// withoutSetup is a command line without the transient steps chained
// before it ("cd dir &&", "mkdir -p dir;", "kill 42 &&").
func withoutSetup(cmd string) string {
	for {
		cmd = strings.TrimSpace(cmd)
		if !setupStep().MatchString(cmd) {
			return cmd
		}
		i := strings.IndexAny(cmd, "&;")
		if i < 0 {
			return cmd
		}
		cmd = strings.TrimLeft(cmd[i:], "&;")
	}
}

// setupStep opens a command that only prepares the next one in its chain.
var setupStep = lazy.Regexp(`^(?:cd|mkdir|pwd|ls|kill|pkill|killall|sleep|clear)\b`)

// settled is how a tool use ended: its outcome, or, where that leaves it
// open, what the assistant's next words report before the user speaks
// again. Open are a call stopped at its time limit (a server left running,
// or a hang) and a pipeline that went through (its status is its last
// command's: "npm start 2>&1 | head" succeeds when npm start fails). A
// call the user rejected neither failed nor went through. known is false
// when nothing tells.
func settled(t transcript.Tool, after []transcript.Message) (o transcript.Outcome, known bool) {
	switch {
	case t.Outcome == transcript.Rejected:
		return "", false
	case t.Outcome == transcript.Failed, t.Outcome == "" && !strings.Contains(t.Target, "|"):
		return t.Outcome, true
	}
	for _, m := range after {
		if m.Role == transcript.User && userText(m.Text) != "" {
			break
		}
		if m.Role != transcript.Assistant || strings.TrimSpace(m.Text) == "" {
			continue
		}
		switch first := firstSentence(m.Text); {
		case failed().MatchString(first) && !worked().MatchString(first):
			return transcript.Failed, true
		case worked().MatchString(first):
			return "", true
		}
		break
	}
	return "", false
}

// saidResolutions finds error→fix pairs from what the assistant says: a
// tool use it then reports as failing, and a later use of the same attempt
// that it reports as working.
func saidResolutions(msgs []transcript.Message) []Resolution {
	type attempt struct{ key, what string }
	var out []Resolution
	failing := map[string]int{} // key → index of the message reporting the failure
	var last []attempt          // the tool uses the next assistant text reports on
	for i, m := range msgs {
		if m.Role != transcript.Assistant {
			continue
		}
		if text := strings.TrimSpace(m.Text); text != "" && len(last) > 0 {
			first := firstSentence(text)
			for _, a := range last {
				j, wasFailing := failing[a.key]
				switch {
				case failed().MatchString(first) && !worked().MatchString(first):
					if !wasFailing {
						failing[a.key] = i
					}
				case wasFailing && worked().MatchString(first):
					delete(failing, a.key)
					out = append(out, Resolution{
						Error:    fmt.Sprintf("%s (%s)", clean(firstSentence(msgs[j].Text)), a.what),
						Fix:      fixText(diagnoses(msgs[j+1:i]), fmt.Sprintf("Then %s: %s", a.what, clean(first))),
						Evidence: Evidence{j, quote(firstSentence(msgs[j].Text))},
					})
				}
			}
			last = nil
		}
		for _, t := range m.Tools {
			if key, ok := attemptKey(t); ok {
				last = append(last, attempt{key: key, what: attemptWhat(t)})
			}
		}
	}
	return out
}

// diagnoses are what the assistant said it found or changed in the
// messages between a failure and the use that went through: up to three
// sentences.
func diagnoses(between []transcript.Message) []string {
	var out []string
	for _, m := range between {
		if m.Role != transcript.Assistant {
			continue
		}
		for _, s := range sentences(m.Text) {
			if diagnosis().MatchString(s) && !intent().MatchString(s) && len(out) < 3 {
				out = append(out, clean(s)+".")
			}
		}
	}
	return out
}

// fixText is a fix: the diagnoses d, then the use that went through.
func fixText(d []string, then string) string {
	return cut(strings.Join(append(d, then), " "), 1000)
}

// attemptKey is what makes two tool uses the same attempt: a command's
// key, or the file a write is on. Only commands and writes count: their
// failures are the ones fixed.
func attemptKey(t transcript.Tool) (string, bool) {
	target := t.Target
	switch t.Kind {
	case transcript.Command:
		target = commandKey(target)
	case transcript.Write:
	default:
		return "", false
	}
	return string(t.Kind) + "\x00" + target, target != ""
}

// attemptWhat names a tool use in an error or a fix.
func attemptWhat(t transcript.Tool) string {
	return fmt.Sprintf("%s `%s`", t.Name, cut(t.Target, 120))
}

// commandKey is what makes two runs of a command the same attempt: the
// last command of a chain ("cd .. && npm start" is npm start), without
// the variables set for it ("PYTHONPATH=. pytest" is pytest), its
// redirections, pipes or "&".
func commandKey(target string) string {
	if i := strings.LastIndex(target, "&&"); i >= 0 {
		target = target[i+2:]
	}
	if i := strings.LastIndexByte(target, ';'); i >= 0 {
		target = target[i+1:]
	}
	if i := strings.IndexByte(target, '|'); i >= 0 {
		target = target[:i]
	}
	target = strings.ReplaceAll(target, "2>&1", "")
	words := strings.Fields(strings.TrimRight(strings.TrimSpace(target), "&"))
	for len(words) > 1 && envAssignment().MatchString(words[0]) {
		words = words[1:]
	}
	return strings.Join(words, " ")
}

// envAssignment is a word that sets a variable for the command after it.
var envAssignment = lazy.Regexp(`^[A-Za-z_][A-Za-z0-9_]*=`)

// firstSentence is the opening of what the assistant said: its first
// sentence, and the second when the first is a mere exclamation
// ("Great! The tests pass.").
func firstSentence(s string) string {
	ss := sentences(s)
	switch {
	case len(ss) == 0:
		return ""
	case len(ss) > 1 && len(strings.Fields(ss[0])) <= 2:
		return ss[0] + " " + ss[1]
	}
	return ss[0]
}

// openQuestion is the user's last question that nothing the assistant
// said afterwards answers: a question in what the user wrote after the
// assistant's last words of substance. The assistant's own questions
// ("What would you like to work on today?", "Want me to…?") are never
// the user's open questions: they belong to the episode, as what is left.
// A request phrased as a question ("Can you add…?") is no question.
func openQuestion(msgs []transcript.Message) *Item {
	var q *Item
	for i := len(msgs) - 1; i >= 0 && q == nil; i-- {
		m := msgs[i]
		if m.Role == transcript.Assistant {
			if len(strings.Fields(m.Text)) > 3 {
				break
			}
			continue
		}
		text := userText(memoryInput().ReplaceAllString(m.Text, ""))
		ss := sentences(text)
		for j := len(ss) - 1; j >= 0; j-- {
			if s := ss[j]; strings.HasSuffix(s, "?") && !asking().MatchString(s) && len(strings.Fields(s)) >= 3 {
				q = &Item{Text: clean(s), Evidence: Evidence{i, quote(s)}}
				break
			}
		}
	}
	return q
}

// projectName is a project's short name: the last part of its path or
// repository, "billing" of "github.com/acme/billing".
func projectName(project string) string {
	project = strings.TrimRight(strings.ReplaceAll(project, "\\", "/"), "/")
	if i := strings.LastIndexByte(project, '/'); i >= 0 {
		return project[i+1:]
	}
	return project
}
