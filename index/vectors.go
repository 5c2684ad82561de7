package index

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// Embedder turns texts into vectors: an embeddings endpoint such as an
// OpenAI-compatible /v1/embeddings.
type Embedder interface {
	// Model names the model; vectors of different models are never
	// compared, and changing the model embeds the vault afresh.
	Model() string
	// Embed returns one vector per text, in order, or ctx.Err() if ctx
	// ends first.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// vectorTables hold the entries' chunks and their vectors, in two tables:
// the chunks of each entry, and a vector for each chunk's text. They are
// derived like the rest of the index but cost an endpoint's time to make, so
// they are created on first use rather than with the schema. A chunk names
// the version of its entry by the file's hash: a changed entry's chunks are
// stale until embedded again. Vectors are keyed by the SHA-256 of the
// chunk's text, so an unchanged passage is never embedded twice.
var vectorTables = []string{
	`CREATE TABLE IF NOT EXISTS chunks (
		name  TEXT NOT NULL,
		hash  TEXT NOT NULL,    -- entries.hash of the version chunked
		idx   INTEGER NOT NULL,
		start INTEGER NOT NULL, -- byte offsets in the embedded text: the title, a blank line, the body
		end   INTEGER NOT NULL,
		sum   TEXT NOT NULL,    -- SHA-256 of the chunk's text
		PRIMARY KEY (name, idx)
	) WITHOUT ROWID`,
	`CREATE INDEX IF NOT EXISTS chunks_sum ON chunks(sum)`,
	`CREATE TABLE IF NOT EXISTS vectors (
		sum   TEXT NOT NULL,
		model TEXT NOT NULL,
		vec   BLOB NOT NULL,    -- float32 little-endian, unit length
		PRIMARY KEY (sum, model)
	) WITHOUT ROWID`,
}

// carryVectors copies the chunks and vectors of the index file old into
// the new one a rebuild is making, for the entries whose files are
// unchanged, so that a rebuild does not cost an endpoint's time to embed
// the vault again. It does nothing when old has no vectors; a damaged old
// file loses its vectors, not the rebuild.
func carryVectors(ctx context.Context, db *sql.DB, old string) (err error) {
	if _, err := os.Stat(old); err != nil {
		return nil
	}
	conn, err := db.Conn(ctx) // ATTACH holds for one connection
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS old`, "file:"+old+"?mode=ro"); err != nil {
		return err
	}
	defer func() {
		if _, derr := conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE old`); err == nil {
			err = derr
		}
	}()
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM old.sqlite_master WHERE name = 'vectors'`).Scan(&n); err != nil || n == 0 {
		return err
	}
	stmts := append(slices.Clone(vectorTables),
		`INSERT INTO main.vectors(sum, model, vec) SELECT sum, model, vec FROM old.vectors`,
		`INSERT INTO main.chunks(name, hash, idx, start, end, sum)
			SELECT c.name, c.hash, c.idx, c.start, c.end, c.sum FROM old.chunks c
			JOIN main.entries e ON e.name = c.name AND e.hash = c.hash`)
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// EmbedReport says what Embed did and what is left.
type EmbedReport struct {
	Model    string        `json:"model"`
	Entries  int           `json:"entries"`  // entries chunked and embedded
	Chunks   int           `json:"chunks"`   // chunks stored
	Embedded int           `json:"embedded"` // texts sent to the endpoint (the others were known)
	Pending  int           `json:"pending"`  // entries still to embed
	Took     time.Duration `json:"took_ns"`
}

// embedBatch is how many texts one request to the endpoint carries.
const embedBatch = 64

// Embed chunks and embeds up to limit entries (0: all) that are new or
// changed since they were last embedded with e's model, and forgets the
// chunks of entries that are gone. It is incremental: run it after
// changes, or before a hybrid search, and it does only what changed. The
// endpoint is called without the index's write lock held; an entry that
// changes meanwhile is embedded on the next run.
func (ix *Index) Embed(ctx context.Context, e Embedder, limit int) (EmbedReport, error) {
	start := ix.now()
	rep := EmbedReport{Model: e.Model()}
	db, err := ix.forRead(ctx)
	if err != nil {
		return rep, err
	}
	if err := ix.ensure(ctx, "vectors", vectorTables); err != nil {
		return rep, err
	}
	stale, err := staleEntries(ctx, db, e.Model())
	if err != nil {
		return rep, fmt.Errorf("embed: %w", err)
	}
	if limit > 0 && len(stale) > limit {
		rep.Pending = len(stale) - limit
		stale = stale[:limit]
	}
	type work struct {
		name, hash string
		spans      []span
		sums       []string
	}
	var todo []work
	var texts, sums []string // to embed, each once
	seen := map[string]bool{}
	for _, s := range stale {
		text, ok := embeddable(ix.root, s.name, s.hash)
		if !ok {
			continue // changed or gone since the check: next time
		}
		w := work{name: s.name, hash: s.hash, spans: chunk(text)}
		for _, sp := range w.spans {
			sum := textSum(text[sp.start:sp.end])
			w.sums = append(w.sums, sum)
			if !seen[sum] {
				seen[sum] = true
				texts, sums = append(texts, text[sp.start:sp.end]), append(sums, sum)
			}
		}
		todo = append(todo, w)
	}
	// Leave out the texts whose vectors are known.
	known, err := knownSums(ctx, db, e.Model(), sums)
	if err != nil {
		return rep, fmt.Errorf("embed: %w", err)
	}
	var ask, askSums []string
	for i, t := range texts {
		if !known[sums[i]] {
			ask, askSums = append(ask, t), append(askSums, sums[i])
		}
	}
	vecs := make([][]float32, 0, len(ask))
	for i := 0; i < len(ask); i += embedBatch {
		batch := ask[i:min(i+embedBatch, len(ask))]
		got, err := e.Embed(ctx, batch)
		if err != nil {
			return rep, fmt.Errorf("embed with %s: %w", e.Model(), err)
		}
		if len(got) != len(batch) {
			return rep, fmt.Errorf("embed with %s: asked for %d vectors, got %d", e.Model(), len(batch), len(got))
		}
		vecs = append(vecs, got...)
	}
	rep.Embedded = len(ask)
	unlock, err := lockFile(ctx, ix.writeLock(), false)
	if err != nil {
		return rep, err
	}
	defer unlock()
	db, err = ix.open(ctx, true)
	if err != nil {
		return rep, err
	}
	err = withTx(ctx, db, func(tx *sql.Tx) error {
		for i, v := range vecs {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO vectors(sum, model, vec) VALUES (?, ?, ?)`,
				askSums[i], e.Model(), encodeVector(v)); err != nil {
				return err
			}
		}
		for _, w := range todo {
			var cur string
			err := tx.QueryRowContext(ctx, `SELECT hash FROM entries WHERE name = ?`, w.name).Scan(&cur)
			if errors.Is(err, sql.ErrNoRows) || err == nil && cur != w.hash {
				continue
			}
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE name = ?`, w.name); err != nil {
				return err
			}
			for i, sp := range w.spans {
				if _, err := tx.ExecContext(ctx, `INSERT INTO chunks(name, hash, idx, start, end, sum) VALUES (?, ?, ?, ?, ?, ?)`,
					w.name, w.hash, i, sp.start, sp.end, w.sums[i]); err != nil {
					return err
				}
			}
			rep.Entries++
			rep.Chunks += len(w.spans)
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE name NOT IN (SELECT name FROM entries)`)
		return err
	})
	if err != nil {
		return rep, fmt.Errorf("embed: store vectors: %w", err)
	}
	rep.Took = ix.now().Sub(start)
	return rep, nil
}

type staleEntry struct{ name, hash string }

// staleEntries lists the entries whose chunks are missing, out of date, or
// lack a vector of model, most recently changed first (so that a limited
// run embeds what is likeliest to be asked about).
func staleEntries(ctx context.Context, db *sql.DB, model string) ([]staleEntry, error) {
	rows, err := db.QueryContext(ctx, `
		SELECT e.name, e.hash FROM entries e WHERE e.problem = '' AND (
			NOT EXISTS (SELECT 1 FROM chunks c WHERE c.name = e.name AND c.hash = e.hash)
			OR EXISTS (SELECT 1 FROM chunks c WHERE c.name = e.name
				AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.sum = c.sum AND v.model = ?)))
		ORDER BY e.recency DESC, e.name`, model)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []staleEntry
	for rows.Next() {
		var s staleEntry
		if err := rows.Scan(&s.name, &s.hash); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// textSum keys a chunk's vector.
func textSum(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// knownSums returns which of the sums have a vector of model.
func knownSums(ctx context.Context, db *sql.DB, model string, sums []string) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT sum FROM vectors WHERE model = ? AND sum IN (SELECT value FROM json_each(?))`, model, jsonList(sums))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out[s] = true
	}
	return out, rows.Err()
}

// embeddable returns the text embedded for an entry, its title and body,
// if its file has the hash given ("" for any).
func embeddable(root, name, hash string) (string, bool) {
	data, err := vault.ReadFile(root, vault.EntryPath(name))
	if err != nil {
		return "", false
	}
	if hash != "" && textSum(string(data)) != hash {
		return "", false
	}
	e, err := entry.Parse(data)
	if err != nil {
		return "", false
	}
	return e.Title() + "\n\n" + e.Body(), true
}

// encodeVector stores a vector at unit length, so that a dot product is
// its cosine similarity.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range unit(v) {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// dot is the dot product of a unit query vector and a stored one; 0 for
// vectors of different lengths.
func dot(q []float32, b []byte) float64 {
	if len(b) != 4*len(q) {
		return 0
	}
	var s float32
	for i, x := range q {
		s += x * math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return float64(s)
}

// Hybrid search fuses two scores: a result's score is
// 0.7 × its vector score + 0.3 × its text score, and results under 0.3 are
// dropped. The vector score is the best cosine similarity of the entry's
// chunks to the query. The text score is the entry's BM25 relative to the
// best BM25 of the search, so 1 for the best text match (not raw BM25
// through 1/(1+rank), which orders matches the wrong way round for FTS5's
// negative ranks). An entry that matches the words but has no vectors yet
// (not embedded) keeps its text score alone, so a vault being embedded
// ranks as BM25 does. Both sides over-fetch 8 times the limit.
const (
	vectorWeight = 0.7
	textWeight   = 0.3
	minScore     = 0.3
	overFetch    = 8
)

// HybridResult is a result of a hybrid search, with the two scores it
// fused.
type HybridResult struct {
	Result
	Text   float64 `json:"text_score,omitempty"`
	Vector float64 `json:"vector_score,omitempty"`
}

// HybridSearch searches like Search and by meaning: about is embedded with
// e (q.Text when about is ""), compared with the vectors of the entries'
// chunks, and the two rankings fused. Entries found by meaning alone get
// their closest chunk as the snippet. Call Embed first to embed what
// changed.
func (ix *Index) HybridSearch(ctx context.Context, q Query, about string, e Embedder) ([]HybridResult, error) {
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	limit := q.Limit
	q.Limit *= overFetch
	text, err := ix.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	about = strings.TrimSpace(cmp.Or(about, q.Text))
	vecs, err := e.Embed(ctx, []string{about})
	if err != nil {
		return nil, fmt.Errorf("search %q by meaning: %w", about, err)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("search %q by meaning: asked for 1 vector, got %d", about, len(vecs))
	}
	db, err := ix.forRead(ctx)
	if err != nil {
		return nil, err
	}
	if err := ix.ensure(ctx, "vectors", vectorTables); err != nil {
		return nil, err
	}
	nearHits, err := nearest(ctx, db, unit(vecs[0]), e.Model(), q)
	if err != nil {
		return nil, fmt.Errorf("search %q by meaning: %w", about, err)
	}
	byName := map[string]*HybridResult{}
	var out []*HybridResult
	top := 0.0
	for _, r := range text {
		top = max(top, r.Score)
	}
	for _, r := range text {
		h := &HybridResult{Result: r, Text: r.Score / max(top, 1e-9)}
		byName[r.Name] = h
		out = append(out, h)
	}
	only := map[string]near{} // found by meaning alone
	for _, n := range nearHits[:min(len(nearHits), q.Limit)] {
		h, ok := byName[n.name]
		if !ok {
			h = &HybridResult{Result: Result{Summary: vault.Summary{Name: n.name}}}
			byName[n.name] = h
			out = append(out, h)
			only[n.name] = n
		}
		h.Vector = n.score
	}
	embedded, err := embeddedNames(ctx, db, e.Model(), out)
	if err != nil {
		return nil, fmt.Errorf("search %q by meaning: %w", about, err)
	}
	kept := out[:0]
	for _, h := range out {
		h.Score = h.Text
		if embedded[h.Name] {
			h.Score = vectorWeight*h.Vector + textWeight*h.Text
		}
		h.Score = math.Round(h.Score*1000) / 1000
		if h.Score >= minScore {
			kept = append(kept, h)
		}
	}
	slices.SortFunc(kept, func(a, b *HybridResult) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Name, b.Name))
	})
	kept = kept[:min(len(kept), limit)]
	if err := ix.fillSummaries(ctx, db, kept, only, q.plan().Marker()); err != nil {
		return nil, fmt.Errorf("search %q by meaning: %w", about, err)
	}
	res := make([]HybridResult, len(kept))
	for i, h := range kept {
		res[i] = *h
	}
	return res, nil
}

// unit scales v to length 1.
func unit(v []float32) []float32 {
	norm := 0.0
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	norm = math.Sqrt(norm)
	out := make([]float32, len(v))
	for i, x := range v {
		if norm > 0 {
			out[i] = float32(float64(x) / norm)
		}
	}
	return out
}

type near struct {
	name       string
	start, end int // the closest chunk
	score      float64
}

// nearest scores every current entry that passes q's filters by the best
// similarity of its chunks to the unit vector qv, best first.
func nearest(ctx context.Context, db *sql.DB, qv []float32, model string, q Query) ([]near, error) {
	_, filter, args := q.filter()
	rows, err := db.QueryContext(ctx, `SELECT c.name, c.start, c.end, v.vec FROM chunks c
		JOIN vectors v ON v.sum = c.sum AND v.model = ?
		JOIN entries e ON e.name = c.name AND e.hash = c.hash
		WHERE 1`+filter("e"), append([]any{model}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	best := map[string]near{}
	for rows.Next() {
		var (
			n   near
			vec []byte
		)
		if err := rows.Scan(&n.name, &n.start, &n.end, &vec); err != nil {
			return nil, err
		}
		n.score = dot(qv, vec)
		if b, ok := best[n.name]; !ok || n.score > b.score {
			best[n.name] = n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]near, 0, len(best))
	for _, n := range best {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b near) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.name, b.name)) })
	return out, nil
}

// chunkSnippetWords is how long the snippet of a result found by meaning
// alone is: longer than a text search's, as it may hold none of the words
// searched for and must tell what the entry says.
const chunkSnippetWords = 24

// chunkSnippet returns the start of the chunk n of an entry, as one
// line, with the words searched for that it holds marked as a text
// search marks them.
func chunkSnippet(root string, n near, m *query.Marker) string {
	text, ok := embeddable(root, n.name, "")
	if !ok || n.end > len(text) || n.start > n.end {
		return ""
	}
	return query.OneLine(m.Head(query.Segment(text[n.start:n.end]), chunkSnippetWords, MarkOpen, MarkClose, "…"))
}

// embeddedNames returns which of the results' entries have current chunks
// with vectors of model.
func embeddedNames(ctx context.Context, db *sql.DB, model string, rs []*HybridResult) (map[string]bool, error) {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Name
	}
	rows, err := db.QueryContext(ctx, `SELECT DISTINCT c.name FROM chunks c
		JOIN entries e ON e.name = c.name AND e.hash = c.hash
		JOIN vectors v ON v.sum = c.sum AND v.model = ?
		WHERE c.name IN (SELECT value FROM json_each(?))`, model, jsonList(names))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out[n] = true
	}
	return out, rows.Err()
}

// fillSummaries sets the listing fields and the snippet of the results
// found by meaning alone, which the text search did not list.
func (ix *Index) fillSummaries(ctx context.Context, db *sql.DB, rs []*HybridResult, only map[string]near, m *query.Marker) error {
	want := map[string]*HybridResult{}
	for _, r := range rs {
		if n, ok := only[r.Name]; ok {
			want[r.Name] = r
			r.Snippet = chunkSnippet(ix.root, n, m)
		}
	}
	if len(want) == 0 {
		return nil
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	rows, err := db.QueryContext(ctx, `SELECT `+summaryColumns+` FROM entries
		WHERE name IN (SELECT value FROM json_each(?))`, jsonList(names))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		s, err := scanSummary(rows)
		if err != nil {
			return err
		}
		want[s.Name].Summary = s
	}
	return rows.Err()
}
