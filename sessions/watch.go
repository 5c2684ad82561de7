package sessions

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ctx0/ctx0/transcript"
)

// Event is what a watch did: start (after the first read of every file),
// read a session file, or finish conversations that fell silent.
type Event struct {
	// Started is set on the first event, once the folders are watched
	// and what they held has been read (Report says what that did).
	Started bool
	// File is the path of the session file read, with what reading it did.
	File   string
	Report Report
	// Finished are conversations the idle trigger made ready (or skipped).
	Finished []Conversation
}

// WatchOptions tune Watch.
type WatchOptions struct {
	// Tick is when to look for conversations silent for the gap. Nil means
	// every PollInterval.
	Tick <-chan time.Time
	// Notify, if set, hears of every file read and every conversation
	// finished, from Watch's goroutine.
	Notify func(Event)
}

// PollInterval is how often a watch looks for conversations that fell
// silent: no file event says that a conversation went quiet, so a timer
// has to.
const PollInterval = 30 * time.Second

// Watch ingests the session files under dirs, then follows them as agents
// append to them, until ctx ends. A conversation silent for the gap
// becomes ready: the idle trigger. A folder that does not exist yet is
// picked up when it appears. Ending ctx is not an error, whatever the
// watch was doing at the time.
func (s *Store) Watch(ctx context.Context, dirs []string, o WatchOptions) error {
	err := s.watch(ctx, dirs, o)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func (s *Store) watch(ctx context.Context, dirs []string, o WatchOptions) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch session folders: %w", err)
	}
	defer w.Close()
	wt := &watch{s: s, w: w, roots: dirs, o: o, pending: map[string]bool{}}
	for _, d := range dirs {
		if err := wt.follow(d); err != nil {
			return err
		}
	}
	started, err := wt.ingest(ctx, false)
	if err != nil {
		return err
	}
	if o.Notify != nil {
		o.Notify(Event{Started: true, Report: started})
	}
	if err := wt.refresh(ctx); err != nil {
		return err
	}
	tick := o.Tick
	if tick == nil {
		t := time.NewTicker(PollInterval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			wt.handle(ev)
			// Take what else has arrived, so a burst of appends is one read.
			for more := true; more; {
				select {
				case ev := <-w.Events:
					wt.handle(ev)
				default:
					more = false
				}
			}
			if _, err := wt.ingest(ctx, true); err != nil {
				return err
			}
			if err := wt.refresh(ctx); err != nil {
				return err
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			// Events were lost (the queue overflowed): read everything.
			if !errors.Is(err, fsnotify.ErrEventOverflow) {
				return fmt.Errorf("watch session folders: %w", err)
			}
			for _, d := range dirs {
				wt.queueTree(d)
			}
			if _, err := wt.ingest(ctx, true); err != nil {
				return err
			}
		case <-tick:
			if err := wt.refresh(ctx); err != nil {
				return err
			}
		}
	}
}

// watch is the state of one Watch.
type watch struct {
	s       *Store
	w       *fsnotify.Watcher
	roots   []string
	o       WatchOptions
	pending map[string]bool
}

// follow watches dir and every folder in it, and queues its session files.
// A dir that does not exist yet is waited for from its nearest existing
// parent.
func (wt *watch) follow(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
			if _, err := os.Stat(p); err == nil {
				return wt.add(p)
			}
			if filepath.Dir(p) == p {
				return nil
			}
		}
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone, or unreadable: nothing to watch there
		}
		if d.IsDir() {
			return wt.add(p)
		}
		if strings.HasSuffix(p, ".jsonl") {
			wt.pending[p] = true
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("watch %s: %w", dir, err)
	}
	return nil
}

func (wt *watch) add(dir string) error {
	if err := wt.w.Add(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("watch %s: %w", dir, err)
	}
	return nil
}

// refresh finishes the conversations silent for the gap, and tells.
func (wt *watch) refresh(ctx context.Context) error {
	finished, err := wt.s.Refresh(ctx)
	if len(finished) > 0 && wt.o.Notify != nil {
		wt.o.Notify(Event{Finished: finished})
	}
	return err
}

// queueTree queues every session file under dir.
func (wt *watch) queueTree(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			wt.pending[p] = true
		}
		return nil
	})
}

// handle queues what an event says changed.
func (wt *watch) handle(ev fsnotify.Event) {
	if !ev.Has(fsnotify.Create) && !ev.Has(fsnotify.Write) {
		return
	}
	if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
		for _, r := range wt.roots {
			// A new folder under a root, or on the way to one that did
			// not exist yet.
			if within(ev.Name, r) {
				_ = wt.follow(ev.Name)
			} else if within(r, ev.Name) {
				_ = wt.follow(r)
			}
		}
		return
	}
	if strings.HasSuffix(ev.Name, ".jsonl") {
		for _, r := range wt.roots {
			if within(ev.Name, r) {
				wt.pending[ev.Name] = true
			}
		}
	}
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// ingest reads the pending files, and says what that did in all; with
// tell, it notifies each file read too.
func (wt *watch) ingest(ctx context.Context, tell bool) (Report, error) {
	total := Report{Skipped: transcript.Skipped{}}
	paths := make([]string, 0, len(wt.pending))
	for p := range wt.pending {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	clear(wt.pending)
	for _, p := range paths {
		f, err := FileAt(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var rep Report
		if err != nil {
			rep = Report{Files: 1, Errors: []string{err.Error()}}
		} else if rep, err = wt.s.Ingest(ctx, []File{f}, Options{}); err != nil {
			return total, err
		}
		total.add(rep)
		if tell && wt.o.Notify != nil && (rep.Bytes > 0 || len(rep.Errors) > 0) {
			wt.o.Notify(Event{File: p, Report: rep})
		}
	}
	return total, nil
}
