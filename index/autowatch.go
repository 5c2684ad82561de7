package index

import (
	"context"
	"database/sql"
	"time"
)

// WatchMin is how many entry files a vault must have before a read that
// checked every file asks for a watcher (see WithWatcherWanted). Below it
// the full check costs a whole-process search little: measured here, a
// `ctx0 search` with the full check took 27 ms at 2,000 entries, 31 ms at
// 5,000 and 42 ms at 10,000 (process start alone 10 ms, the bare stat of
// every file 7, 11 and 20 ms); from 5,000 on, the check is most of a
// search, and it grows with the vault.
const WatchMin = 5000

// WithWatcherWanted calls fn, once for this open index, when a check of
// every file found at least min entry files (WatchMin if min is 0), or a
// write found that many entries, and no watcher runs for the vault: the
// reads that follow would pay the same check, and the writes their own
// commit, which a running watcher makes needless (see Watch). fn is
// called after the check; what it does (start one, for the commands that
// follow) is the caller's. A watcher's own checks never call it.
func WithWatcherWanted(min int, fn func(files int)) Option {
	return func(ix *Index) {
		if min <= 0 {
			min = WatchMin
		}
		ix.wantMin, ix.want = min, fn
	}
}

// wantWatcher calls the WithWatcherWanted function after a full check
// that found rep, if the vault is big enough and no watcher runs.
func (ix *Index) wantWatcher(rep Report) {
	if rep.Checked < ix.wantMin {
		return
	}
	ix.askWatcher(func() int { return rep.Checked })
}

// wantWatcherForWrite calls the WithWatcherWanted function from a write's
// check, if the vault is big enough and no watcher runs: a write that a
// watcher takes in costs its process less (see BENCHMARKS.md, "A
// watcher started by a command"). A write checks no file, so the entries
// are counted instead, once a process.
func (ix *Index) wantWatcherForWrite(ctx context.Context, db *sql.DB) {
	ix.askWatcher(func() int {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM entries`).Scan(&n); err != nil || n < ix.wantMin {
			return 0
		}
		return n
	})
}

// askWatcher calls the WithWatcherWanted function with the number of
// entry files size says, once, unless this process watches or one runs; a
// size of 0 asks nothing.
func (ix *Index) askWatcher(size func() int) {
	ix.mu.Lock()
	ask := ix.want != nil && !ix.wanted && !ix.watching && ix.syncs == nil
	if ask {
		ix.wanted = true
	}
	fn := ix.want
	ix.mu.Unlock()
	if !ask {
		return
	}
	// One that runs and did not answer would refuse a second.
	if _, ok := ix.RunningWatcher(); ok {
		return
	}
	if n := size(); n > 0 {
		fn(n)
	}
}

// touch records that a reader asked the watcher something, or a change
// came (see WatchIdle).
func (ix *Index) touch() { ix.active.Store(time.Now().UnixNano()) }

// lastActive is when touch was last called.
func (ix *Index) lastActive() time.Time { return time.Unix(0, ix.active.Load()) }
