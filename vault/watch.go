package vault

import (
	"context"
	"errors"
	"time"

	"github.com/ctx0/ctx0/internal/clock"
)

// WatchOptions says how Watch keeps the vault in sync.
type WatchOptions struct {
	Sync SyncOptions
	// Interval is how often the remote is fetched when nothing happens
	// here (default 1 minute).
	Interval time.Duration
	// Debounce is how long a new local commit waits for more before the
	// push, so a burst of writes makes one sync (default 2 seconds, or
	// half the interval when that is shorter: a push never waits longer
	// than the other side's fetch does).
	Debounce time.Duration
	// Poll is how often the branch is looked at for new local commits:
	// reading one ref, cheap enough to do often (default 500 ms).
	Poll time.Duration
	// Now and Sleep are the clock the loop keeps time with (default the
	// real one; the vault's own clock dates records and may be fixed):
	// tests pass a fake clock that Sleep moves instead of sleeping.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Report is told what each sync did. Repeated failures with the same
	// status are told once, and the recovery after them.
	Report func(WatchEvent)
}

// WatchEvent is what one sync of Watch did.
type WatchEvent struct {
	Time time.Time `json:"time"`
	// Trigger is why it synced: start, commit (a new local commit),
	// interval, or retry (after a failure).
	Trigger string `json:"trigger"`
	// Status is synced, offline (the remote could not be reached or
	// refused; retried with back-off), or refused (the remote branch was
	// rewritten or is unrelated: nothing is merged until a person runs
	// ctx0 sync; local work is kept).
	Status string      `json:"status"`
	Result *SyncResult `json:"result,omitempty"`
	Error  string      `json:"error,omitempty"`
	// Recovered is set on the first successful sync after failures.
	Recovered bool `json:"recovered,omitempty"`
	// RetryIn is how long until the next attempt after a failure.
	RetryIn time.Duration `json:"retry_in_ns,omitempty"`
}

// watchFetchTimeout bounds an unattended fetch unless the options say
// otherwise: go-git's transports wait for ever on a connection the network
// dropped without a word (a laptop that slept, a NAT that forgot it), and a
// fetch holds the lock every other ctx0 fetch of the vault waits for. A
// vault's fetch takes seconds; five minutes leave a slow link room.
const watchFetchTimeout = 5 * time.Minute

// Watch syncs until ctx is done: at the start, soon after each local
// commit (debounced), and every interval to bring in the remote's changes,
// merging field by field as Sync does. The unattended syncs refuse a
// remote branch that was rewritten (see SyncOptions.RefuseRewrite). A
// failure never stops the loop: it is retried with back-off, doubling up
// to the interval, and local commits stay where they are until a push
// succeeds. It returns nil when ctx is cancelled.
func (v *Vault) Watch(ctx context.Context, o WatchOptions) error {
	if o.Interval <= 0 {
		o.Interval = time.Minute
	}
	if o.Debounce <= 0 {
		o.Debounce = min(2*time.Second, o.Interval/2)
	}
	if o.Poll <= 0 {
		o.Poll = 500 * time.Millisecond
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = clock.Sleep
	}
	if o.Report == nil {
		o.Report = func(WatchEvent) {}
	}
	o.Sync.RefuseRewrite = true
	if o.Sync.FetchTimeout <= 0 {
		o.Sync.FetchTimeout = watchFetchTimeout
	}
	// A remote that cannot be synced is a lasting condition (a check
	// every few seconds would not help): before the first sync, check it
	// once and stop with its error.
	if _, err := v.pickRemote(o.Sync.Remote); err != nil {
		return err
	}
	var (
		synced   string    // the branch's commit after the last successful sync
		seen     string    // the branch's commit at the last poll
		pushDue  time.Time // when the debounced push runs; zero when none waits
		nextSync = o.Now() // when the next fetch (or retry) runs
		backoff  time.Duration
		failed   string // the status of the failure told last
		trigger  = "start"
	)
	for {
		if err := ctx.Err(); err != nil {
			return nil
		}
		now := o.Now()
		if h, err := v.head(); err == nil && h.hash.String() != seen {
			seen = h.hash.String()
			if seen != synced && failed == "" {
				pushDue = now.Add(o.Debounce)
			}
		}
		switch {
		case !pushDue.IsZero() && !now.Before(pushDue):
			trigger = "commit"
		case !now.Before(nextSync):
			if trigger == "" {
				trigger = "interval"
				if failed != "" {
					trigger = "retry"
				}
			}
		default:
			if err := o.Sleep(ctx, o.Poll); err != nil {
				return nil
			}
			continue
		}
		res, err := v.Sync(ctx, o.Sync)
		if ctx.Err() != nil {
			return nil
		}
		ev := WatchEvent{Time: o.Now(), Trigger: trigger, Result: &res}
		trigger, pushDue = "", time.Time{}
		if err == nil {
			ev.Status, ev.Recovered = "synced", failed != ""
			failed, backoff, synced = "", 0, res.Commit
			nextSync = ev.Time.Add(o.Interval)
			o.Report(ev)
			continue
		}
		ev.Status, ev.Error = "offline", err.Error()
		backoff = min(max(2*backoff, o.Debounce), o.Interval)
		if errors.Is(err, ErrRewritten) || errors.Is(err, ErrUnrelated) {
			ev.Status, backoff = "refused", o.Interval
		}
		ev.RetryIn = backoff
		nextSync = ev.Time.Add(backoff)
		if ev.Status != failed {
			o.Report(ev)
		}
		failed = ev.Status
	}
}
