package extractor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/index/query/when"
	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// How much of the index a retrieval looks at.
const (
	searchLimit = 20 // hits per search
	readLimit   = 16 // candidates read from their files, best first
	expandFrom  = 3  // top candidates whose links and names are followed
	maxLookups  = 16 // names of the question looked up
	// sessionPassages is how many passages of past sessions are asked
	// for. Every conversation they are of is judged (see judge), and the
	// sessionHits best are kept: a conversation whose question and
	// answer fell in two search blocks holds all of a question only in
	// its passages together, and ranks low by its best one alone.
	sessionPassages = 48
	sessionHits     = 7
	// sessionSnippet is the length of a past session's passage, in
	// words: whole turns, the one that holds the question's words and
	// the reply to it, cut at sentence bounds when longer (another
	// passage of the conversation adds what they leave out, see said).
	// An answer is said in the sentences after the question's words,
	// which a window of a sentence or two around them cuts off.
	sessionSnippet = 96
	// deepSnippet is the length of the passage, in words, of a past
	// session that goes first in a bundle (see deepen).
	deepSnippet = 2 * sessionSnippet
	// deepFollow is the most turns that passage quotes after the one
	// that matched: the exchange goes on ("Let me check how it's being
	// used:", then what was found, then the fix).
	deepFollow = 6
)

// Scoring. An entry and a passage of a past session are scored alike, by
// the passage a bundle would quote: so the passage that answers goes first
// whatever kind of source holds it.
const (
	// rankShare is the part of a candidate's score that depends on its
	// search rank, BM25 relative to the best hit of its kind (entries,
	// or passages of past sessions: the two indexes' scores are not on
	// one scale); the rest is its passage's evidence (see evidence).
	rankShare = 0.4
	// linkedShare is a linked or named entry's score as a share of the
	// score of the hit it was reached from; linkedScore, the least score
	// it needs to be in a bundle, as a share of the best (a lower bar
	// than minScore, as it scores at most a share of its hit's).
	linkedShare = 0.5
	linkedScore = 0.375
	// recencyBoost and recencyHalfLife: a dated candidate (an episode, a
	// log, a milestone, one filed under a date, a past session) scores up
	// to 1.5 times as much when new, the boost halving every 30 days.
	recencyBoost    = 0.5
	recencyHalfLife = 30 * 24 * time.Hour
	// projectBoost and otherProject: entries of the project the question
	// is asked from rank higher, those of other projects lower.
	projectBoost = 1.2
	otherProject = 0.85
	// minScore is the least score an item needs to be in a bundle, as a
	// share of the best: below it, an entry adds words, not answers, and
	// a passage of a past session holds a word or two of the question
	// said of something else. The budget goes to evidence first: what is
	// read of such items is read at the cost of the agent's context.
	minScore = 0.7
	// expandScore is the least score of a hit whose links are followed,
	// as a share of the best.
	expandScore = 0.5
)

// candidate is an entry or a conversation passage a bundle may hold.
type candidate struct {
	kind    string // entry or session
	name    string
	title   string
	typ     string
	project string
	date    time.Time
	source  string

	text   float64 // BM25 from the index, or the fused score of a hybrid search
	rank   float64 // text relative to the best hit of its kind
	vector float64 // cosine similarity, in hybrid search
	named  bool    // the question names it
	from   float64 // for an entry reached from a hit, that hit's score × linkedShare
	score  float64
	mult   float64 // what its date, window and project multiply its base by
	why    []string
	// reached is set for an entry no search found, only a hit's link or
	// the name a hit says.
	reached bool

	read    bool
	body    string    // title and body, for the terms' weights
	blocks  []passage // the body's passages
	passage passage   // the one quoted
	judged  string    // judged by too, besides its passage: a past session's matched turn (see wordEvidence)
	held    []int     // the question's terms its title and passage hold

	// conv is the Ref of the conversation the quoted passage was said in
	// or filed from: an entry the librarian filed from a session and
	// that session's passages are one source (see said).
	conv string
	said said // what the entry says of the conversations it was filed from
	// hits are the passages the search found of a past session's
	// conversation, best first (see mentions).
	hits []sessions.Hit
}

// retrieval is one question being answered.
type retrieval struct {
	m   Memory
	req Request
	t   terms
	// when is what the question says of time, and window the time it
	// asks about counted from now, its events dated (see
	// query.Plan.Window, dateEvents).
	when   when.Reading
	window when.Window
	// asked is the window the question's words say, before its events
	// are dated: it keeps only what happened then (see keepWindow); an
	// event's date, found by a search, only favours.
	asked when.Window
	match matcher
	plan  Plan
	// summary is the model's summary, when a model condensed the bundle.
	summary string
	// label starts the summary of a learned query's bundle.
	label string
	// suggest offers a learned query for a plan that recurs.
	suggest *Suggestion
	// overBudget counts the candidates left out for the budget.
	overBudget int
	w          []float64 // the terms' weights over the candidates read (see weights)
	// folded are the entries left out of the bundle for a passage of
	// the session they were filed from, which holds what they say.
	folded []string
	// thin is set when what was found holds little of the question
	// (see thinEvidence): breadth serves better than depth.
	thin bool
	// sessionsRead is set once the past sessions were searched.
	sessionsRead bool
	// unheld are the question's words when nothing of its time holds
	// them and what is dated then is listed instead: the summary says so.
	unheld []string
	// first is the entry the first search ranks first, as search does:
	// it is not left out for its score (see expand), only for a better
	// item that holds what it says (see diversify).
	first    string
	cands    map[string]*candidate
	order    []*candidate // after rank
	searcher *searcher
}

// newRetrieval starts answering req, whose question is read as
// req.Plan (nil: a learned query's run, which says no time) and searched
// for as t. Words that say a time ("last week") set the window and are
// not in t (see query.Plan.Rest).
func newRetrieval(m Memory, req Request, t terms) *retrieval {
	r := &retrieval{
		m: m, req: req, t: t,
		plan:     Plan{By: "offline", Searches: []string{}, Scope: req.Scope},
		cands:    map[string]*candidate{},
		searcher: &searcher{m: m, about: req.Query},
	}
	if p := req.Plan; p != nil {
		r.when, r.window, r.asked = p.When(), p.Window(), p.Window()
	}
	r.match = r.matcherFor(t)
	return r
}

// offline answers with the offline plan: the question's words searched.
func (r *retrieval) offline(ctx context.Context) (Bundle, error) {
	if r.t.expr != "" {
		if err := r.gather(ctx, []*query.Plan{r.t.plan}); err != nil {
			return Bundle{}, err
		}
	}
	if len(r.cands) == 0 && !r.window.IsZero() {
		// The passages of past sessions of that time that hold the
		// words, when no entry does ("what did we do last week?").
		if err := r.conversations(ctx); err != nil {
			return Bundle{}, err
		}
	}
	if len(r.cands) == 0 && !r.window.IsZero() {
		// "what happened last week": what is dated then, whatever
		// words it holds.
		r.t = termsFor(query.Plain(""))
		r.match = r.matcherFor(r.t)
		if err := r.listWindow(ctx); err != nil {
			return Bundle{}, err
		}
	}
	if err := r.prepare(ctx); err != nil {
		return Bundle{}, err
	}
	if len(r.order) == 0 && !r.asked.IsZero() && r.t.expr != "" {
		// Nothing of that time holds the words ("what did we decide
		// last week?"): what is dated then.
		r.cands = map[string]*candidate{}
		r.unheld = r.missing(nil)
		r.t = termsFor(query.Plain(""))
		r.match = r.matcherFor(r.t)
		if err := r.listWindow(ctx); err != nil {
			return Bundle{}, err
		}
		if err := r.prepare(ctx); err != nil {
			return Bundle{}, err
		}
	}
	return r.pack(), nil
}

// prepare adds passages of past conversations to what was gathered, ranks
// them all, and follows links from the best: the candidates, in order, to
// pack.
func (r *retrieval) prepare(ctx context.Context) error {
	if err := r.dateEvents(ctx); err != nil {
		return err
	}
	if err := r.conversations(ctx); err != nil {
		return err
	}
	if err := r.rank(ctx); err != nil {
		return err
	}
	if err := r.expand(ctx); err != nil {
		return err
	}
	// What the links reached is held to the question's time too.
	r.keepWindow(r.order)
	r.order = slices.DeleteFunc(r.order, func(c *candidate) bool { return c.score <= 0 })
	return nil
}

// entriesInScope reports whether the request searches the vault's entries.
func (r *retrieval) entriesInScope() bool {
	return len(r.req.Scope) == 0 || slices.ContainsFunc(r.req.Scope, func(s string) bool { return s != sessionsScope })
}

// gather runs searches over the index and looks up the names the question
// uses.
func (r *retrieval) gather(ctx context.Context, searches []*query.Plan) error {
	if !r.entriesInScope() {
		return nil
	}
	for _, s := range searches {
		r.plan.Searches = append(r.plan.Searches, s.Text())
	}
	scopes := []string{""}
	if len(r.req.Scope) > 0 {
		scopes = slices.DeleteFunc(slices.Clone(r.req.Scope), func(s string) bool { return s == sessionsScope })
	}
	for _, s := range searches {
		for _, scope := range scopes {
			res, err := r.search(ctx, index.Query{Text: s.Text(), Plan: s, Limit: searchLimit, Scope: scope, Since: r.req.Since, Until: r.req.Until})
			if err != nil {
				return fmt.Errorf("retrieve %q: %w", r.req.Query, err)
			}
			if r.first == "" && len(res) > 0 {
				r.first = res[0].Name
			}
			for _, h := range res {
				c := r.add(h.Name)
				c.title, c.typ, c.project, c.date = h.Title, h.Type, h.Project, h.Happened
				c.text = max(c.text, h.Score)
				if h.Vector > c.vector {
					c.vector = h.Vector
				}
			}
		}
	}
	return r.lookupNames(ctx)
}

// hit is a search result as a retrieval uses it: Score is BM25, or the
// fused score of a hybrid search, whose vector side is Vector.
type hit struct {
	index.Result
	Vector float64
}

// search runs one search of the retrieval (see searcher), and says in the
// plan how it was fused.
func (r *retrieval) search(ctx context.Context, q index.Query) ([]hit, error) {
	res, err := r.searcher.search(ctx, q)
	r.plan.Hybrid = r.searcher.hybrid.String()
	out := make([]hit, len(res))
	for i, h := range res {
		out[i] = hit{Result: h.Result, Vector: h.Vector}
	}
	return out, err
}

// add returns the candidate for an entry, adding it if new.
func (r *retrieval) add(name string) *candidate {
	if c, ok := r.cands[name]; ok {
		return c
	}
	c := &candidate{kind: "entry", name: name, source: vault.EntryPath(name)}
	r.cands[name] = c
	return c
}

// lookupNames finds the entries the question names by their name, title
// or an alias: a word of it, or two or three words in a row ("Sarah",
// "Example Ventures"). Aliases are not search terms in the index, so this
// is how "what does S. Chen want" finds contacts/sarah-chen.
func (r *retrieval) lookupNames(ctx context.Context) error {
	q := r.t.text
	spans := words.Spans(q)
	var keys []string
	seen := map[string]bool{}
	for n := 3; n >= 1; n-- {
		for i := 0; i+n <= len(spans); i++ {
			first, last := strings.ToLower(q[spans[i].Start:spans[i].End]), strings.ToLower(q[spans[i+n-1].Start:spans[i+n-1].End])
			if words.IsStop(first) || words.IsStop(last) || n == 1 && len(first) < 3 {
				continue
			}
			// As written ("S. Chen") and as words ("S Chen").
			written := q[spans[i].Start:spans[i+n-1].End]
			for _, k := range []string{written, strings.Join(words.Split(written), " ")} {
				if !seen[strings.ToLower(k)] {
					seen[strings.ToLower(k)] = true
					keys = append(keys, k)
				}
			}
		}
	}
	for _, k := range keys[:min(len(keys), maxLookups)] {
		ms, err := r.m.Index.Lookup(ctx, k)
		if err != nil {
			return fmt.Errorf("retrieve %q: %w", r.req.Query, err)
		}
		for _, m := range ms {
			if !r.inScope(m.Name) {
				continue
			}
			c := r.add(m.Name)
			if !c.named {
				c.named = true
				c.why = append(c.why, fmt.Sprintf("the question names it (%q)", k))
			}
		}
	}
	return nil
}

// inScope reports whether an entry is in the request's scope.
func (r *retrieval) inScope(name string) bool {
	if len(r.req.Scope) == 0 {
		return true
	}
	for _, s := range r.req.Scope {
		s = strings.Trim(s, "/")
		if s != sessionsScope && (name == s || strings.HasPrefix(name, s+"/")) {
			return true
		}
	}
	return false
}

// rank scores the candidates, reads the best entries from their files to
// find their passages, and orders them best first.
func (r *retrieval) rank(ctx context.Context) error {
	top := map[string]float64{}
	for _, c := range r.cands {
		top[c.kind] = max(top[c.kind], c.text)
	}
	for _, c := range r.cands {
		if t := top[c.kind]; t > 0 {
			c.rank = c.text / t
		}
		if c.named {
			// Named by the question: as if it were the best hit. Its
			// passage still has to hold the rest of the question to go
			// first.
			c.rank = 1
		}
		c.score = c.rank
	}
	var list, sessions []*candidate
	for _, c := range r.sorted() {
		switch {
		case c.kind == "session":
			sessions = append(sessions, c)
		case len(list) < readLimit:
			list = append(list, c)
		default:
			// Not read, so not judged: its rank is on another scale
			// than the scores of those judged, and must not outrank them.
			c.score = 0
		}
	}
	// The terms are weighed over passages, the entries' and the
	// sessions' alike, so that a long entry does not count as one text
	// against a session's short passage.
	var texts []string
	for _, c := range list {
		if err := r.read(ctx, c); err != nil {
			return err
		}
		for _, b := range c.blocks {
			texts = append(texts, b.text)
		}
	}
	for _, c := range sessions {
		texts = append(texts, c.passage.text)
	}
	r.w = weights(r.t, texts)
	for _, c := range append(list, sessions...) {
		r.judge(c)
	}
	r.keepWindow(append(list, sessions...))
	saidLater(sessions)
	sessions = r.keepSessions(sessions)
	r.order = r.sorted()[:len(list)+len(sessions)]
	if err := r.deepen(ctx); err != nil {
		return err
	}
	r.explainSessions()
	return nil
}

// read reads a candidate's entry. An entry that cannot be read (removed
// since the index saw it, or malformed), or that was superseded or
// archived, scores 0.
func (r *retrieval) read(ctx context.Context, c *candidate) error {
	if c.read {
		return nil
	}
	c.read = true
	doc, err := r.m.Vault.Read(ctx, c.name)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, vault.ErrNotFound) || errors.Is(err, entry.ErrFrontmatter) || errors.Is(err, entry.ErrTooLarge) {
			c.score = 0
			return nil
		}
		return fmt.Errorf("retrieve %q: %w", r.req.Query, err)
	}
	e := doc.Entry
	if e.SupersededBy() != "" || !e.Archived().IsZero() {
		// Replaced or archived: search leaves such entries out, and so
		// do names and links.
		c.score = 0
		return nil
	}
	c.title, c.typ, c.project = e.Title(), e.Type(), e.Project()
	if c.typ == "log" && e.Source() == "librarian" && !c.named {
		// The librarian's own log holds the questions it could not
		// answer, as asked: it echoes a question, it does not answer it.
		c.score = 0
		return nil
	}
	if c.title == "" {
		c.title = vault.Slug(c.name)
	}
	c.date = vault.Happened(c.name, e) // judge dates an episode's sections on top
	c.blocks = blocks(e)
	c.said = saidIn(e)
	c.body = c.title + "\n" + e.Body()
	return nil
}

// judge scores a candidate by its passage: for an entry, the passage of
// it that holds the most of the question; for a past session, the
// passage the search found. Then its date and its project count.
func (r *retrieval) judge(c *candidate) {
	if c.kind == "entry" {
		if c.body == "" {
			return
		}
		if r.match.excludes(c.body) {
			c.score = 0 // the question excludes a word it holds
			return
		}
		c.passage, _ = best(c.blocks, r.match, r.w)
		// What the passage tells happened when its conversation did.
		if ref, at := c.said.at(c.passage.start); ref != "" {
			c.conv = ref
			if !at.IsZero() {
				c.date = at
			}
		}
	}
	if hard := (when.Window{Since: r.req.Since, Until: r.req.Until}); !hard.IsZero() && !c.date.IsZero() && !hard.Contains(c.date) {
		c.score = 0 // the request keeps only what happened in its time
		return
	}
	c.held = r.match.matched(c.title + "\n" + c.passage.text)
	c.score = r.base(c)
	c.mult = 1
	if (c.kind == "session" || dated(c.name, c.typ)) && !c.date.IsZero() {
		age := r.m.now().Sub(c.date)
		c.mult *= 1 + recencyBoost*math.Exp2(-max(age, 0).Hours()/recencyHalfLife.Hours())
		if age < 90*24*time.Hour {
			c.why = append(c.why, "recent")
		}
	}
	r.inWindow(c)
	r.onDay(c)
	if r.req.Project != "" && c.project != "" {
		if sameProject(r.req.Project, c.project) {
			c.mult *= projectBoost
			c.why = append(c.why, "this project's")
		} else {
			c.mult *= otherProject
		}
	}
	c.score *= c.mult
}

// base is a judged candidate's score before its date and project count:
// its passage's evidence and its rank, or, reached from a hit, a share of
// that hit's score, more as it holds more of the question itself;
// whichever is more.
func (r *retrieval) base(c *candidate) float64 {
	e := r.evidence(c)
	return max(e*(1-rankShare+rankShare*c.rank), c.from*(1-rankShare+rankShare*e))
}

// Evidence is BM25 over the passage a candidate would be quoted by, its
// title included, with the terms' weights over all candidates: so an
// entry's paragraph and a session's passage are measured alike, and a
// passage that holds the question's words densely ranks above a long one
// that holds them once.
const (
	evidenceK1 = 1.2
	evidenceB  = 0.5
	// evidenceLen is a typical passage, in tokens.
	evidenceLen = 60
	// titleWeight is what a word of the title counts for.
	titleWeight = 3
)

// evidence is how much of the question c's passage holds, between 0 and 1
// (each term's BM25 saturation, weighted); 1 when the question has no
// terms to weigh, so that the ranking decides. In hybrid search, closeness
// in meaning is evidence as words are.
func (r *retrieval) evidence(c *candidate) float64 {
	return max(r.wordEvidence(c), c.vector)
}

// wordEvidence is the evidence of c's words: of its passage, or of what
// it is judged by besides when that holds more (a past session's matched
// turn, see conversations).
func (r *retrieval) wordEvidence(c *candidate) float64 {
	if c.judged != "" {
		return max(r.textEvidence(c, c.judged), r.textEvidence(c, c.passage.text))
	}
	return r.textEvidence(c, c.passage.text)
}

// textEvidence is the evidence of body, quoted under c's title.
func (r *retrieval) textEvidence(c *candidate, body string) float64 {
	total := 0.0
	for _, x := range r.w {
		total += x
	}
	if total == 0 {
		return 1
	}
	// A title cut short from the passage's own first sentence was made
	// from it, not written as a heading: counted as one, a name said there
	// in passing would outweigh a passage that answers. A short sentence
	// kept whole as the title (a fact's) is the entry's heading.
	heading := c.title
	if restates(heading, body) {
		heading = ""
	}
	text := heading + "\n" + body
	norm := 1 - evidenceB + evidenceB*float64(Tokens(text))/evidenceLen
	title := r.match.counts(heading)
	e := 0.0
	for i, tf := range r.match.counts(body) {
		// A word of the title counts as much as titleWeight words of the
		// passage, as in the index's ranking.
		if tf := float64(tf) + titleWeight*float64(title[i]); tf > 0 {
			e += r.w[i] * tf / (tf + evidenceK1*norm)
		}
	}
	return e / total
}

// restates reports whether title is the first words of passage cut short
// ("…", maybe within a word): an entry titled by the start of its first
// sentence. A passage that starts with a heading has a title of its own.
func restates(title, passage string) bool {
	cut := strings.HasSuffix(title, "…")
	if !cut || strings.HasPrefix(passage, "#") {
		return false
	}
	t := words.Split(strings.ToLower(strings.TrimSuffix(title, "…")))
	p := words.Split(strings.ToLower(passage))
	if len(t) == 0 || len(p) < len(t) {
		return false
	}
	last := len(t) - 1
	return slices.Equal(t[:last], p[:last]) && strings.HasPrefix(p[last], t[last])
}

// dated reports whether an entry is about a time rather than timeless:
// episodes, logs and milestones, and entries filed under a date.
func dated(name, typ string) bool {
	switch typ {
	case "episode", "log", "milestone":
		return true
	}
	for _, seg := range strings.Split(name, "/") {
		if len(seg) >= 7 && seg[4] == '-' && isDigits(seg[:4]) && isDigits(seg[5:7]) {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// sorted returns the candidates best first, by name among equals.
func (r *retrieval) sorted() []*candidate {
	list := make([]*candidate, 0, len(r.cands))
	for _, c := range r.cands {
		list = append(list, c)
	}
	slices.SortFunc(list, func(a, b *candidate) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.name, b.name))
	})
	return list
}
