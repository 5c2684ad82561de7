package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
)

// Rate is at most N calls in any Per.
type Rate struct {
	N   int
	Per time.Duration
}

// The remember limits are the vault's (remember.per_client_per_minute and
// remember.per_vault_per_minute in its config): high enough that a team of
// agents saving as they work never meets them, low enough that a client
// caught in a loop is slowed before it floods the vault. A client over a
// limit is told which one, and when it may save again.

// DefaultWriteRate bounds the memory tool's writes: editing files takes more
// calls than remembering facts, but a client looping on writes is stopped.
var DefaultWriteRate = Rate{N: 30, Per: time.Minute}

// rateFile keeps the times of the calls that count against the limits, in
// the vault's local state. The limits hold per vault: a client that opens
// new sessions, or a server that is restarted or runs beside another, is
// counted with the rest.
const rateFile = "mcp-rate.json"

// limiter counts the calls of one kind made to a vault, by any session of
// any server process, in a sliding window.
type limiter struct {
	kind    string // the key in rateFile
	rate    Rate
	setting string // the config key that sets rate, if one does
	now     func() time.Time
	path    string // rateFile of the vault
	mu      sync.Mutex
}

func newLimiter(kind string, r Rate, root string, now func() time.Time) *limiter {
	return &limiter{kind: kind, rate: r, now: now, path: filepath.Join(root, filepath.FromSlash(sessions.StateDir), rateFile)}
}

// rateError says a call was refused, by which limit, and when the next one
// will be taken.
type rateError struct {
	what    string
	rate    Rate
	scope   string // "per client session", "in this vault, by all clients together"
	setting string // the config key that sets the limit; "" if none
	retry   time.Duration
}

func (e *rateError) Error() string {
	per := "per " + e.rate.Per.String()
	if e.rate.Per == time.Minute {
		per = "a minute"
	}
	setting := ""
	if e.setting != "" {
		setting = fmt.Sprintf(" (%s in %s)", e.setting, vault.ConfigFile)
	}
	return fmt.Sprintf("rate limited: %s at most %d times %s %s%s; try again in %v. Be selective: save only what will matter in a later session, one clear standalone fact per memory.",
		e.what, e.rate.N, per, e.scope, setting, e.retry.Round(time.Second))
}

// clientLimiter counts the calls of one kind made by each client session,
// in a sliding window. A session lives in one server process, so the counts
// live in memory.
type clientLimiter struct {
	rate    Rate
	setting string
	now     func() time.Time
	mu      sync.Mutex
	calls   map[any][]time.Time // by session
}

func newClientLimiter(r Rate, setting string, now func() time.Time) *clientLimiter {
	return &clientLimiter{rate: r, setting: setting, now: now, calls: map[any][]time.Time{}}
}

// allow counts a call by client, or refuses it; it returns the time the
// call was counted at, for undo.
func (l *clientLimiter) allow(client any, what string) (time.Time, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	for c, ts := range l.calls {
		ts = slices.DeleteFunc(ts, func(t time.Time) bool {
			return now.Sub(t) >= l.rate.Per || t.After(now.Add(l.rate.Per))
		})
		if len(ts) == 0 {
			delete(l.calls, c) // sessions that ended are forgotten here
		} else {
			l.calls[c] = ts
		}
	}
	ts := l.calls[client]
	if len(ts) >= l.rate.N {
		retry := max(l.rate.Per-now.Sub(ts[len(ts)-l.rate.N]), time.Second)
		return time.Time{}, &rateError{what: what, rate: l.rate, scope: "per client session", setting: l.setting, retry: retry}
	}
	l.calls[client] = append(ts, now)
	return now, nil
}

// undo forgets client's call counted at at.
func (l *clientLimiter) undo(client any, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ts := l.calls[client]
	if i := slices.IndexFunc(ts, at.Equal); i >= 0 {
		l.calls[client] = slices.Delete(ts, i, i+1)
	}
}

// allow counts a call, or refuses it. It returns the time the call was
// counted at, for undo.
func (l *limiter) allow(ctx context.Context, what string) (at time.Time, err error) {
	var refused error
	err = l.update(ctx, func(ts []time.Time) []time.Time {
		now := time.UnixMilli(l.now().UnixMilli()) // as the file keeps it, so undo finds it
		if len(ts) >= l.rate.N {
			retry := max(l.rate.Per-now.Sub(ts[len(ts)-l.rate.N]), time.Second)
			refused = &rateError{what: what, rate: l.rate, scope: "in this vault, by all clients together", setting: l.setting, retry: retry}
			return ts
		}
		at = now
		return append(ts, now)
	})
	if err == nil {
		err = refused
	}
	return at, err
}

// undo forgets the call counted at at, for a call that was refused for
// another reason: only what is saved counts.
//
// The undo is made even when ctx has ended (often the very reason the call
// failed); the lock it waits for is only ever held for a read and a write.
func (l *limiter) undo(ctx context.Context, at time.Time) {
	_ = l.update(context.WithoutCancel(ctx), func(ts []time.Time) []time.Time {
		if i := slices.IndexFunc(ts, at.Equal); i >= 0 {
			return slices.Delete(ts, i, i+1)
		}
		return ts
	})
}

// update changes the recorded calls of l's kind under the file's lock,
// waiting for it until ctx ends, after forgetting those that left the
// window.
func (l *limiter) update(ctx context.Context, fn func([]time.Time) []time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	lock, err := filelock.Exclusive(ctx, l.path+".lock")
	if err != nil {
		return fmt.Errorf("rate limit: %w", err)
	}
	defer lock.Unlock()
	// Times are kept as Unix milliseconds: the file is read and written
	// on every call, and a list of a window's calls in RFC 3339 cost the
	// server more than the rest of a remember's bookkeeping.
	calls := map[string][]int64{}
	data, err := os.ReadFile(l.path)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("rate limit: %w", err)
	}
	// A damaged file (or one of an older ctx0) is counts lost, not a
	// reason to refuse every call.
	if json.Unmarshal(data, &calls) != nil {
		calls = map[string][]int64{}
	}
	now := l.now()
	ts := make([]time.Time, 0, len(calls[l.kind])+1)
	for _, ms := range calls[l.kind] {
		// A call from the future (a clock set back) would block for
		// longer than a window: it is forgotten too.
		if t := time.UnixMilli(ms); now.Sub(t) < l.rate.Per && !t.After(now.Add(l.rate.Per)) {
			ts = append(ts, t)
		}
	}
	if ts := fn(ts); len(ts) > 0 {
		ms := make([]int64, len(ts))
		for i, t := range ts {
			ms[i] = t.UnixMilli()
		}
		calls[l.kind] = ms
	} else {
		delete(calls, l.kind)
	}
	if data, err = json.Marshal(calls); err != nil {
		return fmt.Errorf("rate limit: %w", err)
	}
	// Written in place: only holders of the lock read it.
	if err := os.WriteFile(l.path, data, 0o644); err != nil {
		return fmt.Errorf("rate limit: %w", err)
	}
	return nil
}
