package extractor

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// globLimit bounds the entries one glob step lists.
const globLimit = 100_000

// RunQuery runs the vault's learned query name with args for its
// parameters, project standing for {project} unless args say otherwise,
// into a bundle within budget (0: DefaultBudget), and counts the run in
// the query's use count and latency.
func RunQuery(ctx context.Context, m Memory, name string, args map[string]string, budget int, project string) (Bundle, error) {
	start := time.Now() // latency is measured on the real clock, whatever m.Now says
	qs, err := LoadQueries(m.Vault.Root())
	if err != nil {
		return Bundle{}, err
	}
	q, err := qs.Get(name)
	if err != nil {
		return Bundle{}, err
	}
	vals, err := q.Bind(args, project)
	if err != nil {
		return Bundle{}, err
	}
	if m.Index, err = m.Index.Checked(ctx); err != nil {
		return Bundle{}, fmt.Errorf("run learned query %q: %w", name, err)
	}
	b, err := runQuery(ctx, m, q, vals, budget)
	if err != nil {
		return Bundle{}, err
	}
	recordQueryUse(ctx, m.Vault.Root(), q.Name, time.Since(start), m.now())
	return b, nil
}

// runQuery runs a learned query's steps with its parameters bound.
func runQuery(ctx context.Context, m Memory, q Query, vals map[string]string, budget int) (Bundle, error) {
	if budget == 0 {
		budget = DefaultBudget
	}
	if budget < MinBudget {
		return Bundle{}, fmt.Errorf("run learned query %q: %w: %d tokens, the least is %d", q.Name, ErrBudget, budget, MinBudget)
	}
	bind := func(s string) string {
		return placeholder().ReplaceAllStringFunc(s, func(p string) string { return vals[p[1:len(p)-1]] })
	}
	x := &queryRun{r: newRetrieval(m, Request{Query: q.Name, Budget: budget}, terms{}), now: m.now(), docs: map[string]*entry.Entry{}}
	x.r.plan = Plan{By: "query:" + q.Name, Searches: []string{}}
	var searched []*query.Plan
	for i, s := range q.Steps {
		var err error
		where := fmt.Sprintf("step %d", i+1)
		switch {
		case s.Search != "":
			text := bind(s.Search)
			p := query.Plain(text)
			searched = append(searched, p)
			x.r.plan.Searches = append(x.r.plan.Searches, text)
			err = x.search(ctx, index.Query{Text: text, Plan: p, Scope: bind(s.Scope), Type: bind(s.Type), Tag: bind(s.Tag), Limit: s.Limit}, where)
		case s.Glob != "":
			err = x.glob(ctx, bind(s.Glob), where)
		case s.Filter != "":
			err = x.filter(ctx, bind(s.Filter))
		case s.Links != "":
			err = x.links(ctx, s.Links, where)
		case s.Read > 0:
			x.list = x.list[:min(len(x.list), s.Read)]
		}
		if err != nil {
			return Bundle{}, fmt.Errorf("run learned query %q: %s: %w", q.Name, where, err)
		}
	}
	// Passages are judged by the words the plan searched for.
	x.r.t = termsOf(searched...)
	x.r.match = matcher{t: x.r.t}
	var texts []string
	for _, c := range x.list {
		if err := x.r.read(ctx, c); err != nil {
			return Bundle{}, err
		}
		texts = append(texts, c.body)
	}
	x.r.w = weights(x.r.t, texts)
	x.r.order = x.r.order[:0]
	for i, c := range x.list {
		if c.body == "" {
			continue
		}
		c.passage, _ = best(c.blocks, x.r.match, x.r.w)
		c.held = x.r.match.matched(c.title + "\n" + c.passage.text)
		// The plan's order is the ranking.
		c.score = 1 - float64(i)/float64(len(x.list)+1)
		x.r.order = append(x.r.order, c)
	}
	x.r.label = "Learned query " + q.Name
	if q.Description != "" {
		x.r.label += " (" + q.Description + ")"
	}
	b := x.r.pack()
	// The plan's author chose what answers it.
	if len(b.Items) > 0 {
		b.Confidence, b.Level = 1, "high"
	}
	return b, nil
}

// queryRun is a learned query's list of entries as its steps build it.
type queryRun struct {
	r    *retrieval
	now  time.Time
	list []*candidate
	docs map[string]*entry.Entry // read by filter steps, each once
}

// put adds an entry to the list, unless it is there already.
func (x *queryRun) put(name, why string) *candidate {
	if c, ok := x.r.cands[name]; ok {
		return c
	}
	c := x.r.add(name)
	c.why = append(c.why, why)
	x.list = append(x.list, c)
	return c
}

func (x *queryRun) search(ctx context.Context, q index.Query, where string) error {
	if q.Limit == 0 {
		q.Limit = searchLimit
	}
	res, err := x.r.m.Index.Search(ctx, q)
	if err != nil {
		return err
	}
	for _, h := range res {
		c := x.put(h.Name, fmt.Sprintf("%s: search %s", where, q.Text))
		c.title, c.typ, c.date = h.Title, h.Type, h.Happened
	}
	return nil
}

func (x *queryRun) glob(ctx context.Context, pattern, where string) error {
	pattern = strings.TrimSuffix(strings.Trim(pattern, "/"), ".md")
	if _, err := path.Match(pattern, ""); err != nil {
		return fmt.Errorf("glob %q: %w", pattern, err)
	}
	// The folders before the first wildcard narrow the listing.
	scope := pattern
	if i := strings.IndexAny(pattern, `*?[\`); i >= 0 {
		scope = path.Dir(pattern[:i+1])
	}
	if scope == "." {
		scope = ""
	}
	res, err := x.r.m.Index.Latest(ctx, index.Listing{Scope: scope, Limit: globLimit})
	if err != nil {
		return err
	}
	for _, h := range res {
		if ok, _ := path.Match(pattern, h.Name); ok {
			c := x.put(h.Name, fmt.Sprintf("%s: glob %s", where, pattern))
			c.title, c.typ, c.date = h.Title, h.Type, h.Happened
		}
	}
	return nil
}

func (x *queryRun) links(ctx context.Context, dir, where string) error {
	from := append([]*candidate(nil), x.list...)
	for _, c := range from {
		var ls []index.Link
		if dir == "out" || dir == "both" {
			out, err := x.r.m.Index.Links(ctx, c.name)
			if err != nil {
				return err
			}
			ls = append(ls, out...)
		}
		if dir == "in" || dir == "both" {
			in, err := x.r.m.Index.Backlinks(ctx, c.name)
			if err != nil {
				return err
			}
			for _, l := range in {
				from := l.From
				ls = append(ls, index.Link{To: &from})
			}
		}
		for _, l := range ls {
			if l.To != nil && *l.To != c.name {
				x.put(*l.To, fmt.Sprintf("%s: linked with %s", where, c.title))
			}
		}
	}
	return nil
}

func (x *queryRun) filter(ctx context.Context, text string) error {
	f, err := parseFilter(text)
	if err != nil {
		return err
	}
	kept := x.list[:0]
	for _, c := range x.list {
		e, ok := x.docs[c.name]
		if !ok {
			doc, err := x.r.m.Vault.Read(ctx, c.name)
			if err != nil && ctx.Err() != nil {
				return ctx.Err()
			}
			// nil: gone or malformed since the index saw it.
			e = doc.Entry
			x.docs[c.name] = e
		}
		if e != nil && f.holds(c.name, e, x.now) {
			kept = append(kept, c)
		}
	}
	x.list = kept
	return nil
}

// filterOp is a filter step: FIELD OP VALUE.
type filterOp struct {
	field, op, value string
}

// parseFilter reads "FIELD OP VALUE".
func parseFilter(s string) (filterOp, error) {
	parts := strings.SplitN(strings.TrimSpace(s), " ", 3)
	if len(parts) != 3 || strings.TrimSpace(parts[2]) == "" {
		return filterOp{}, fmt.Errorf("filter %q: want FIELD OP VALUE, such as \"tags has investor\"", s)
	}
	f := filterOp{field: parts[0], op: parts[1], value: strings.TrimSpace(parts[2])}
	switch f.op {
	case "is", "not", "has":
	case "since", "before":
		if _, err := parseWhen(f.value, time.Time{}); err != nil {
			return f, fmt.Errorf("filter %q: %w", s, err)
		}
	default:
		return f, fmt.Errorf("filter %q: %q: want is, not, has, since or before", s, f.op)
	}
	return f, nil
}

// parseWhen reads a date, an RFC 3339 time, or a time before now: -7d,
// -12h, -2w. With a zero now, a relative time parses to the zero time.
func parseWhen(s string, now time.Time) (time.Time, error) {
	if strings.HasPrefix(s, "-") && len(s) > 2 {
		n, err := strconv.Atoi(s[1 : len(s)-1])
		unit := map[byte]time.Duration{'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[len(s)-1]]
		if err != nil || unit == 0 || n < 0 {
			return time.Time{}, fmt.Errorf("%q: want a number of hours, days or weeks, such as -7d", s)
		}
		if now.IsZero() {
			return now, nil
		}
		return now.Add(-time.Duration(n) * unit), nil
	}
	return vault.ParseTime(s)
}

// holds reports whether the entry name passes the filter. A field the
// entry lacks fails every operator but not.
func (f filterOp) holds(name string, e *entry.Entry, now time.Time) bool {
	var v any
	ok := true
	if f.field == "name" {
		v = name
	} else {
		v, ok = e.Get(f.field)
	}
	switch f.op {
	case "is":
		return ok && sameValue(v, f.value)
	case "not":
		return !ok || !sameValue(v, f.value)
	case "has":
		list, isList := v.([]any)
		if !isList {
			return ok && sameValue(v, f.value)
		}
		for _, x := range list {
			if sameValue(x, f.value) {
				return true
			}
		}
		return false
	}
	s, isText := v.(string)
	if !ok || !isText {
		return false
	}
	t, err := vault.ParseTime(s)
	if err != nil {
		return false
	}
	at, _ := parseWhen(f.value, now)
	if f.op == "since" {
		return !t.Before(at)
	}
	return t.Before(at)
}

// sameValue compares a frontmatter value with a filter's text: as written,
// ignoring case.
func sameValue(v any, text string) bool {
	switch x := v.(type) {
	case string:
		return strings.EqualFold(x, text)
	case nil:
		return text == "null" || text == ""
	default:
		return strings.EqualFold(fmt.Sprint(x), text)
	}
}

// errNoSteps is returned for a learned query made from a question with
// nothing to search for.
var errNoSteps = errors.New("the question has no words to search for")

// FromQuestion makes a learned query that answers question as retrieve
// does offline: a search for its words in each folder of the scope, then
// the entries the hits link to. Its first phrase is the question.
func FromQuestion(name, question string, scope []string) (Query, error) {
	t := analyze(question)
	if t.expr == "" {
		return Query{}, fmt.Errorf("learned query %q: %w", name, errNoSteps)
	}
	q := Query{Name: name, Phrases: []string{strings.TrimSpace(question)}}
	scope, err := normalizeScope(scope)
	if err != nil {
		return Query{}, fmt.Errorf("learned query %q: %w", name, err)
	}
	if len(scope) == 0 {
		scope = []string{""}
	}
	// A question is saved as the words it searches for, which read as
	// what the step does and still search as a question does.
	search := t.expr
	if t.plan.Natural() {
		search = strings.Join(t.plan.Words(), " ")
	}
	for _, s := range scope {
		q.Steps = append(q.Steps, Step{Search: search, Scope: s})
	}
	q.Steps = append(q.Steps, Step{Links: "out"})
	return q, q.Check()
}
