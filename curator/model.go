package curator

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctx0/ctx0/agent/llm"
)

// usageAdder is where what a model costs is counted: the run's session.
type usageAdder interface{ AddUsage(llm.Usage) }

// model is the run's language model, if it has one.
type model struct {
	p  llm.Provider
	s  usageAdder // nil in a dry run
	on bool
}

// ask sends one request and decodes the reply into out.
func (m model) ask(ctx context.Context, what string, r llm.Request, out any) error {
	reply, err := m.p.Complete(ctx, r)
	if m.s != nil {
		m.s.AddUsage(reply.Usage)
	}
	if err != nil {
		return fmt.Errorf("%s with %s: %w", what, m.p.Name(), err)
	}
	if err := json.Unmarshal(reply.JSON, out); err != nil {
		return fmt.Errorf("%s with %s: reply: %w", what, m.p.Name(), err)
	}
	return nil
}

// dry tells a dry run: it asks the model what to merge, as a run would,
// but not for summaries' text, which a plan does not need.
func (m model) dry() bool { return m.s == nil }
