package extractor

import (
	"context"
	"fmt"

	"github.com/ctx0/ctx0/index"
)

// Search searches the vault as people and agents ask it to: BM25 over the
// index, fused with vector similarity when m has an embeddings endpoint
// (see searcher). hybrid names the embeddings model fused, says why none
// was ("off: ..."), or is "" when none is configured.
func Search(ctx context.Context, m Memory, q index.Query) (res []index.HybridResult, hybrid string, err error) {
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
