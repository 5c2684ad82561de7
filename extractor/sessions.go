package extractor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ctx0/ctx0/index/query/when"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/transcript"
)

// Sessions searches what was said in past sessions, best match first: the
// contract of sessions.Store's Search.
type Sessions interface {
	Search(ctx context.Context, q sessions.Query) ([]sessions.Hit, error)
}

var _ Sessions = (*sessions.Store)(nil)

// StoredSessions are the past sessions ingested into a vault's local
// state, opened on the first search: most retrievals are answered by the
// vault's entries and never need them.
type StoredSessions struct {
	root string
	opts []sessions.Option

	once  sync.Once
	store *sessions.Store
	err   error
}

// OpenSessions returns the past sessions of the vault at root.
func OpenSessions(root string, opts ...sessions.Option) *StoredSessions {
	return &StoredSessions{root: root, opts: opts}
}

// ErrNoSessions is returned by a search of a vault into which no session
// was ingested.
var ErrNoSessions = errors.New("no sessions ingested")

// Search finds passages of past sessions, or returns ErrNoSessions.
func (s *StoredSessions) Search(ctx context.Context, q sessions.Query) ([]sessions.Hit, error) {
	s.once.Do(func() {
		// Until the ingest database exists nothing was ingested, and
		// opening the state would create it.
		_, err := os.Stat(filepath.Join(s.root, filepath.FromSlash(sessions.StateDir), sessions.DBFile))
		if errors.Is(err, fs.ErrNotExist) {
			s.err = ErrNoSessions
			return
		}
		s.store, s.err = sessions.Open(ctx, s.root, s.opts...)
	})
	if s.err != nil {
		return nil, s.err
	}
	return s.store.Search(ctx, q)
}

// Close closes the state if a search opened it.
func (s *StoredSessions) Close() error {
	if s.store == nil {
		return nil
	}
	return s.store.Close()
}

// conversations adds the passages of past sessions that match the
// question: they compete with the entries on one score (see judge), so
// the passage that answers goes first whichever holds it.
func (r *retrieval) conversations(ctx context.Context) error {
	if r.m.Sessions == nil || r.t.expr == "" || r.sessionsRead {
		return nil
	}
	r.sessionsRead = true
	if len(r.req.Scope) > 0 && !slices.Contains(r.req.Scope, sessionsScope) {
		return nil
	}
	// Each conversation is quoted by its best passage and judged by what
	// that passage holds: its other passages, which the bundle does not
	// quote, do not lift it.
	q := sessions.Query{Text: r.t.expr, Plan: r.t.plan, Limit: sessionPassages, Snippet: sessionSnippet, Since: r.req.Since, Until: r.req.Until, PassageOnly: true, Turns: true}
	hits, err := r.m.Sessions.Search(ctx, q)
	convs := byConversation(hits)
	if !r.window.IsZero() && err == nil {
		// Those of the time the question asks about too, which the
		// words alone may rank below others.
		w := r.window.Intersect(when.Window{Since: q.Since, Until: q.Until})
		q.Since, q.Until = w.Since, w.Until
		var more []sessions.Hit
		more, err = r.m.Sessions.Search(ctx, q)
		convs = append(convs, byConversation(more)...)
	}
	switch {
	case errors.Is(err, ErrNoSessions):
		return nil
	case err != nil:
		return fmt.Errorf("retrieve %q: past sessions: %w", r.req.Query, err)
	}
	r.plan.Searches = append(r.plan.Searches, "sessions: "+r.t.expr)
	for _, hs := range convs {
		h := hs[0]
		name := fmt.Sprintf("conversation:%d", h.Conversation)
		if _, ok := r.cands[name]; ok {
			continue // one passage per conversation: the best
		}
		c := &candidate{
			kind: "session", name: name, date: h.Time, read: true, text: h.Score,
			title:   fmt.Sprintf("%s session %s", h.Source, shortID(h.Session)),
			source:  fmt.Sprintf("ctx0 conversation show %d", h.Conversation),
			passage: passage{text: r.said(hs)},
			hits:    hs,
			judged:  matchedTurn(hs[0]),
			project: h.Project,
			conv:    h.Ref(),
		}
		if h.Project != "" {
			c.title += " in " + homeRelative(h.Project)
		}
		r.cands[name] = c
	}
	return nil
}

// deepen quotes the bundle's first candidate, when it is a passage of a
// past session or what was filed from one, by deepSnippet words of its
// conversation rather than sessionSnippet, and up to deepFollow turns
// after the matched one: the budget goes to evidence first, and the
// conversation a question is best answered by holds the answer in the
// turns around its best passage more often than any other conversation
// does. It keeps its place: what it holds besides is what was said around
// what ranked it. Not when the evidence is thin: no conversation is best
// answered by, and each is quoted by every mention (see keepSessions).
func (r *retrieval) deepen(ctx context.Context) error {
	// The first passage of a past session, when the candidates before it
	// were filed from its conversation: they are one source.
	var c *candidate
	for _, x := range r.order {
		if x.kind == "session" {
			c = x
			break
		}
		if x.conv == "" {
			return nil
		}
	}
	if c == nil || r.thin || slices.ContainsFunc(r.order, func(x *candidate) bool { return x.kind != "session" && x.conv != c.conv && x.score > c.score }) {
		return nil
	}
	var id int64
	if _, err := fmt.Sscanf(c.name, "conversation:%d", &id); err != nil {
		return nil
	}
	q := sessions.Query{Text: r.t.expr, Plan: r.t.plan, Conversation: id, Limit: sessionPassages, Snippet: deepSnippet,
		Since: r.req.Since, Until: r.req.Until, PassageOnly: true, Turns: true, Follow: deepFollow}
	hits, err := r.m.Sessions.Search(ctx, q)
	if err != nil {
		return fmt.Errorf("retrieve %q: past sessions: %w", r.req.Query, err)
	}
	if len(hits) == 0 {
		return nil
	}
	c.passage = passage{text: r.said(hits)}
	c.held = r.match.matched(c.title + "\n" + c.passage.text)
	return nil
}

// said is the passage a conversation is quoted by: its best hit, and the
// one of its other hits that holds the most words of the question the
// best does not, if any does (the answer said in the search block after
// the question's).
func (r *retrieval) said(hs []sessions.Hit) string {
	text := quote(hs[0])
	held := r.match.matched(text)
	more, adds := "", 0
	for _, h := range hs[1:] {
		t := quote(h)
		if n := len(slices.DeleteFunc(r.match.matched(t), func(i int) bool { return slices.Contains(held, i) })); n > adds {
			more, adds = t, n
		}
	}
	if adds > 0 {
		// Two hits of a conversation may quote the same turns (the
		// reply after one hit's matched turn is the other's): a turn
		// the passage already holds is not quoted again.
		for _, l := range strings.Split(more, "\n") {
			if !strings.Contains(text, saidOf(l)) {
				text += "\n" + l
			}
		}
	}
	return text
}

// mentions is the passage a conversation is quoted by when the evidence
// is thin (see thinEvidence): every hit of it, in order of rank, each
// turn once. What the question asks is said in none of them, so each
// mention of its subject is as likely as another to tell it.
func mentions(hs []sessions.Hit) string {
	text := quote(hs[0])
	for _, h := range hs[1:] {
		for _, l := range strings.Split(quote(h), "\n") {
			if !strings.Contains(text, saidOf(l)) {
				text += "\n" + l
			}
		}
	}
	return text
}

// quote is the text of a hit as a bundle quotes it: the conversation's
// turns, each labelled with its speaker (sessions.Query.Turns), unmarked.
// A relative time said in it ("yesterday", "last week") gets the dates it
// named then beside it: read later, it names another day.
func quote(h sessions.Hit) string {
	return when.Annotate(strings.NewReplacer("«", "", "»", "").Replace(h.Snippet), h.Time)
}

// unechoed returns passage without the turns that say again what the turn
// before them said (the acknowledgement "Noted: dentist on 21 May, with
// Omar." of the message that set it): a line read twice costs tokens and
// tells nothing new.
func (r *retrieval) unechoed(passage string) string {
	lines := strings.Split(passage, "\n")
	out := lines[:1]
	for i := 1; i < len(lines); i++ {
		if !r.echoes(lines[i], lines[i-1]) {
			out = append(out, lines[i])
		}
	}
	return strings.Join(out, "\n")
}

// echoes reports whether line says again what prev said: prev asks
// nothing (a reply to a question answers it, in the question's words more
// often than not), most of line's words (echoShare) are prev's and every
// number of it is ("The capture service now listens on port 8080" after
// "the capture service listens on some port, fix it" tells the port),
// and it holds no word of the question prev does not. Dates written
// beside relative ones when quoted are not what either said.
func (r *retrieval) echoes(line, prev string) bool {
	if strings.Contains(prev, "?") {
		return false
	}
	a, b := stemSet(unannotated(saidOf(line))), stemSet(unannotated(saidOf(prev)))
	if len(a) == 0 {
		return false
	}
	in := 0
	for w := range a {
		switch {
		case b[w]:
			in++
		case strings.ContainsAny(w, "0123456789"):
			return false
		}
	}
	if float64(in) < echoShare*float64(len(a)) {
		return false
	}
	return holdsAll(r.match.matched(prev), r.match.matched(line))
}

// annotation is a date when.Annotate writes beside a time said without
// its year or relative to the day it was said: " (2023-05-12)",
// " (2023-05-15 to 2023-05-21)".
var annotation = regexp.MustCompile(` \(\d{4}-\d{2}-\d{2}( to \d{4}-\d{2}-\d{2})?\)`)

// unannotated returns text without the dates quote wrote beside it.
func unannotated(text string) string { return annotation.ReplaceAllString(text, "") }

// echoShare is the share of a turn's words the turn before must hold for
// it to say nothing new.
const echoShare = 2.0 / 3

// matchedTurn is the turn a hit was found by, the first of its passage.
// A conversation is judged by the better of it alone and the whole
// passage: the turns after it are quoted for the answer they may hold,
// and, longer, would lower the evidence of a turn that holds the question
// (a passage is measured as BM25 measures a text, its length counting
// against it), so that a conversation whose short passage says the
// question's words of something else went first.
func matchedTurn(h sessions.Hit) string {
	first, _, _ := strings.Cut(h.Snippet, "\n")
	return strings.NewReplacer("«", "", "»", "").Replace(first)
}

// saidOf is what a line of a passage says: without its speaker's label
// and the marks of a cut ("…").
func saidOf(line string) string {
	for _, role := range []transcript.Role{transcript.User, transcript.Assistant} {
		if rest, ok := strings.CutPrefix(line, string(role)+": "); ok {
			line = rest
			break
		}
	}
	return strings.Trim(line, "…")
}

// byConversation groups hits by conversation, best first, each with its
// hits in order.
func byConversation(hits []sessions.Hit) [][]sessions.Hit {
	var out [][]sessions.Hit
	at := map[int64]int{}
	for _, h := range hits {
		i, ok := at[h.Conversation]
		if !ok {
			i = len(out)
			at[h.Conversation] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], h)
	}
	return out
}

// laterTie is how close to an earlier conversation's passage a later one
// that holds the same words of the question must score to go before it
// (see saidLater): as good, but for the search's rank of its block.
const laterTie = 0.95

// saidLater puts a passage of a past session just before the passage of
// an earlier conversation that holds no word of the question it does not
// and scores less than 1/laterTie of it: told again later, what was said
// of the same thing tells what holds now (the gift of the latest birthday,
// the town moved to last). Between two such passages the score tells
// nothing else: the search's rank of a block weighs its other words and
// its length, and the recency boost, counted from now, barely tells apart
// conversations days apart months ago. Each passage is compared with the
// others' scores as judged, so a chain of them does not lift the last.
func saidLater(cs []*candidate) {
	byDate := slices.Clone(cs)
	slices.SortStableFunc(byDate, func(a, b *candidate) int { return a.date.Compare(b.date) })
	judged := make([]float64, len(byDate))
	for i, c := range byDate {
		judged[i] = c.score
	}
	for i, c := range byDate {
		if judged[i] <= 0 || c.date.IsZero() {
			continue
		}
		for j, d := range byDate[:i] {
			if judged[j] <= c.score || judged[i] < laterTie*judged[j] || !d.date.Before(c.date) || !holdsAll(c.held, d.held) {
				continue
			}
			c.score = math.Nextafter(judged[j], math.Inf(1))
			c.why = append(c.why, "said after "+d.name)
		}
	}
}

// holdsAll reports whether a holds every term of b.
func holdsAll(a, b []int) bool {
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

// keepSessions keeps the sessionHits best judged of the conversations'
// passages, twice as many when the question says a time (the words alone
// and in that time are searched), and drops the others from the
// candidates; all of them when the evidence is thin.
func (r *retrieval) keepSessions(found []*candidate) []*candidate {
	n := sessionHits
	if !r.window.IsZero() {
		n *= 2
	}
	if r.thin = r.thinEvidence(); r.thin {
		// Every conversation that holds what was found of the
		// question is as good as any: the bundle quotes them all,
		// each by every mention (breadth over depth).
		for _, c := range found {
			c.passage.text = mentions(c.hits)
			c.held = r.match.matched(c.title + "\n" + c.passage.text)
		}
		return found
	}
	if len(found) <= n {
		return found
	}
	slices.SortStableFunc(found, func(a, b *candidate) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.name, b.name))
	})
	for _, c := range found[n:] {
		delete(r.cands, c.name)
	}
	return found[:n]
}

// thinEvidence reports whether the evidence found is thin: some word of
// the question is held by nothing found, and nothing holds more than half
// the question's weight (see weights: a word held by nothing weighs the
// most, one held by every candidate, the name asked of, the least).
// "where does Omar live now?" with the name alone found, or "what hobby
// did Mateo pick up?" with the name and "never picks up" found, is thin;
// "which payment service are we using for Atlas now?" with all but
// "using" found is not.
func (r *retrieval) thinEvidence() bool {
	var held []int
	for _, c := range r.cands {
		if c.score > 0 {
			held = append(held, c.held...)
		}
	}
	if len(r.uncovered(held)) == 0 {
		return false
	}
	total := 0.0
	for _, x := range r.w {
		total += x
	}
	for _, c := range r.cands {
		s := 0.0
		for _, i := range c.held {
			s += r.w[i]
		}
		if c.score > 0 && 2*s > total {
			return false
		}
	}
	return true
}

// explainSessions says why each passage of a past session was picked: and
// which words of the question it holds that the entries likely to fit the
// budget do not.
func (r *retrieval) explainSessions() {
	var held []int
	for _, c := range r.likely() {
		if c.kind == "entry" {
			held = append(held, c.held...)
		}
	}
	uncovered := r.uncovered(held)
	for _, c := range r.order {
		if c.kind != "session" {
			continue
		}
		why := "said in a past session"
		if words := r.words(intersect(c.held, uncovered)); len(words) > 0 {
			why += "; no entry covers " + strings.Join(words, ", ")
		}
		c.why = append([]string{why}, c.why...)
	}
}

// likely returns the candidates, best first, whose passages would fill the
// budget if nothing else took any.
func (r *retrieval) likely() []*candidate {
	used := 0
	for i, c := range r.order {
		used += Tokens(c.title) + Tokens(c.passage.text) + itemFrame
		if used > r.req.Budget {
			return r.order[:i]
		}
	}
	return r.order
}

// itemFrame is about what an item's lines cost besides its title and
// passage: number, type, date, source, why and score.
const itemFrame = 30

// intersect returns the members of a that are in b.
func intersect(a, b []int) []int {
	var out []int
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// shortID shortens a session id for a title.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// homeRelative writes a folder under a home folder (/home/NAME, /Users/NAME)
// as ~/…, as a shell shows it: the owner's name is not a word said in the
// session, and a question that names a person of that name is not about
// every session of the machine.
func homeRelative(dir string) string {
	for _, home := range []string{"/home/", "/Users/"} {
		rest, ok := strings.CutPrefix(dir, home)
		if !ok {
			continue
		}
		if _, under, ok := strings.Cut(rest, "/"); ok && under != "" {
			return "~/" + under
		}
	}
	return dir
}
