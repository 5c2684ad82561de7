// Package daemon runs a vault's background work in one process: the index
// watcher that answers other processes' searches, the worker that ingests
// sessions and files them, and automatic sync. It holds a lock so that one
// daemon runs per vault, records in a state file what each of its parts
// last did (ctx0 status reads it), and writes the service files that start
// it with the user's session (a systemd user unit or a launchd agent).
package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/ctx0/ctx0/internal/proc"
)

// stateDir is the vault's folder of local state, never committed.
const stateDir = ".ctx0/state"

// The daemon's files in stateDir: the lock one daemon holds while it runs,
// and the state it records.
const (
	lockFile  = "daemon.lock"
	stateFile = "daemon.json"
)

// Part is one loop of the daemon.
type Part struct {
	Name string
	// Run runs the loop until ctx ends, then returns nil. It calls record
	// with a line saying what it did, each time it does something; the
	// daemon keeps the last in its state file.
	Run func(ctx context.Context, record func(line string)) error
}

// Options say what the daemon runs.
type Options struct {
	// Root is the vault's root folder.
	Root  string
	Parts []Part
	// Now dates the state file's records (default time.Now).
	Now func() time.Time
	// Failed hears of a part that ended with an error, and when it is run
	// again; the same error twice in a row is told once.
	Failed func(part string, err error, retryIn time.Duration)
	// A failed part is run again after RetryPause, doubling up to
	// RetryMax while it keeps failing (defaults 1 second and 1 minute): an
	// index another process watches is taken over soon after that
	// process ends.
	RetryPause, RetryMax time.Duration
	// Restart, if set, stops every part each time it delivers, and runs
	// the parts delivered in their place: the settings the parts were made
	// from changed. The daemon holds its lock throughout.
	Restart <-chan Restart
}

// Restart is a new set of parts for a running daemon.
type Restart struct {
	Parts []Part
	// Stopped, if set, runs once the parts before have stopped and
	// before these start: what only the old parts used can be let go.
	Stopped func()
}

// RunningError is returned by Run when another daemon runs for the vault.
type RunningError struct {
	Root string
	PID  int // 0 when the running daemon recorded none yet
}

func (e *RunningError) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("daemon: another daemon runs for %s", e.Root)
	}
	return fmt.Sprintf("daemon: another daemon runs for %s (pid %d)", e.Root, e.PID)
}

// lockWait is how long Run waits for the lock: ctx0 status takes it for an
// instant to tell whether a daemon holds it, and a daemon starting then
// must not take that for another daemon.
const lockWait = 2 * time.Second

// Run runs every part until ctx ends, then returns nil. It returns a
// *RunningError at once if another daemon runs for the vault. A part that
// fails is run again with back-off: the daemon stops only when asked to.
func Run(ctx context.Context, o Options) error {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Failed == nil {
		o.Failed = func(string, error, time.Duration) {}
	}
	if o.RetryPause <= 0 {
		o.RetryPause = time.Second
	}
	if o.RetryMax <= 0 {
		o.RetryMax = time.Minute
	}
	dir := filepath.Join(o.Root, filepath.FromSlash(stateDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	wait, cancel := context.WithTimeout(ctx, lockWait)
	lock, err := filelock.Exclusive(wait, filepath.Join(dir, lockFile))
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("daemon: %w", err)
		}
		re := &RunningError{Root: o.Root}
		if st, err := readState(o.Root); err == nil && st != nil {
			re.PID = st.PID
		}
		return re
	}
	defer lock.Unlock()

	self := proc.Self()
	r := &recorder{path: filepath.Join(dir, stateFile), now: o.Now, st: State{PID: self.PID, ProcStart: self.Start, Started: o.Now()}}
	parts := o.Parts
	for {
		r.setParts(parts)
		if err := r.write(); err != nil {
			return err
		}
		next, ok := o.runParts(ctx, parts, r)
		if !ok {
			break
		}
		if next.Stopped != nil {
			next.Stopped()
		}
		parts = next.Parts
	}
	r.stop()
	return nil
}

// runParts runs parts until ctx ends (ok false) or Restart delivers
// (ok true), and returns once every part has stopped.
func (o *Options) runParts(ctx context.Context, parts []Part, r *recorder) (next Restart, ok bool) {
	run, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Go(func() { o.keep(run, p, func(line string) { r.record(i, line) }) })
	}
	select {
	case <-ctx.Done():
	case next, ok = <-o.Restart:
	}
	stop()
	wg.Wait()
	return next, ok && ctx.Err() == nil
}

// keep runs p until ctx ends, again after each failure.
func (o *Options) keep(ctx context.Context, p Part, record func(string)) {
	var (
		pause time.Duration
		told  string
	)
	for ctx.Err() == nil {
		err := p.Run(ctx, record)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			err = errors.New("stopped")
		}
		pause = min(max(2*pause, o.RetryPause), o.RetryMax)
		if err.Error() != told {
			told = err.Error()
			o.Failed(p.Name, err, pause)
			record("failed: " + err.Error())
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
