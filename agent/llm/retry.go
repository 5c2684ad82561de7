package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/ctx0/ctx0/internal/clock"
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
	return retrying{p, policy.withDefaults()}
}

func (policy RetryPolicy) withDefaults() RetryPolicy {
	if policy.BaseDelay <= 0 {
		policy.BaseDelay = time.Second
	}
	if policy.MaxDelay <= 0 {
		policy.MaxDelay = time.Minute
	}
	if policy.Sleep == nil {
		policy.Sleep = clock.Sleep
	}
	return policy
}

type retrying struct {
	Provider
	policy RetryPolicy
}

func (rt retrying) Complete(ctx context.Context, r Request) (reply Reply, err error) {
	var spent Usage
	err = rt.policy.do(ctx, rt.Name(), func() error {
		reply, err = rt.Provider.Complete(ctx, r)
		spent = spent.Add(reply.Usage)
		return err
	})
	reply.Usage = spent
	return reply, err
}

// do runs try until it succeeds, fails in a way another attempt cannot
// help, or the policy gives up. name says whose request it is.
func (policy RetryPolicy) do(ctx context.Context, name string, try func() error) error {
	for attempt := 0; ; attempt++ {
		err := try()
		var he *HTTPError
		if err == nil || ctx.Err() != nil || !errors.As(err, &he) || !he.Retryable() {
			return err
		}
		if attempt == policy.MaxRetries || he.RetryAfter > policy.MaxDelay {
			if attempt > 0 {
				err = fmt.Errorf("give up after %d attempts: %w", attempt+1, err)
			}
			return err
		}
		if err := policy.Sleep(ctx, policy.wait(attempt, he.RetryAfter)); err != nil {
			return fmt.Errorf("%s: wait to retry: %w", name, err)
		}
	}
}

// wait is the pause before retry attempt+1: what the server asked for,
// else half the exponential backoff plus a random part of the other half.
func (policy RetryPolicy) wait(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter
	}
	d := policy.BaseDelay
	for i := 0; i < attempt && d < policy.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, policy.MaxDelay)
	return d/2 + rand.N(d/2+1)
}
