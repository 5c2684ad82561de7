package llm

import "context"

// Offline is the provider when none is configured: it makes no calls and
// answers every request with ErrOffline.
type Offline struct{}

var _ Provider = Offline{}

func (Offline) Name() string  { return "offline" }
func (Offline) Model() string { return "" }

func (Offline) Complete(ctx context.Context, r Request) (Reply, error) {
	return Reply{}, ErrOffline
}
