package extractor

import (
	"context"
	"fmt"

	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/index/query"
)

// Search searches the vault as people and agents ask it to: BM25 over the
// index, fused with vector similarity when m has an embeddings endpoint
// (see searcher); hybrid says how it was fused. q.Plan is the query as the
// request read it (query.Parse, see index.Query.Check); nil: q.Text is
// read here, against m's now. Words of a natural query that say a time
// counted from now ("last week", "yesterday") are not searched for: they
// keep the entries of that time.
func Search(ctx context.Context, m Memory, q index.Query) (res []index.HybridResult, hybrid Hybrid, err error) {
	if q.Plan == nil {
		q.Plan = query.Parse(q.Text, m.now())
	}
	q.Text = q.Plan.Text()
	if rest, w, ok := q.Plan.Timed(q.Since, q.Until); ok {
		// "what did we decide last week about billing": billing,
		// among the entries of last week; when none is, the words
		// alone, among what happened before now.
		tq := q
		tq.Text, tq.Plan, tq.Since, tq.Until = rest.Text(), rest, w.Since, w.Until
		s := &searcher{m: m, about: tq.Text}
		res, err = s.search(ctx, tq)
		if err != nil || len(res) > 0 {
			return res, s.hybrid, err
		}
	}
	q.Until = pastUntil(q.Plan, q.Until, m.now())
	s := &searcher{m: m, about: q.Text}
	res, err = s.search(ctx, q)
	return res, s.hybrid, err
}

// Hybrid says how a search used vector similarity. The zero value: no
// embeddings endpoint is configured, and BM25 answered alone.
type Hybrid struct {
	// Model is the embeddings model whose similarity was fused with BM25.
	Model string
	// Pending counts the entries not embedded yet, found by words alone.
	Pending int
	// Off says why vector similarity was turned off: the endpoint failed,
	// and BM25 answered alone. Model and Pending are then empty.
	Off error
}

// String is how a plan shows h: the model, and the entries not embedded
// yet; "off: " and why; or "" when no endpoint is configured.
func (h Hybrid) String() string {
	switch {
	case h.Off != nil:
		return "off: " + h.Off.Error()
	case h.Pending > 0:
		return fmt.Sprintf("%s (%d entries not embedded yet)", h.Model, h.Pending)
	}
	return h.Model
}

// embedPerSearch bounds the entries embedded before the first search of a
// request, so that a vault being embedded does not make one request wait
// for all of it; the rest follow over the next requests (or ctx0 index
// --embed).
const embedPerSearch = 32

// searcher runs the searches of one request: BM25, fused with vector
// similarity when m has an embeddings endpoint. The first search embeds
// what changed; an endpoint that fails leaves the rest of the request to
// BM25, and hybrid says so.
type searcher struct {
	m        Memory
	about    string // what the request is about, embedded for similarity
	embedded bool
	hybrid   Hybrid
}

func (s *searcher) search(ctx context.Context, q index.Query) ([]index.HybridResult, error) {
	if s.m.Embeddings != nil && !s.embedded {
		s.embedded = true
		rep, err := s.m.Index.Embed(ctx, s.m.Embeddings, embedPerSearch)
		if err != nil {
			s.off(ctx, err)
		} else {
			s.hybrid = Hybrid{Model: s.m.Embeddings.Model(), Pending: rep.Pending}
		}
	}
	if s.m.Embeddings != nil {
		res, err := s.m.Index.HybridSearch(ctx, q, s.about, s.m.Embeddings)
		if err == nil {
			return res, nil
		}
		s.off(ctx, err)
	}
	res, err := s.m.Index.Search(ctx, q)
	out := make([]index.HybridResult, len(res))
	for i, r := range res {
		out[i] = index.HybridResult{Result: r}
	}
	return out, err
}

// off turns vector similarity off for the rest of the request.
func (s *searcher) off(ctx context.Context, err error) {
	if ctx.Err() == nil {
		s.hybrid = Hybrid{Off: err}
	}
	s.m.Embeddings = nil
}
