package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// RetryPolicy says how WithRetry retries.
type RetryPolicy struct {
	// MaxRetries is how many attempts may follow the first.
	MaxRetries int
	// BaseDelay is the wait before the first retry, doubled before each
	// next one, with jitter; 0: 1s.
	BaseDelay time.Duration
	// MaxDelay caps a wait. A server asking (by retry-after) to wait
	// longer ends the retries instead; 0: 1 minute.
	MaxDelay time.Duration
	// Sleep waits d or until ctx ends; nil: a timer. Tests make it instant.
	Sleep func(ctx context.Context, d time.Duration) error
}

// WithRetry retries p's completions that failed with a retryable
// *HTTPError (connection errors, 429 and 5xx), waiting as the server asks
// by retry-after or else backing off exponentially with jitter, so that
// clients that failed together do not retry together. Other errors are
// returned at once. The returned usage sums all attempts.
func WithRetry(p Provider, policy RetryPolicy) Provider {
	if policy.BaseDelay <= 0 {
		policy.BaseDelay = time.Second
	}
	if policy.MaxDelay <= 0 {
		policy.MaxDelay = time.Minute
	}
	if policy.Sleep == nil {
		policy.Sleep = sleep
	}
	return retrying{p, policy}
}

type retrying struct {
	Provider
	policy RetryPolicy
}

func (rt retrying) Complete(ctx context.Context, r Request) (Reply, error) {
	var spent Usage
	for attempt := 0; ; attempt++ {
		reply, err := rt.Provider.Complete(ctx, r)
		spent = spent.Add(reply.Usage)
		reply.Usage = spent
		var he *HTTPError
		if err == nil || ctx.Err() != nil || !errors.As(err, &he) || !he.Retryable() {
			return reply, err
		}
		if attempt == rt.policy.MaxRetries || he.RetryAfter > rt.policy.MaxDelay {
			if attempt > 0 {
				err = fmt.Errorf("give up after %d attempts: %w", attempt+1, err)
			}
			return reply, err
		}
		if err := rt.policy.Sleep(ctx, rt.wait(attempt, he.RetryAfter)); err != nil {
			return reply, fmt.Errorf("%s: wait to retry: %w", rt.Name(), err)
		}
	}
}

// wait is the pause before retry attempt+1: what the server asked for,
// else half the exponential backoff plus a random part of the other half.
func (rt retrying) wait(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter
	}
	d := rt.policy.BaseDelay
	for i := 0; i < attempt && d < rt.policy.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, rt.policy.MaxDelay)
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
