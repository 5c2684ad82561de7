package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/fsnotify/fsnotify"
)

// A running watcher holds an exclusive lock on watchLock (and writes its
// pid and start time in it), so readers know it is alive; the lock goes
// with the process, however it ends. Readers sync with it through cookie
// files in syncDir, as watchman does: the file system reports events in
// order, so once the watcher has seen the cookie a reader just created, it
// has seen every change made before, and it indexes them before it
// removes the cookie.
func (ix *Index) watchLock() string { return ix.path + "-watch" }
func (ix *Index) syncDir() string   { return ix.path + "-sync" }

// syncTimeout is how long a reader waits for a watcher to answer before it
// checks every file itself.
const syncTimeout = 2 * time.Second

var cookieSeq atomic.Int64

// Watcher describes a running watcher.
type Watcher struct {
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	// Auto: a command started it for the commands after it (see
	// WithWatcherWanted), rather than a person or a server.
	Auto bool `json:"auto,omitempty"`
	// Idle is how long it runs without a request or a change before it
	// stops; 0 for until it is stopped.
	Idle time.Duration `json:"idle_ns,omitempty"`
}

// String is the watcher's record in the watch lock: its pid, start time,
// then "auto" and "idle=D" when they apply.
func (w Watcher) String() string {
	started := utc(w.Started)
	if started == "" {
		started = "-"
	}
	s := fmt.Sprintf("%d %s", w.PID, started)
	if w.Auto {
		s += " auto"
	}
	if w.Idle > 0 {
		s += " idle=" + w.Idle.String()
	}
	return s
}

// parseWatcher reads a watcher's record (see String); what it cannot
// read is left zero.
func parseWatcher(s string) Watcher {
	var w Watcher
	for i, f := range strings.Fields(s) {
		switch {
		case i == 0:
			fmt.Sscan(f, &w.PID)
		case i == 1:
			if t, err := time.Parse(time.RFC3339, f); err == nil {
				w.Started = t.Truncate(time.Second)
			}
		case f == "auto":
			w.Auto = true
		case strings.HasPrefix(f, "idle="):
			if d, err := time.ParseDuration(strings.TrimPrefix(f, "idle=")); err == nil && d > 0 {
				w.Idle = d
			}
		}
	}
	return w
}

// RunningWatcher returns the watcher that keeps the index up to date, if
// one runs.
func (ix *Index) RunningWatcher() (Watcher, bool) {
	if _, err := os.Stat(ix.watchLock()); err != nil {
		return Watcher{}, false
	}
	l, ok, err := filelock.TryShared(ix.watchLock())
	if err != nil {
		return Watcher{}, false
	}
	if ok {
		_ = l.Unlock()
		return Watcher{}, false
	}
	var w Watcher
	if data, err := os.ReadFile(ix.watchLock()); err == nil {
		w = parseWatcher(string(data))
	}
	return w, true
}

// localWatcher returns the channel of this index's running watcher, nil
// if it has none.
func (ix *Index) localWatcher() chan syncRequest {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.syncs
}

// watcherSynced reports whether a watcher runs and has indexed every change
// made before this call.
func (ix *Index) watcherSynced(ctx context.Context) bool {
	if local := ix.localWatcher(); local != nil {
		return ix.syncLocal(ctx, local) == nil
	}
	w, ok := ix.RunningWatcher()
	if !ok {
		return false
	}
	if err := ix.syncWatcher(ctx); err != nil {
		ix.notify(fmt.Sprintf("the index watcher (pid %d) did not answer (%v); checking every file instead", w.PID, err))
		return false
	}
	return true
}

// syncRequest asks a watcher in the same process to index every change
// up to the cookie, and to say when it has.
type syncRequest struct {
	cookie string
	done   chan error
}

// syncLocal syncs with the watcher of this process: it creates a cookie as
// a reader in another process would, and asks the watcher directly to
// answer when it has seen it.
func (ix *Index) syncLocal(ctx context.Context, local chan syncRequest) error {
	cookie, err := ix.newCookie()
	if err != nil {
		return err
	}
	defer os.Remove(cookie)
	req := syncRequest{cookie: cookie, done: make(chan error, 1)}
	select {
	case local <- req:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-req.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// newCookie creates a cookie file and returns its path.
func (ix *Index) newCookie() (string, error) {
	cookie := filepath.Join(ix.syncDir(), fmt.Sprintf("%d-%d", os.Getpid(), cookieSeq.Add(1)))
	f, err := os.OpenFile(cookie, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	return cookie, f.Close()
}

// syncWatcher creates a cookie and waits until the watcher removes it.
func (ix *Index) syncWatcher(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Add(ix.syncDir()); err != nil {
		return err
	}
	cookie, err := ix.newCookie()
	if err != nil {
		return err
	}
	defer os.Remove(cookie)
	timer := time.NewTimer(syncTimeout)
	defer timer.Stop()
	for {
		select {
		case ev := <-w.Events:
			if ev.Name == cookie && ev.Has(fsnotify.Remove) {
				return nil
			}
		case err := <-w.Errors:
			return err
		case <-timer.C:
			if _, err := os.Stat(cookie); errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return errors.New("timed out")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
