package index

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/vault"
)

// Query is a search of the index.
type Query struct {
	Text string // what to look for, in the syntax of package query
	// Plan is the query as the request read it (query.Parse), or as a
	// program made it (query.Plain); nil: Text as typed. When set, Text
	// is its text: Search takes the plan as given and never reads Text
	// again, but a watcher in another process, to which a plan does not
	// travel, reads Text again: at Read, or as typed.
	Plan *query.Plan `json:"-"`
	// Read is when Plan was read (query.Plan.Now), set by Search: a
	// watcher reads Text again at it (query.Parse), so that it weighs the
	// days the question names as this process would. Zero: Text as typed
	// (query.Plain).
	Read    time.Time `json:",omitzero"`
	Limit   int       // at most this many results; 0 means DefaultLimit
	Type    string    // only entries of this type
	Tag     string    // only entries with this tag
	Project string    // only entries of this project
	Scope   string    // only entries in this folder or below it, such as "contacts"
	Since   time.Time // only entries that happened (vault.Happened, else modified) at or after Since
	Until   time.Time // only entries that happened (vault.Happened, else modified) before Until
	All     bool      // also superseded and archived entries, and summaries
}

// DefaultLimit is the number of results a search returns unless asked.
const DefaultLimit = 10

// Result is one entry a search found. It lists the entry as every command
// that lists entries does (vault.Summary), with the search's score (higher
// is better) and a snippet of the body in which the matched terms are
// marked «like this».
type Result struct {
	vault.Summary
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet"`
}

// Marks around matched terms in a snippet.
const (
	MarkOpen  = "«"
	MarkClose = "»"
)

// rankWindow is the number of matches up to which a search ranks every
// match: with BM25 over the whole entry, a match in the name or title
// weighing more than one in the body (see bm25Weights).
//
// FTS5's BM25 counts every entry that holds each query term, so on a vault
// where a query matches tens of thousands of entries, exact ranking would
// cost far more than the rest of the search. Beyond rankWindow matches a
// search ranks instead, with the same BM25, the rankWindow most recently
// changed matches (from fts_recent, which holds the recentSize or more most
// recently changed entries, so that BM25 counts few), and adds the best of
// the headWindow most recently changed entries that match in their name,
// title or tags (from fts_head, scored by those fields). Newer entries and
// those whose name or title answers the query are the likelier answers,
// and each of those rankings takes a few milliseconds.
const (
	rankWindow = 500
	headWindow = 200
)

// Search returns the entries that match q, best first. Filters are applied
// inside the query, so a limit with a filter still returns Limit results
// when that many match. A natural query (see package query) finds the
// entries that hold any of its terms, those that hold more of them and
// closer together first. A watcher in another process answers it if it
// can (see serve.go).
func (ix *Index) Search(ctx context.Context, q Query) ([]Result, error) {
	if q.Plan != nil {
		q.Text, q.Read = q.Plan.Text(), q.Plan.Now()
	}
	if !ix.checked { // see Checked
		res, err := ix.searchWatcher(ctx, q)
		if err == nil {
			return res, nil
		}
		if !errors.Is(err, errNoWatcher) {
			ix.notify(fmt.Sprintf("%v; searching here", err))
		}
	}
	return ix.searchHere(ctx, q)
}

// plan returns q's plan: the one the caller read, else its text read
// again at the time the caller read it, or as typed (query.Plain), as a
// watcher reads a query sent to it.
func (q Query) plan() *query.Plan {
	switch {
	case q.Plan != nil:
		return q.Plan
	case !q.Read.IsZero():
		return query.Parse(q.Text, q.Read)
	}
	return query.Plain(q.Text)
}

// searchHere is Search in this process. Package query's expressions are
// always well formed (FuzzTranslate holds it to FTS5), so an error here is
// the index's, not the query's.
func (ix *Index) searchHere(ctx context.Context, q Query) ([]Result, error) {
	plan := q.plan()
	if plan.Empty() {
		return []Result{}, nil
	}
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	for attempt := 0; ; attempt++ {
		db, err := ix.forRead(ctx)
		if err != nil {
			return nil, err
		}
		res, err := search(ctx, db, plan, q)
		if err == nil {
			return res, nil
		}
		if retry, derr := ix.damaged(ctx, err); !retry || attempt > 0 {
			return nil, fmt.Errorf("search %q: %w", q.Text, derr)
		}
	}
}

// hit is a matching entry and its score.
type hit struct {
	id    int64
	score float64
}

func search(ctx context.Context, db *sql.DB, plan *query.Plan, q Query) ([]Result, error) {
	expr := plan.Expr()
	join, filter, args := q.filter()
	with := func(first ...any) []any { return append(first, args...) }
	// from is the FROM clause of a table t as a, with the entries join
	// when the filters need it.
	from := func(t, a string) string {
		if join {
			return t + " " + a + " JOIN entries e ON e.id = " + a + ".rowid"
		}
		return t + " " + a
	}
	// probe returns the first rankWindow+1 matches, oldest or newest
	// first. Oldest first tells as well whether there are more than
	// rankWindow and is cheaper: FTS5 reads a term's matches newest first
	// only after loading all of them.
	probe := func(order string) ([]int64, error) {
		return ids(ctx, db, `SELECT f.rowid FROM `+from("fts", "f")+`
			WHERE fts MATCH ?`+filter("f")+` ORDER BY f.rowid `+order+` LIMIT `+fmt.Sprint(rankWindow+1), with(expr)...)
	}
	matches, err := probe("ASC")
	if err != nil || len(matches) == 0 {
		return []Result{}, err
	}
	// exact ranks the matches between the lowest and highest of ids.
	exact := func(ids []int64) ([]hit, error) {
		lo, hi := slices.Min(ids), slices.Max(ids)
		return scan(ctx, db, `SELECT f.rowid, -bm25(fts, `+bm25Weights+`) FROM `+from("fts", "f")+`
			WHERE fts MATCH ? AND f.rowid BETWEEN ? AND ?`+filter("f"), with(expr, lo, hi)...)
	}
	var hits []hit
	unsure := map[int64]bool{} // matches in fts_head alone
	if len(matches) <= rankWindow {
		if hits, err = exact(matches); err != nil {
			return nil, err
		}
	} else {
		// The two rankings, side by side on the two connections.
		var (
			head    []hit
			headErr error
			wg      sync.WaitGroup
		)
		if !plan.InBody() { // fts_head has no body
			wg.Go(func() {
				head, headErr = scan(ctx, db, `SELECT h.rowid, -bm25(fts_head, `+headWeights+`) FROM `+from("fts_head", "h")+`
					WHERE fts_head MATCH ?`+filter("h")+` ORDER BY h.rowid DESC LIMIT ?`,
					append(with(expr), headWindow)...)
			})
		}
		hits, err = scan(ctx, db, `SELECT r.rowid, -bm25(fts_recent, `+bm25Weights+`) FROM `+from("fts_recent", "r")+`
			WHERE fts_recent MATCH ?`+filter("r")+` ORDER BY r.rowid DESC LIMIT ?`,
			append(with(expr), rankWindow)...)
		wg.Wait()
		if err := errors.Join(err, headErr); err != nil {
			return nil, err
		}
		recent := make(map[int64]bool, len(hits))
		for _, h := range hits {
			recent[h.id] = true
		}
		for _, h := range head {
			if !recent[h.id] {
				hits = append(hits, h)
				unsure[h.id] = true
			}
		}
		if len(hits) < q.Limit {
			// The filters leave too few recent entries: rank the newest
			// rankWindow matches instead.
			newest, err := probe("DESC")
			if err != nil || len(newest) == 0 { // none left since the first probe
				return []Result{}, err
			}
			if hits, err = exact(newest[:min(len(newest), rankWindow)]); err != nil {
				return nil, err
			}
			clear(unsure)
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(b.id, a.id))
	})
	keep := q.Limit
	if plan.Natural() {
		keep = max(keep, rerankDepth)
	}
	if hits, err = confirm(ctx, db, plan, keep, hits, unsure); err != nil {
		return nil, err
	}
	return fetch(ctx, db, plan, q.Limit, hits)
}

// rerankDepth is the number of best BM25 hits of a natural query that are
// ranked again by how much of the query each holds, and how close
// together (query.Cover): enough that an entry holding every term, which
// BM25 may put below ones repeating a single term, is among them.
const rerankDepth = 40

// confirm returns the first limit of hits that match the query as a
// whole. Those in unsure matched in fts_head, which has no body: if the
// query excludes something (NOT), the body may hold it, so they are
// checked against the whole entry.
func confirm(ctx context.Context, db *sql.DB, plan *query.Plan, limit int, hits []hit, unsure map[int64]bool) ([]hit, error) {
	if len(unsure) == 0 || !plan.Excludes() {
		return hits[:min(len(hits), limit)], nil
	}
	expr := plan.Expr()
	// One at a time: FTS5 seeks to each, where one statement over them
	// all would walk every match between the first and the last.
	st, err := db.PrepareContext(ctx, `SELECT rowid FROM fts WHERE fts MATCH ? AND rowid = ?`)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var out []hit
	for _, h := range hits {
		if len(out) == limit {
			break
		}
		if unsure[h.id] {
			var id int64
			err := st.QueryRowContext(ctx, expr, h.id).Scan(&id)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return nil, err
			}
		}
		out = append(out, h)
	}
	return out, nil
}

// ids runs a query of ids.
func ids(ctx context.Context, db *sql.DB, sqlText string, args ...any) ([]int64, error) {
	rows, err := db.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// scan runs a query of (id, score) rows.
func scan(ctx context.Context, db *sql.DB, sqlText string, args ...any) ([]hit, error) {
	rows, err := db.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []hit
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.id, &h.score); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// fetch reads the results for the first limit of hits, in their order,
// with snippets of their bodies. A natural query's hits are first ranked
// again, by BM25 times their cover's boost.
func fetch(ctx context.Context, db *sql.DB, plan *query.Plan, limit int, hits []hit) ([]Result, error) {
	if len(hits) == 0 {
		return []Result{}, nil
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.id
	}
	rerank := plan.Natural() && len(hits) > 1
	head := "''"
	if rerank {
		head = `coalesce((SELECT name || char(10) || title || char(10) || tags FROM fts WHERE rowid = entries.id), '')`
	}
	rows, err := db.QueryContext(ctx, `SELECT `+summaryColumns+`, id, coalesce((SELECT body FROM fts WHERE rowid = entries.id), ''), `+head+`
		FROM entries WHERE id IN (SELECT value FROM json_each(?))`, jsonList(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	marker := plan.Marker()
	type row struct {
		r    Result
		body string
	}
	byID := map[int64]row{}
	boost := map[int64]float64{}
	for rows.Next() {
		var id int64
		var body, head string
		s, err := scanSummary(rows, &id, &body, &head)
		if err != nil {
			return nil, err
		}
		byID[id] = row{Result{Summary: s}, body}
		if rerank {
			boost[id] = marker.Cover(head + "\n" + body).Boost()
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if rerank {
		for i := range hits {
			if b, ok := boost[hits[i].id]; ok {
				hits[i].score *= b
			}
		}
		slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(b.score, a.score) })
	}
	out := []Result{}
	for _, h := range hits {
		if len(out) == limit {
			break
		}
		if r, ok := byID[h.id]; ok {
			r.r.Score = h.score
			r.r.Snippet = query.OneLine(marker.Snippet(r.body, snippetTokens, MarkOpen, MarkClose, "…"))
			out = append(out, r.r)
		}
	}
	return out, nil
}

// snippetTokens is the length of a snippet, in words.
const snippetTokens = 16

// hiddenEntries selects what a search leaves out unless All: superseded and
// archived entries, and the curator's summaries, which restate other entries
// that search finds themselves, and so are left out unless asked for by
// type.
const hiddenEntries = "superseded_by != '' OR archived != '' OR type = 'summary'"

// filter returns the SQL conditions that q's filters make, as a function
// of the alias of the searched table; join says whether they need the
// entries table joined as e.
func (q Query) filter() (join bool, filter func(alias string) string, args []any) {
	var b strings.Builder
	if q.Type != "" {
		b.WriteString(" AND e.type = ?")
		args = append(args, q.Type)
	}
	if q.Project != "" {
		b.WriteString(" AND e.project = ?")
		args = append(args, q.Project)
	}
	if q.Tag != "" {
		b.WriteString(" AND EXISTS (SELECT 1 FROM tags t WHERE t.entry_id = e.id AND t.tag = ?)")
		args = append(args, q.Tag)
	}
	if s := strings.Trim(q.Scope, "/"); s != "" {
		b.WriteString(" AND (e.folder = ? OR (e.folder >= ? AND e.folder < ?))") // '0' follows '/'
		args = append(args, s, s+"/", s+"0")
	}
	if !q.Since.IsZero() {
		b.WriteString(" AND " + happenedAt("e.") + " >= ?")
		args = append(args, utc(q.Since))
	}
	if !q.Until.IsZero() {
		b.WriteString(" AND " + happenedAt("e.") + " < ?")
		args = append(args, utc(q.Until))
	}
	join = b.Len() > 0
	conds := b.String()
	return join, func(alias string) string {
		if q.All {
			return conds
		}
		// The few hidden entries, from the partial index entries_hidden,
		// rather than a look at every match's row: without it each search
		// scanned the whole table, 0.1 s a query at 100k entries.
		hidden := hiddenEntries
		if q.Type == "summary" {
			hidden = "(" + hiddenEntries + ") AND (superseded_by != '' OR archived != '')"
		}
		return conds + " AND " + alias + ".rowid NOT IN (SELECT id FROM entries WHERE " + hidden + ")"
	}, args
}
