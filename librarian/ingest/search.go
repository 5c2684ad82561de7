package ingest

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/librarian/transcript"
)

// Hit is a passage of a past session that matches a search.
type Hit struct {
	Conversation int64             `json:"conversation"`
	Session      string            `json:"session"`
	Source       transcript.Source `json:"source"`
	Project      string            `json:"project"`
	// Time and Speaker are those of the message the snippet starts in.
	Time    time.Time       `json:"time"`
	Speaker transcript.Role `json:"speaker"`
	// First is when the conversation's first message was sent: with
	// Session, its Ref.
	First   time.Time `json:"first_message_at"`
	Score   float64   `json:"score"`
	Snippet string    `json:"snippet"`
}

// Marks around matched terms in a snippet, the same as the vault search's.
const (
	markOpen  = "«"
	markClose = "»"
)

// DefaultLimit is the number of hits a search returns unless asked.
const DefaultLimit = 10

// rerankDepth is the number of best BM25 passages of a natural query that
// are ranked again by how much of it each holds (query.Cover).
const rerankDepth = 40

// Query is a search of past sessions.
type Query struct {
	Text string // what to look for, in the syntax of package query
	// Plan is Text as package query parsed it, when the caller has it
	// already (nil: Search parses Text).
	Plan    *query.Plan
	Limit   int       // at most this many hits; 0 means DefaultLimit
	Project string    // only conversations of this project
	Since   time.Time // only conversations that went on at or after Since
	Until   time.Time // only conversations that began before Until
	// Snippet is the length of a hit's snippet in tokens; 0 means
	// DefaultSnippet.
	Snippet int
}

// DefaultSnippet is the length of a snippet, in tokens, unless asked.
const DefaultSnippet = 16

// Ref is the Ref of the hit's conversation.
func (h Hit) Ref() string { return Ref(h.Session, h.First) }

// Search finds what was said in past sessions, best match first: a
// question or words, "phrases", OR, NOT and prefix* as package query reads
// them (a field: means nothing in a transcript, so title:x searches x). A
// message counts with the few around it, so the words of a question and of
// its answer match together. A natural query's best passages are ranked
// again by how much of it each holds, and how close together.
func (s *Store) Search(ctx context.Context, q Query) ([]Hit, error) {
	hits := []Hit{}
	plan := q.Plan
	if plan == nil {
		plan = query.Parse(q.Text)
	}
	if plan.Empty() {
		return hits, nil
	}
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	if q.Snippet <= 0 {
		q.Snippet = DefaultSnippet
	}
	fetch := q.Limit
	if plan.Natural() {
		fetch = max(fetch, rerankDepth)
	}
	type found struct {
		block int64
		hit   Hit
	}
	var rows []found
	since, until := int64(math.MinInt64), int64(math.MaxInt64)
	if !q.Since.IsZero() {
		since = millis(q.Since)
	}
	if !q.Until.IsZero() {
		until = millis(q.Until)
	}
	run := func() error {
		// The snippets are made after the ranking, of the blocks it keeps:
		// snippet() in this statement would be computed for every match.
		rs, err := s.db.QueryContext(ctx, `SELECT b.id, c.id, c.session, c.source, c.project, c.first_at, bm25(blocks_fts)
			FROM blocks_fts JOIN blocks b ON b.id = blocks_fts.rowid JOIN conversations c ON c.id = b.conversation
			WHERE blocks_fts MATCH ? AND (? = '' OR c.project = ?) AND c.last_at >= ? AND c.first_at < ?
			ORDER BY bm25(blocks_fts), b.id LIMIT ?`, plan.Unfielded(), q.Project, q.Project, since, until, fetch)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var f found
			var first int64
			if err := rs.Scan(&f.block, &f.hit.Conversation, &f.hit.Session, &f.hit.Source, &f.hit.Project, &first, &f.hit.Score); err != nil {
				return err
			}
			f.hit.First = fromMillis(first)
			f.hit.Score = -f.hit.Score
			rows = append(rows, f)
		}
		return rs.Err()
	}
	if err := run(); err != nil {
		return nil, fmt.Errorf("search sessions for %q: %w", q.Text, err)
	}
	marker := plan.Marker()
	texts := make([]string, len(rows))
	for i, f := range rows {
		if err := s.db.QueryRowContext(ctx, `SELECT coalesce((SELECT text FROM blocks_fts WHERE rowid = ?), '')`, f.block).Scan(&texts[i]); err != nil {
			return nil, fmt.Errorf("search sessions for %q: %w", q.Text, err)
		}
		if plan.Natural() {
			rows[i].hit.Score *= marker.Cover(texts[i]).Boost()
		}
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rows[b].hit.Score, rows[a].hit.Score) })
	for _, i := range order[:min(len(order), q.Limit)] {
		f, text := rows[i], texts[i]
		f.hit.Score = math.Round(f.hit.Score*1000) / 1000
		f.hit.Snippet = query.OneLine(marker.Snippet(text, q.Snippet, markOpen, markClose, "…"))
		if err := s.attribute(ctx, f.block, &f.hit); err != nil {
			return nil, err
		}
		hits = append(hits, f.hit)
	}
	return hits, nil
}

// attribute finds who said the snippet and when: the first message of the
// block that holds the first matched term.
func (s *Store) attribute(ctx context.Context, block int64, h *Hit) error {
	term := ""
	if _, after, ok := strings.Cut(h.Snippet, markOpen); ok {
		term, _, _ = strings.Cut(after, markClose)
	}
	term = strings.ToLower(term)
	rows, err := s.db.QueryContext(ctx, `SELECT pos, session, role, at, text, tools, cwd FROM messages WHERE block = ? ORDER BY id`, block)
	if err != nil {
		return fmt.Errorf("read search block %d: %w", block, err)
	}
	defer rows.Close()
	set := false
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return err
		}
		var w strings.Builder
		writeBlockText(&w, m)
		has := term != "" && strings.Contains(strings.ToLower(w.String()), term)
		if !set || has {
			h.Time, h.Speaker, set = m.Time, m.Role, true
		}
		if has {
			break
		}
	}
	return rows.Err()
}
