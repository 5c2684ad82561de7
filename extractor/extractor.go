// Package extractor gets memory back into an agent's context: small when
// loaded at session start (Context: the <memory> block), precise when asked
// for (Retrieve: a context bundle for a question, within a token budget),
// and fast for questions that recur (learned queries, RunQuery).
//
// Everything works offline: BM25 over the index and over past
// conversations, their passages ranked on one score, expansion along links
// and to the people and projects a hit names, recency for dated entries,
// near-duplicate passages removed, and one item per conversation. A language model (Model), when
// one is configured, plans the searches and condenses the bundle; an
// embeddings endpoint, when one is configured, adds vector similarity to
// BM25 (hybrid search). Any failure of either falls back to the offline
// path. Budgets are counted with Tokens.
package extractor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/vault"
)

// Memory is what the extractor reads.
type Memory struct {
	Vault *vault.Vault
	Index *index.Index
	// Sessions searches past conversations; nil when there are none to
	// search (see OpenSessions).
	Sessions Sessions
	// Model plans and condenses retrievals; nil works offline.
	Model Model
	// Embeddings, when set, adds vector similarity to BM25 in retrieve.
	Embeddings index.Embedder
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Time returns the time now on m's clock: when a request's question is
// asked (see Request.Check).
func (m Memory) Time() time.Time { return m.now() }

func (m Memory) now() time.Time {
	if m.Now == nil {
		return time.Now()
	}
	return m.Now()
}

// Request is a question for Retrieve.
type Request struct {
	Query string `json:"query"`
	// Plan is Query as the request read it (query.Parse, see Check);
	// nil: Retrieve reads it.
	Plan *query.Plan `json:"-"`
	// Scope limits the search to these folders of the vault (contacts,
	// projects/bot0); "sessions" names past conversations. Empty: the
	// whole vault, and past conversations where it does not cover the
	// question.
	Scope []string `json:"scope,omitempty"`
	// Budget is the most tokens the bundle's text may take; 0 means
	// DefaultBudget.
	Budget int `json:"budget"`
	// Project is the project the question is asked from: its entries rank
	// a little higher, other projects' a little lower.
	Project string `json:"project,omitempty"`
	// Since and Until, when set, keep only the entries updated and the
	// past sessions that went on in that time. A time the question says
	// in words ("last week", "in March") favours what happened then
	// without leaving the rest out.
	Since time.Time `json:"since,omitzero"`
	Until time.Time `json:"until,omitzero"`
}

// Budgets, in tokens counted with Tokens.
const (
	DefaultBudget = 2000
	// MaxBudget is the most a request may ask for: a larger one is
	// taken as MaxBudget.
	MaxBudget = 20000
	// MinBudget is the smallest budget a bundle can be made in: its
	// header and one short passage.
	MinBudget = 150
)

// ErrBudget is returned for a budget too small to hold anything.
var ErrBudget = errors.New("budget too small")

// sessionsScope is the scope that names past conversations.
const sessionsScope = "sessions"

// Retrieve answers a question with a bundle that fits its budget. A
// question that a learned query's phrases match is answered by that query
// (the fast path); others by the model's plan when a model is configured,
// and offline when there is none or it fails. req goes through Check,
// which keeps the question as the adapter read it (req.Plan) or reads it
// at m's now.
func Retrieve(ctx context.Context, m Memory, req Request) (Bundle, error) {
	if err := req.Check(m.now()); err != nil {
		return Bundle{}, fmt.Errorf("retrieve: %w", err)
	}
	start := time.Now() // latency is measured on the real clock, whatever m.Now says
	ix, err := m.Index.Checked(ctx)
	if err != nil {
		return Bundle{}, fmt.Errorf("retrieve %q: %w", req.Query, err)
	}
	m.Index = ix
	qs, err := LoadQueries(m.Vault.Root())
	if err != nil {
		return Bundle{}, err
	}
	// The question was read once, by req.Check, for all that follows:
	// its terms as asked, to match learned queries and plans, and
	// without the words that say its time, to search for.
	t := termsFor(req.Plan)
	if q, args, ok := qs.match(req.Query, t); ok {
		vals, err := q.Bind(args, req.Project)
		if err != nil {
			return Bundle{}, err
		}
		b, err := runQuery(ctx, m, q, vals, req.Budget)
		if err != nil {
			return Bundle{}, err
		}
		b.Query = req.Query
		recordQueryUse(ctx, m.Vault.Root(), q.Name, time.Since(start), m.now())
		return b, nil
	}
	// A plan that recurs is offered as a learned query, in the bundle
	// and so within its budget.
	suggest := recordPlan(ctx, m.Vault.Root(), req, t, m.now(), qs)
	sought := t
	if rest := req.Plan.Rest(); rest != req.Plan {
		sought = termsFor(rest)
	}
	r := newRetrieval(m, req, sought)
	r.suggest = suggest
	var b Bundle
	if m.Model != nil {
		b, err = r.withModel(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return Bundle{}, ctx.Err()
			}
			r = newRetrieval(m, req, sought)
			r.suggest = suggest
			r.plan.Fallback = err.Error()
		}
	}
	if m.Model == nil || err != nil {
		b, err = r.offline(ctx)
	}
	return b, err
}
