package sessions

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/transcript"
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
	// Plan is the query as the request read it (query.Parse), or as a
	// program made it (query.Plain); nil: Text as typed. Search takes it
	// as given.
	Plan    *query.Plan
	Limit   int    // at most this many hits; 0 means DefaultLimit
	Project string // only conversations of this project
	// Conversation, when not 0, keeps only the passages of that
	// conversation (the ID of a Hit).
	Conversation int64
	Since        time.Time // only conversations that went on at or after Since
	Until        time.Time // only conversations that began before Until
	// Snippet is the length of a hit's snippet in tokens; 0 means
	// DefaultSnippet.
	Snippet int
	// PassageOnly ranks each passage by itself, not lifted by the other
	// passages of its conversation (see pool): for a caller that quotes
	// one passage and judges what that passage holds.
	PassageOnly bool
	// Turns quotes each hit by whole turns rather than a snippet: the
	// message of its passage that holds the most of the query, with the
	// reply that follows a user's message, in Snippet tokens, each turn
	// labelled with its speaker (see turnsPassage).
	Turns bool
	// Follow is the most turns quoted after the matched one, when Turns
	// (see follow); 0 means 1: the reply, or the assistant's next words.
	Follow int
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
// again by how much of it each holds, and how close together, and the
// best passage of each conversation is lifted by the others (see pool).
func (s *Store) Search(ctx context.Context, q Query) ([]Hit, error) {
	hits := []Hit{}
	plan := q.Plan
	if plan == nil {
		plan = query.Plain(q.Text)
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
			WHERE blocks_fts MATCH ? AND (? = '' OR c.project = ?) AND (? = 0 OR c.id = ?) AND c.last_at >= ? AND c.first_at < ?
			ORDER BY bm25(blocks_fts), b.id LIMIT ?`, plan.Unfielded(), q.Project, q.Project, q.Conversation, q.Conversation, since, until, fetch)
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
	pooling := plan.Natural() && !q.PassageOnly
	// day tells the passages that name the day the question names (see
	// query.Cover): pooled, the conversation that names it is lifted.
	day := make([]bool, len(rows))
	for i, f := range rows {
		if err := s.db.QueryRowContext(ctx, `SELECT coalesce((SELECT text FROM blocks_fts WHERE rowid = ?), '')`, f.block).Scan(&texts[i]); err != nil {
			return nil, fmt.Errorf("search sessions for %q: %w", q.Text, err)
		}
		if plan.Natural() {
			c := marker.Cover(texts[i])
			if pooling {
				day[i], c.Day = c.Day, false
			}
			rows[i].hit.Score *= c.Boost()
		}
	}
	if pooling {
		convs, scores := make([]int64, len(rows)), make([]float64, len(rows))
		for i, f := range rows {
			convs[i], scores[i] = f.hit.Conversation, f.hit.Score
		}
		pool(convs, scores, day)
		for i := range rows {
			rows[i].hit.Score = scores[i]
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
		if q.Turns {
			if err := s.turnsPassage(ctx, f.block, marker, q.Snippet, max(q.Follow, 1), &f.hit); err != nil {
				return nil, err
			}
		}
		hits = append(hits, f.hit)
	}
	return hits, nil
}

// pooled is the share of its score a conversation's second best passage
// adds to its best, in pool; each further passage counts this share of
// the one before's.
const pooled = 0.5

// pool lifts the best passage of each conversation by the conversation's
// other passages among those ranked (scores[i] is the passage of
// conversation convs[i]): the second best adds half its score, the third
// a quarter of its, and so on ("max plus decayed sum", the classic
// passage-to-document rule).
//
// Why: a conversation that says the question's words in many passages is
// more likely about them than one that says them once, which a ranking by
// each passage alone cannot see. When the only word of a question the
// answer holds is a name ("where does Mei live now?", answered by "she
// moved to Lyon"), every passage that says the name holds the same share
// of the question, and the best passage alone puts short passages of any
// conversation first; a whole-session ranking counts every mention. The
// decay bounds the lift: however many passages a conversation has, its
// best at most doubles, so a passage that scores more than twice another
// conversation's best still goes before it. Only the best passage is
// lifted: the order of conversations changes, while their other passages
// stay where they were, below the best, and do not crowd other
// conversations out of the first hits.
//
// A conversation of which a passage names the day the question names
// (day[i], see query.Cover) has its best passage boosted by
// query.DayBoost, as retrieve boosts the conversation it quotes: the day
// is as often said a few turns from the question's other words ("When is
// it?" "Thursday 18 May") as beside them.
func pool(convs []int64, scores []float64, day []bool) {
	by := map[int64][]int{}
	for i, c := range convs {
		by[c] = append(by[c], i)
	}
	for _, idx := range by {
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
		add, w := 0.0, pooled
		for _, i := range idx[1:] {
			add += w * scores[i]
			w *= pooled
		}
		scores[idx[0]] += add
		if slices.ContainsFunc(idx, func(i int) bool { return day[i] }) {
			scores[idx[0]] *= 1 + query.DayBoost
		}
	}
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
