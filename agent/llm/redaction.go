package llm

import (
	"context"

	"github.com/ctx0/ctx0/redact"
)

// WithRedaction passes p's requests through the one redactor before they
// leave the machine: whatever a run puts in a prompt (transcripts, entries,
// a person's question), no secret the redactor knows reaches a provider.
func WithRedaction(p Provider) Provider { return redacting{p} }

type redacting struct{ Provider }

func (rd redacting) Complete(ctx context.Context, r Request) (Reply, error) {
	r.System = redact.String(r.System)
	r.Prompt = redact.String(r.Prompt)
	return rd.Provider.Complete(ctx, r)
}
