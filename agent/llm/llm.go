// Package llm is how ctx0's agent runs ask a language model for structured
// output: one small Provider interface, a completion whose reply is JSON
// checked against a schema, and the providers that implement it
// (anthropic, openai and compatible servers, command, offline).
//
// Providers only translate a Request to one call of their API or program
// and its answer back; everything else decorates them, as Open assembles:
// WithRetry retries transient HTTP failures (it reads the *HTTPError the
// HTTP providers return), and WithSchema validates the reply against the
// request's schema, asking once more when it does not match. Settings come
// from the vault's .ctx0/config.yaml (LoadConfig), keys only from the
// environment. Usage is summed over every attempt, priced from a small
// table of list prices where the model is known (an estimate, not a bill).
// Package llmtest serves the two HTTP APIs for tests.
package llm

import (
	"context"
	"encoding/json"
	"errors"
)

// Request is one completion whose reply must be a JSON object matching
// Schema.
type Request struct {
	// System says who the model is and what rules it keeps; Prompt is the
	// material and the task. Transcript text goes in Prompt only, quoted as
	// data.
	System string
	Prompt string
	// SchemaName names the reply's shape (a tool or response-format name
	// for the APIs that want one: letters, digits, '_' and '-'; default
	// "reply"); Schema is its JSON Schema (default: any object).
	SchemaName string
	Schema     json.RawMessage
	// MaxTokens caps the reply; 0 lets the provider choose.
	MaxTokens int
}

func (r Request) schemaName() string {
	if r.SchemaName == "" {
		return "reply"
	}
	return r.SchemaName
}

func (r Request) schema() json.RawMessage {
	if len(r.Schema) == 0 {
		return json.RawMessage(`{"type":"object"}`)
	}
	return r.Schema
}

// Reply is a completion that matched its request's schema.
type Reply struct {
	JSON  json.RawMessage
	Model string // the model that answered, as the provider named it
	Usage Usage
}

// Usage is what completions cost. Cost is 0 when unknown.
type Usage struct {
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{u.InputTokens + o.InputTokens, u.OutputTokens + o.OutputTokens, u.CostUSD + o.CostUSD}
}

// Provider completes requests.
type Provider interface {
	// Name is the provider's kind: anthropic, openai, command or offline.
	Name() string
	// Model is the model asked for ("" when the provider has none).
	Model() string
	// Complete asks for a reply matching r.Schema. If ctx ends first, the
	// error wraps ctx's. On an error the Reply's Usage still counts the
	// tokens spent, so that failed runs are accounted for too.
	Complete(ctx context.Context, r Request) (Reply, error)
}

// ErrOffline is what the offline provider answers every request with:
// callers that have a deterministic way to do the work check for it, or
// ask IsOffline before asking, and take that way instead.
var ErrOffline = errors.New("no language model configured (offline)")

// IsOffline reports whether p is no model at all: nil, or the offline
// provider, which answers every request with ErrOffline. The one test of
// it, so that a provider wrapped in decorators is still recognized: each
// reports the Name of the provider it wraps.
func IsOffline(p Provider) bool {
	return p == nil || p.Name() == Offline{}.Name()
}
