// Package worker keeps a vault's memory current in the background: it
// follows the folders agents write their sessions to, files each
// conversation queued for the librarian into the vault, one at a time, and
// runs the curator when it is due. ctx0 ingest --watch and ctx0 daemon run
// it; what it does is told to a callback, which prints it or records it.
package worker

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ctx0/ctx0/curator"
	"github.com/ctx0/ctx0/librarian"
	"github.com/ctx0/ctx0/sessions"
)

// Defaults of Options' intervals.
const (
	// FileInterval is how often the worker looks for queued conversations
	// besides when it reads something: hooks and ctx0 dump queue them
	// from other processes, which the worker does not hear of.
	FileInterval = 2 * time.Second
	// CurateInterval is how often the worker asks whether the curator is
	// due (daily, or after enough writes) when no conversation was filed;
	// after a conversation is filed it asks at once, as a session ended.
	CurateInterval = time.Hour
	// After a failed librarian run, the worker waits RetryPause before the
	// next, doubling up to RetryMax while runs keep failing: a model that
	// is down is not asked every few seconds.
	RetryPause = 10 * time.Second
	RetryMax   = 5 * time.Minute
)

// CurateFunc runs the curator if it is due, with sessionEnd set when a
// conversation was just filed (a session ended); ran is false when no run
// was due. The worker takes the curator as a function because what a run
// needs (its configuration, model and index) is opened only when one is
// due, by whoever wires the vault's services.
type CurateFunc func(ctx context.Context, sessionEnd bool) (res curator.Result, ran bool, err error)

// Options say what the worker follows and files.
type Options struct {
	// Librarian is what each librarian run is given. Its Store is the
	// ingest state the worker reads sessions into and files from; its
	// Conversation is ignored: the worker files the oldest queued one.
	Librarian librarian.Options
	// Dirs are the session folders to follow (see sessions.DefaultDirs);
	// none, and the worker only files what others queue.
	Dirs []string
	// Curate, if set, runs the curator when it is due.
	Curate CurateFunc
	// Now is the clock of events and of the curator's timing (default
	// time.Now).
	Now func() time.Time
	// Report hears of each event. The worker's goroutines never call it
	// at the same time, so it may print without a lock of its own.
	Report func(Event)
	// Intervals; zero means the default of the same name.
	FileInterval, CurateInterval, RetryPause, RetryMax time.Duration
}

// Event is one thing the worker did: one of Ingest, Filed, Curated or Err
// is set.
type Event struct {
	Time time.Time
	// Ingest is what the session watch read, or the conversations it
	// found finished; its Started event comes first.
	Ingest *sessions.Event
	// Filed is a librarian run that filed a conversation.
	Filed *librarian.Result
	// Curated is a curator run.
	Curated *curator.Result
	// Err is a librarian or curator run that failed, as Stage says; its
	// conversation waits in the queue for the next try.
	Err   error
	Stage Stage
}

// Stage names the run an error came from.
type Stage string

const (
	StageLibrarian Stage = "librarian"
	StageCurator   Stage = "curator"
)

// Run follows o.Dirs and files queued conversations until ctx ends, then
// returns nil; it returns an error only when the session folders cannot be
// watched. A run that fails is reported and does not stop the worker.
func Run(ctx context.Context, o Options) error {
	if o.Librarian.Store == nil {
		return errors.New("worker: no ingest state to file from")
	}
	o.defaults()
	w := &worker{o: o, wake: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.fileQueued(ctx)
	}()
	w.poke()
	var err error
	if len(o.Dirs) > 0 {
		err = o.Librarian.Store.Watch(ctx, o.Dirs, sessions.WatchOptions{Notify: func(e sessions.Event) {
			defer w.poke()
			w.report(Event{Ingest: &e})
		}})
		if err != nil {
			cancel()
		}
	} else {
		<-ctx.Done()
	}
	<-done
	return err
}

func (o *Options) defaults() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Librarian.Now == nil {
		o.Librarian.Now = o.Now
	}
	if o.Report == nil {
		o.Report = func(Event) {}
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&o.FileInterval, FileInterval}, {&o.CurateInterval, CurateInterval}, {&o.RetryPause, RetryPause}, {&o.RetryMax, RetryMax}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
}

type worker struct {
	o    Options
	mu   sync.Mutex // one Report call at a time
	wake chan struct{}
}

// poke wakes the filing loop, unless a wake-up already waits.
func (w *worker) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *worker) report(e Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e.Time = w.o.Now()
	w.o.Report(e)
}

// fileQueued runs the librarian on every queued conversation whenever
// woken or every FileInterval, until ctx ends, and then the curator when
// it is due. A run that fails is reported and its conversation, back in
// the queue, waits: the worker goes on, and tries again after a pause
// that doubles while runs keep failing.
func (w *worker) fileQueued(ctx context.Context) {
	tick := time.NewTicker(w.o.FileInterval)
	defer tick.Stop()
	var (
		hold    <-chan time.Time // set after a failure: no run before it fires
		pause   time.Duration
		curated time.Time // when the worker last asked whether the curator is due
	)
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-tick.C:
		case <-hold:
			hold = nil
		}
		if hold != nil {
			continue
		}
		filed := false
		for ctx.Err() == nil {
			lo := w.o.Librarian
			lo.Conversation = 0
			res, err := librarian.Run(ctx, lo)
			// A run that ended on its own, filed or failed, is reported
			// even when ctx ended just after it: its outcome is recorded,
			// so the person hears of it; only a run cut short is not news.
			if errors.Is(err, sessions.ErrNoWork) || errors.Is(err, context.Canceled) {
				break
			}
			if err != nil {
				w.report(Event{Err: err, Stage: StageLibrarian})
				pause = min(max(2*pause, w.o.RetryPause), w.o.RetryMax)
				hold = time.After(pause)
				break
			}
			w.report(Event{Filed: &res})
			pause = 0
			filed = true
		}
		if w.o.Curate == nil || ctx.Err() != nil {
			continue
		}
		if now := w.o.Now(); filed || now.Sub(curated) >= w.o.CurateInterval {
			curated = now
			w.curate(ctx, filed)
		}
	}
}

// curate runs the curator if it is due and reports what it did or why it
// failed; the worker goes on either way.
func (w *worker) curate(ctx context.Context, sessionEnd bool) {
	res, ran, err := w.o.Curate(ctx, sessionEnd)
	// As for the librarian, a run that ended on its own is reported even
	// if ctx ended after it; a run cut short is not news.
	if !ran && err == nil || errors.Is(err, context.Canceled) {
		return
	}
	if err != nil {
		w.report(Event{Err: err, Stage: StageCurator})
		return
	}
	w.report(Event{Curated: &res})
}
