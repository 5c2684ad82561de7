package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// rateFile is the start of the names of the files that keep the times of
// the calls that count against the limits, one file per kind, in the
// vault's local state. The limits hold per vault: a client that opens new
// sessions, or a server that is restarted or runs beside another, is
// counted with the rest.
const rateFile = "mcp-rate-"

// limiter counts the calls of one kind made to a vault, by any session of
// any server process, in a sliding window.
//
// Its file is a ring of the times of the last N calls counted (see
// ringFile): a call is taken when the oldest of them has left the window,
// so a call reads one time and writes one, whatever N, and the file is
// never truncated or replaced (either makes ext4 flush it, which cost the
// server milliseconds a call under many clients). Every call still goes
// through the file, under its lock, so that a second server process on
// the vault counts against the same limit, exactly.
type limiter struct {
	kind    string
	rate    Rate
	setting string // the config key that sets rate, if one does
	now     func() time.Time
	path    string // the ring file of the vault
	mu      sync.Mutex
}

func newLimiter(kind string, r Rate, root string, now func() time.Time) *limiter {
	name := rateFile + strings.ReplaceAll(kind, " ", "-")
	return &limiter{kind: kind, rate: r, now: now, path: filepath.Join(root, filepath.FromSlash(sessions.StateDir), name)}
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
	err = l.update(ctx, func(r *ringFile) error {
		now := time.UnixMilli(l.now().UnixMilli()) // as the file keeps it, so undo finds it
		oldest, err := r.oldest()
		if err != nil {
			return err
		}
		if l.inWindow(oldest, now) {
			retry := max(l.rate.Per-now.Sub(time.UnixMilli(oldest)), time.Second)
			return &rateError{what: what, rate: l.rate, scope: "in this vault, by all clients together", setting: l.setting, retry: retry}
		}
		at = now
		return r.push(now.UnixMilli())
	})
	return at, err
}

// inWindow tells whether a call counted at ms (Unix milliseconds, 0 for
// none) counts at now. A call from the future (a clock set back) would
// block for longer than a window: it is forgotten too.
func (l *limiter) inWindow(ms int64, now time.Time) bool {
	if ms == 0 {
		return false
	}
	t := time.UnixMilli(ms)
	return now.Sub(t) < l.rate.Per && !t.After(now.Add(l.rate.Per))
}

// undo forgets the call counted at at, for a call that was refused for
// another reason: only what is saved counts.
//
// The undo is made even when ctx has ended (often the very reason the call
// failed); the lock it waits for is only ever held for a read and a write.
func (l *limiter) undo(ctx context.Context, at time.Time) {
	_ = l.update(context.WithoutCancel(ctx), func(r *ringFile) error {
		return r.remove(at.UnixMilli())
	})
}

// update runs fn on l's ring file under the file's lock, waiting for it
// until ctx ends. A ring of another size (the limit was changed) is made
// again of the calls still in the window.
func (l *limiter) update(ctx context.Context, fn func(*ringFile) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	lock, err := filelock.Exclusive(ctx, l.path+".lock")
	if err != nil {
		return fmt.Errorf("rate limit: %w", err)
	}
	defer lock.Unlock()
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("rate limit: %w", err)
	}
	defer f.Close()
	r := &ringFile{f: f}
	if !r.readHeader(l.rate.N) {
		// A new, damaged or resized ring: a damaged one is counts lost,
		// not a reason to refuse every call.
		now := l.now()
		var keep []int64
		for _, ms := range r.times() {
			if l.inWindow(ms, now) {
				keep = append(keep, ms)
			}
		}
		if err := r.reset(l.rate.N, keep); err != nil {
			return fmt.Errorf("rate limit %s: %w", l.path, err)
		}
	}
	if err := fn(r); err != nil {
		var re *rateError
		if errors.As(err, &re) {
			return err
		}
		return fmt.Errorf("rate limit %s: %w", l.path, err)
	}
	return nil
}
