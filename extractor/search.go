package extractor

import (
	"context"
	"fmt"

	"github.com/ctx0/ctx0/index"
)

// Search searches the vault as people and agents ask it to: BM25 over the
// index, fused with vector similarity when m has an embeddings endpoint
// (see searcher). hybrid names the embeddings model fused, says why none
// was ("off: ..."), or is "" when none is configured. Words of a natural
// query that say a time counted from now ("last week", "yesterday", against
// m's now) are not searched for: they keep the entries of that time.
func Search(ctx context.Context, m Memory, q index.Query) (res []index.HybridResult, hybrid string, err error) {
	if text, w, ok := timed(q.Text, q.Since, q.Until, m.now()); ok {
		// "what did we decide last week about billing": billing,
		// among the entries of last week; when none is, the words
		// alone.
		tq := q
		tq.Text, tq.Plan, tq.Since, tq.Until = text, nil, w.Since, w.Until
		s := &searcher{m: m, about: tq.Text}
		res, err = s.search(ctx, tq)
		if err != nil || len(res) > 0 {
			return res, s.hybrid, err
		}
	}
	s := &searcher{m: m, about: q.Text}
	res, err = s.search(ctx, q)
	return res, s.hybrid, err
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
	hybrid   string
}

func (s *searcher) search(ctx context.Context, q index.Query) ([]index.HybridResult, error) {
	if s.m.Embeddings != nil && !s.embedded {
		s.embedded = true
		rep, err := s.m.Index.Embed(ctx, s.m.Embeddings, embedPerSearch)
		if err != nil {
			s.off(ctx, err)
		} else {
			s.hybrid = s.m.Embeddings.Model()
			if rep.Pending > 0 {
				s.hybrid += fmt.Sprintf(" (%d entries not embedded yet)", rep.Pending)
			}
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
		s.hybrid = "off: " + err.Error()
	}
	s.m.Embeddings = nil
}
