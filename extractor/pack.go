package extractor

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/transcript"
)

// Near-duplicates and diversity.
const (
	// mmrLambda weighs relevance against novelty when ordering a
	// bundle's items (maximal marginal relevance): each next item is the
	// one with the best 0.7 × score − 0.3 × its similarity to the items
	// already in, so the second item says something the first did not.
	mmrLambda = 0.7
	// nearDuplicate is the similarity (the share of words two passages
	// have in common, Jaccard over their stems) from which they say the
	// same thing: only the better one is kept.
	nearDuplicate = 0.6
	// contained is the share of a passage's words that a better passage
	// holds from which it adds nothing: a quote of a session in an
	// episode, or the session's words a filed entry repeats.
	contained = 0.8
	// minClip is the least passage, in tokens, worth clipping an item to
	// when the whole of it does not fit.
	minClip = 16
	// maxOmitted bounds the list of candidates left out.
	maxOmitted = 10
)

// Confidence levels.
const (
	highConfidence   = 0.75
	mediumConfidence = 0.4
)

// pack orders the ranked candidates for diversity and fills the budget
// with them, clipping the last passage that fits only in part.
func (r *retrieval) pack() Bundle {
	b := Bundle{Query: r.req.Query, Items: []Item{}, Sources: []string{}, Plan: r.plan, Budget: r.req.Budget, Suggest: r.suggest}
	ordered, omitted := diversify(r.order)
	r.folded = nil
	for _, o := range omitted {
		if strings.HasPrefix(o.Reason, "the same conversation as conversation:") && !strings.HasPrefix(o.Name, "conversation:") {
			r.folded = append(r.folded, o.Name)
		}
	}
	top := 0.0
	for _, c := range ordered {
		top = max(top, c.score)
	}
	quoted := map[string]bool{} // the lines of past sessions quoted so far, as said
	for _, c := range ordered {
		it := r.item(c, top)
		if it.Kind == "session" {
			var fresh bool
			if it.Passage, fresh = unrepeated(it.Passage, quoted); !fresh {
				omitted = append(omitted, Omitted{Name: c.name, Reason: "every line of it quoted before"})
				continue
			}
		}
		b.Items = append(b.Items, it)
		r.settle(&b)
		if Tokens(b.Text()) > b.Budget && !r.clipLast(&b) {
			b.Items = b.Items[:len(b.Items)-1]
			omitted = append(omitted, Omitted{Name: c.name, Reason: "over the budget"})
			r.overBudget++
			continue
		}
		if it.Kind == "session" {
			for _, l := range strings.Split(b.Items[len(b.Items)-1].Passage, "\n") {
				quoted[saidOf(l)] = true
			}
		}
	}
	r.settle(&b)
	// The summary changes with the items; should it have grown past the
	// budget, the last items give way.
	for len(b.Items) > 0 && Tokens(b.Text()) > b.Budget {
		last := b.Items[len(b.Items)-1]
		b.Items = b.Items[:len(b.Items)-1]
		omitted = append(omitted, Omitted{Name: last.Name, Reason: "over the budget"})
		r.overBudget++
		r.settle(&b)
	}
	if len(b.Items) == 0 {
		b.Suggest = nil // nothing to save a query for
	}
	b.Omitted = omitted[:min(len(omitted), maxOmitted)]
	b.Tokens = Tokens(b.Text())
	return b
}

// unrepeated returns a past session's passage without the lines an
// earlier item quoted word for word (quoted holds them, as saidOf gives
// them: the same remark, or the same stock reply, said in two
// conversations): read once, they tell all they do. The first line stays,
// so that each item still says what it is quoted for; fresh is false when
// that line too was quoted before, and the item tells nothing new.
func unrepeated(passage string, quoted map[string]bool) (_ string, fresh bool) {
	lines := strings.Split(passage, "\n")
	out := lines[:1]
	for i, l := range lines {
		if quoted[saidOf(l)] {
			continue
		}
		fresh = true
		if i > 0 {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n"), fresh
}

// clipLast shortens the passage of the bundle's last item to fit the
// budget, if what is left of it would be worth reading.
func (r *retrieval) clipLast(b *Bundle) bool {
	it := &b.Items[len(b.Items)-1]
	full := it.Passage
	it.Passage = ""
	room := b.Budget - Tokens(b.Text())
	for room >= minClip {
		it.Passage = clip(full, room)
		it.held = r.match.matched(it.Title + "\n" + it.Passage)
		r.settle(b)
		if it.Passage != "" && Tokens(b.Text()) <= b.Budget {
			return true
		}
		room -= 4 // the passage's indentation and a changed summary cost a little
	}
	it.Passage = full
	return false
}

// item makes a candidate an item of the bundle.
func (r *retrieval) item(c *candidate, top float64) Item {
	it := Item{
		Kind: c.kind, Name: c.name, Title: c.title, Type: c.typ, Date: c.date, Conversation: c.conv,
		Passage: c.passage.text, Source: c.source, held: c.held, named: c.named, vector: c.vector,
	}
	if c.kind == "entry" {
		it.Passage = compact(c.title, it.Passage)
	} else {
		it.Passage = r.unechoed(it.Passage)
	}
	if top > 0 {
		it.Score = math.Round(c.score/top*100) / 100
	}
	if c.passage.start > 0 {
		it.Lines = []int{c.passage.start, c.passage.end}
	}
	var why []string
	if words := r.words(c.held); len(words) > 0 {
		why = append(why, "holds "+strings.Join(words, ", "))
	}
	if c.vector > 0 {
		why = append(why, fmt.Sprintf("close in meaning (%.2f)", c.vector))
	}
	why = append(why, c.why...)
	if len(why) == 0 {
		why = append(why, "related")
	}
	it.Why = strings.Join(why, "; ")
	return it
}

// compact returns passage without the lines that repeat what the item's
// line says: its title again (a heading, the first line of a decision,
// the "Error:" of a fix titled by it), and where it was learned (the
// item's line has the date and the file; "Learned 2025-11-13 in
// [[episodes/…]]" is chrome). The budget goes to what the passage holds
// besides. A passage that only says its title again says it (an entry
// is never quoted by its heading alone, nor by nothing).
func compact(title, passage string) string {
	head := words.Split(strings.ToLower(title))
	var said, kept []string
	for _, l := range strings.Split(passage, "\n") {
		switch {
		case provenance(l):
		case repeats(head, l):
			said = append(said, l)
		default:
			kept = append(kept, l)
		}
	}
	switch {
	case len(kept) > 0:
		return strings.Join(kept, "\n")
	case len(said) > 0:
		return strings.Join(said, "\n") // a statement that is its title
	}
	return passage
}

// repeats reports whether line says the title again: its words (at
// least three) are all the title's, but for a first one that labels it
// ("Error:" of a fix titled by the error; a heading's mark is no word).
// A line that differs in any other word ("1:3" for "1:2") tells more.
func repeats(title []string, line string) bool {
	ws := words.Split(strings.ToLower(line))
	if len(ws) < 3 {
		return false
	}
	for i, w := range ws {
		if i > 0 && !slices.Contains(title, w) {
			return false
		}
	}
	return true
}

// settle sets what a bundle says of its items: sources, summary, the
// words no item holds, and confidence.
func (r *retrieval) settle(b *Bundle) {
	b.Sources = []string{}
	seen := map[string]bool{}
	var held []int
	best, named := 0.0, 0.0
	for _, it := range b.Items {
		if !seen[it.Source] {
			seen[it.Source] = true
			b.Sources = append(b.Sources, it.Source)
		}
		held = append(held, it.held...)
		// In hybrid search, closeness in meaning answers as words do.
		share := max(r.share(it.held), it.vector)
		if it.Kind == "session" {
			// Said in passing, once: weaker evidence than an entry.
			share /= 2
		}
		best = max(best, share)
		if it.named {
			named = 1
		}
	}
	b.Uncovered = r.missing(held)
	if len(r.unheld) > 0 {
		b.Uncovered = r.unheld
	}
	b.Confidence = 0
	if len(r.t.words) > 0 && len(b.Items) > 0 {
		b.Confidence = math.Round((0.5*best+0.3*r.share(held)+0.2*named)*100) / 100
	}
	switch {
	case b.Confidence >= highConfidence:
		b.Level = "high"
	case b.Confidence >= mediumConfidence:
		b.Level = "medium"
	default:
		b.Level = "low"
	}
	b.Summary = r.summarize(b)
}

// share is the part of the question's words that held holds.
func (r *retrieval) share(held []int) float64 {
	if len(r.t.words) == 0 {
		return 0
	}
	seen := map[int]bool{}
	for _, i := range held {
		seen[i] = true
	}
	return float64(len(seen)) / float64(len(r.t.words))
}

// uncovered returns the indexes of the terms not in held.
func (r *retrieval) uncovered(held []int) []int {
	has := map[int]bool{}
	for _, i := range held {
		has[i] = true
	}
	var out []int
	for i := range r.t.words {
		if !has[i] {
			out = append(out, i)
		}
	}
	return out
}

// missing is the question's words that none of held holds, as a person
// would name them: whole words, not the pairs of characters a spaceless
// run is searched by, and no stop word ("what", "did" of "what did we do
// last week?" were searched only because nothing else was left).
func (r *retrieval) missing(held []int) []string {
	return r.words(slices.DeleteFunc(r.uncovered(held), func(i int) bool {
		return r.t.run[i] >= 0 || words.IsStop(r.t.words[i])
	}))
}

// words returns the words of the terms at these indexes, in order; pairs
// of characters cut from one run and next to each other are joined again
// (東京, ユーザー会).
func (r *retrieval) words(idx []int) []string {
	idx = slices.Sorted(slices.Values(idx))
	var out []string
	for k, i := range idx {
		run := r.t.run[i]
		if k > 0 && run >= 0 && idx[k-1] == i-1 && r.t.run[i-1] == run {
			last := []rune(r.t.words[i])
			out[len(out)-1] += string(last[len(last)-1])
			continue
		}
		out = append(out, r.t.words[i])
	}
	return out
}

// summarize says in a sentence or two what a bundle holds (an extractive
// summary: what a model writes when one is configured).
func (r *retrieval) summarize(b *Bundle) string {
	if r.label != "" {
		return r.label + ". " + r.extract(b)
	}
	return r.extract(b)
}

func (r *retrieval) extract(b *Bundle) string {
	if r.summary != "" {
		return r.summary
	}
	if len(r.t.words) == 0 && r.label == "" && r.asked.IsZero() {
		return "The question has no words to search for."
	}
	var titles []string
	entries, sessions := 0, 0
	for _, it := range b.Items {
		if it.Kind == "session" {
			sessions++
			continue
		}
		entries++
		if len(titles) < 3 {
			titles = append(titles, clip(it.Title, maxHeadTitle))
		}
	}
	var s string
	switch {
	case entries == 0 && sessions == 0 && r.overBudget > 0:
		return fmt.Sprintf("Found %s, but none fits in %d tokens; ask with a larger budget.", words.Plural(r.overBudget, "passage", "passages"), b.Budget)
	case entries == 0 && sessions == 0 && len(r.unheld) > 0:
		return fmt.Sprintf("Nothing in the vault or in past sessions dated %s mentions %s, and nothing else is dated then.", r.askedPast(), clip(strings.Join(r.unheld, ", "), maxHeadMissing))
	case entries == 0 && sessions == 0 && !r.asked.IsZero():
		return fmt.Sprintf("Nothing in the vault or in past sessions is dated %s.", r.askedPast())
	case entries == 0 && sessions == 0:
		return "Nothing in the vault or in past sessions matches."
	case entries == 0 && len(r.folded) > 0:
		// The entries filed from the sessions quoted matched too: the
		// passages hold what they say, and are quoted for them.
		s = fmt.Sprintf("Found %s; filed from it: %s.", words.Plural(sessions, "passage of a past session", "passages of past sessions"), strings.Join(r.folded[:min(len(r.folded), 3)], "; "))
	case entries == 0:
		s = fmt.Sprintf("No entry matches; found %s.", words.Plural(sessions, "passage of a past session", "passages of past sessions"))
	default:
		s = fmt.Sprintf("Found %s: %s", words.Plural(entries, "entry", "entries"), strings.Join(titles, "; "))
		if entries > len(titles) {
			s += fmt.Sprintf(" (and %d more)", entries-len(titles))
		}
		s += "."
		if sessions > 0 {
			s += fmt.Sprintf(" Also %s.", words.Plural(sessions, "passage of a past session", "passages of past sessions"))
		}
	}
	switch {
	case len(r.unheld) > 0:
		s = fmt.Sprintf("Nothing dated %s mentions %s; listed instead is what is dated then. %s", r.askedPast(), clip(strings.Join(r.unheld, ", "), maxHeadMissing), s)
	case len(b.Uncovered) > 0:
		s += fmt.Sprintf(" Nothing found mentions %s.", clip(strings.Join(b.Uncovered, ", "), maxHeadMissing))
	}
	return s
}

// diversify orders candidates by maximal marginal relevance and leaves out
// near-duplicates of a better one, and the passages of a conversation that
// a better one already quotes: an entry filed from a session and that
// session's passage are one source. Of the two, the entry is what was kept
// of the conversation on purpose, and a person may have corrected it since:
// it takes the passage's place when it holds every word of the question the
// passage holds, unless it is the conversation's episode, which tells the
// whole of it in more words than the passage that answers. Another entry
// filed from the conversation is quoted too when it holds words of the
// question the ones quoted do not: a session yields several facts and
// decisions.
func diversify(cs []*candidate) (out []*candidate, omitted []Omitted) {
	sets := make(map[*candidate]map[string]bool, len(cs))
	df := map[string]int{}
	for _, c := range cs {
		sets[c] = stemSet(spoken(c))
		for w := range sets[c] {
			df[w]++
		}
	}
	// A word counts in the likeness of two passages by how rare it is
	// among the candidates: passages written alike (a template, a turn
	// of phrase said every day) that differ in the name, the place or
	// the thing they tell of are not the same thing said.
	wt := make(map[string]float64, len(df))
	for w, n := range df {
		wt[w] = math.Log(float64(len(cs)+1) / float64(n))
	}
	convs := map[string]*candidate{}       // the conversations quoted, by Ref, to the item quoting all of it held
	quoted := map[string]map[string]bool{} // the words of a conversation's quoted items
	rest := append([]*candidate(nil), cs...)
	for len(rest) > 0 {
		at, bestVal, reason := 0, math.Inf(-1), ""
		var replaces *candidate
		for i, c := range rest {
			// Another entry of a quoted conversation that holds words of
			// the question its quoted items do not is another thing the
			// conversation told: it is weighed as any other. So is an
			// entry whose passage the conversation's quoted passage does
			// not hold (the fix filed from a session whose passage
			// quotes the error): one source, two things it says. And a
			// passage of the session that entries filed from it do not
			// hold: an entry stands in for the passage only when it
			// holds what the passage says.
			if by, ok := convs[c.conv]; ok && c.conv != "" && !(c.kind == "entry" && by.kind == "entry" && addsTerms(c, by)) &&
				!(c.kind == "entry" && c.typ != episodeType && by.kind == "session" && addsTerms(by, c) && containment(sets[c], sets[by], wt) < contained) &&
				!(c.kind == "session" && by.kind == "entry" && containment(sets[c], quoted[c.conv], wt) < contained) {
				if c.kind == "entry" && c.typ != episodeType && by.kind == "session" && !addsTerms(by, c) {
					at, replaces = i, by
				} else {
					at, reason = i, "the same conversation as "+by.name
				}
				break
			}
			sim, dup := 0.0, ""
			for _, s := range out {
				if addsTerms(c, s) {
					// Alike in wording, but it holds words of the
					// question the better one does not (another
					// name, another place): not the same thing said.
					continue
				}
				x := words.Jaccard(sets[c], sets[s], wt)
				sim = max(sim, x)
				if c.conv != "" && s.conv != "" {
					// Each conversation is its own time: words said
					// alike on two days (a change of mind, the same
					// kind of event again) tell two things, however
					// alike. Those of one conversation are one source,
					// left out above.
					continue
				}
				if x >= nearDuplicate || containment(sets[c], sets[s], wt) >= contained {
					dup = s.name
					break
				}
			}
			if dup != "" {
				at, reason = i, "near-duplicate of "+dup
				break
			}
			if v := mmrLambda*c.score - (1-mmrLambda)*sim; v > bestVal {
				at, bestVal = i, v
			}
		}
		c := rest[at]
		rest = append(rest[:at], rest[at+1:]...)
		if reason != "" {
			omitted = append(omitted, Omitted{Name: c.name, Reason: reason})
			continue
		}
		if replaces != nil {
			out[slices.Index(out, replaces)] = c
			omitted = append(omitted, Omitted{Name: replaces.name, Reason: "the same conversation as " + c.name})
			convs[c.conv] = c
			continue
		}
		if c.conv != "" {
			if quoted[c.conv] == nil {
				quoted[c.conv] = map[string]bool{}
			}
			maps.Copy(quoted[c.conv], sets[c])
			if by := convs[c.conv]; by != nil {
				// What the conversation's quoted items hold together.
				held := slices.Clone(by.held)
				for _, t := range c.held {
					if !slices.Contains(held, t) {
						held = append(held, t)
					}
				}
				convs[c.conv] = &candidate{kind: "entry", name: by.name, held: held}
			} else {
				convs[c.conv] = c
			}
		}
		out = append(out, c)
	}
	return out, omitted
}

// addsTerms reports whether c holds a term of the question that s does not.
func addsTerms(c, s *candidate) bool {
	for _, i := range c.held {
		if !slices.Contains(s.held, i) {
			return true
		}
	}
	return false
}

// stemSet is the set of content words of text, by stem.
func stemSet(text string) map[string]bool {
	set := map[string]bool{}
	for _, w := range words.Split(text) {
		if !words.IsStop(w) {
			set[words.Term(w)] = true
		}
	}
	return set
}

// spoken is what c's passage says: a past session's without the speakers'
// labels that start its lines, an entry's without where it was learned,
// which are not words said.
func spoken(c *candidate) string {
	if c.kind != "session" {
		// Where it was learned is chrome, not what it says (see compact).
		lines := slices.DeleteFunc(strings.Split(c.passage.text, "\n"), provenance)
		return strings.Join(lines, "\n")
	}
	lines := strings.Split(c.passage.text, "\n")
	for i, l := range lines {
		for _, role := range []transcript.Role{transcript.User, transcript.Assistant} {
			if rest, ok := strings.CutPrefix(l, string(role)+": "); ok {
				lines[i] = rest
			}
		}
	}
	return strings.Join(lines, "\n")
}

// containment is the share of a's words that b holds, each word weighed
// by wt.
func containment(a, b map[string]bool, wt map[string]float64) float64 {
	in, all := 0.0, 0.0
	for w := range a {
		all += wt[w]
		if b[w] {
			in += wt[w]
		}
	}
	if all == 0 {
		return 0
	}
	return in / all
}
