package mcp

import (
	"fmt"
	"sync"
	"time"
)

// Rate is at most N calls in any Per.
type Rate struct {
	N   int
	Per time.Duration
}

// DefaultRememberRate follows seed 000's "max 5 saves per conversation turn":
// MCP has no turns, so a minute stands for one. A client that saves more is
// told to be selective and when it may save again.
var DefaultRememberRate = Rate{N: 5, Per: time.Minute}

// DefaultWriteRate bounds the memory tool's writes: editing files takes more
// calls than remembering facts, but a client looping on writes is stopped.
var DefaultWriteRate = Rate{N: 30, Per: time.Minute}

// limiter counts calls per client session in a sliding window.
type limiter struct {
	rate Rate
	now  func() time.Time
	mu   sync.Mutex
	seen map[string][]time.Time
}

func newLimiter(r Rate, now func() time.Time) *limiter {
	return &limiter{rate: r, now: now, seen: map[string][]time.Time{}}
}

// rateError says a call was refused, and when the next one will be taken.
type rateError struct {
	what  string
	rate  Rate
	retry time.Duration
}

func (e *rateError) Error() string {
	return fmt.Sprintf("rate limited: %s at most %d times per %v per session; try again in %v. Be selective: save only what will matter in a later session, one clear standalone fact per memory.",
		e.what, e.rate.N, e.rate.Per, e.retry.Round(time.Second))
}

// allow counts a call of session key, or refuses it.
func (l *limiter) allow(key, what string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	// Forget the calls that left the window, of every session, so that
	// the map does not grow with sessions long gone.
	for k, ts := range l.seen {
		i := 0
		for i < len(ts) && now.Sub(ts[i]) >= l.rate.Per {
			i++
		}
		if i == len(ts) {
			delete(l.seen, k)
		} else {
			l.seen[k] = ts[i:]
		}
	}
	ts := l.seen[key]
	if len(ts) >= l.rate.N {
		retry := l.rate.Per - now.Sub(ts[0])
		if retry < time.Second {
			retry = time.Second
		}
		return &rateError{what: what, rate: l.rate, retry: retry}
	}
	l.seen[key] = append(ts, now)
	return nil
}

// undo forgets the last call of session key, for a call that was refused
// for another reason: only what is saved counts.
func (l *limiter) undo(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ts := l.seen[key]; len(ts) > 0 {
		l.seen[key] = ts[:len(ts)-1]
	}
}
