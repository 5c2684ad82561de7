package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/ctx0/ctx0/vault"
)

// Events are indexed in batches: once they pause for settleDelay, and at
// most maxDelay after the first, so that an editor's save (write a
// temporary file, rename it over the entry) or a git checkout of many files
// is indexed once, soon after it is done. A reader that syncs with the
// watcher does not wait for either: its sync indexes the batch at once.
const (
	settleDelay = 50 * time.Millisecond
	maxDelay    = 500 * time.Millisecond
)

// ErrWatching is the error of Watch when another watcher runs for the
// vault: only one runs per vault.
var ErrWatching = errors.New("another watcher runs")

// A WatchOption adjusts a watcher.
type WatchOption func(*watchOptions)

type watchOptions struct {
	idle  time.Duration
	auto  bool
	ready func()
}

// WatchIdle makes the watcher stop after d without a request from a
// reader (a search, a sync, a write handed to it) and without a change to
// index: a watcher started for the commands that may follow does not run
// on for ever once they stopped coming. 0 (the default) runs until ctx ends.
func WatchIdle(d time.Duration) WatchOption { return func(o *watchOptions) { o.idle = d } }

// WatchAuto records that the watcher was started by a command for the
// commands after it (see WithWatcherWanted): a watcher started without it
// (a person's ctx0 index --watch, a server's) takes the vault over from
// it, asking it to stop.
func WatchAuto() WatchOption { return func(o *watchOptions) { o.auto = true } }

// WatchReady calls fn once the watcher follows every change and serves
// readers.
func WatchReady(fn func()) WatchOption { return func(o *watchOptions) { o.ready = fn } }

// takeOverTimeout bounds the wait for an automatic watcher to stop when
// another watcher takes the vault over from it.
const takeOverTimeout = 10 * time.Second

// Watch keeps the index up to date with the files until ctx ends, the
// vault folder is removed, or the idle limit (WatchIdle) passes. It checks
// every file once, then follows the file system's events, indexes them in
// batches, and tells readers it is alive so that they need not check every
// file themselves. report, if not nil, hears of each check or batch that
// changed the index. Only one watcher runs per vault: Watch returns
// ErrWatching while another runs, unless that one was started
// automatically and this one was not (see WatchAuto).
func (ix *Index) Watch(ctx context.Context, report func(Report), opts ...WatchOption) error {
	var o watchOptions
	for _, opt := range opts {
		opt(&o)
	}
	if err := os.MkdirAll(ix.syncDir(), 0o755); err != nil {
		return fmt.Errorf("watch %s: %w", ix.root, err)
	}
	lock, err := ix.lockWatch(ctx, o.auto)
	if err != nil {
		return fmt.Errorf("watch %s: %w", ix.root, err)
	}
	defer lock.Unlock()
	ix.mu.Lock()
	ix.watching = true // its own full checks want no other watcher
	ix.mu.Unlock()
	defer func() {
		ix.mu.Lock()
		ix.watching = false
		ix.mu.Unlock()
	}()
	me := Watcher{PID: os.Getpid(), Started: ix.clock(), Auto: o.auto, Idle: o.idle}
	if err := os.WriteFile(ix.watchLock(), []byte(me.String()+"\n"), 0o644); err != nil {
		return fmt.Errorf("watch %s: %w", ix.root, err)
	}

	w := &watcher{ix: ix, report: report, idle: o.idle, dirs: map[string]bool{}, pending: map[string]fsnotify.Op{}}
	if w.fs, err = fsnotify.NewWatcher(); err != nil {
		return fmt.Errorf("watch %s: %w", ix.root, err)
	}
	defer w.fs.Close()
	// Cookies left by readers that gave up are of no use to anyone.
	if old, err := os.ReadDir(ix.syncDir()); err == nil {
		for _, c := range old {
			os.Remove(filepath.Join(ix.syncDir(), c.Name()))
		}
	}
	if err := w.fs.Add(ix.syncDir()); err != nil {
		return fmt.Errorf("watch %s: %w", ix.syncDir(), err)
	}
	if err := w.addTree(""); err != nil {
		return err
	}
	// Changes made before the folders were watched.
	if err := w.fullCheck(ctx); err != nil {
		return err
	}
	w.syncs = make(chan syncRequest)
	ix.mu.Lock()
	ix.syncs = w.syncs
	ix.mu.Unlock()
	defer func() {
		ix.mu.Lock()
		ix.syncs = nil
		ix.written = nil
		ix.mu.Unlock()
	}()
	stop, err := ix.serve(ctx)
	if err != nil {
		ix.notify(fmt.Sprintf("%v; readers will search on their own", err))
	}
	defer stop()
	if o.ready != nil {
		o.ready()
	}
	return w.loop(ctx)
}

// lockWatch takes the watch lock, which a watcher holds while it runs. An
// automatic watcher that holds it is asked to stop when this watcher is
// not automatic (see WatchAuto): a person's or a server's watcher is the
// one they asked for, and a watcher that serves a server's own process
// answers its reads without a round trip.
func (ix *Index) lockWatch(ctx context.Context, auto bool) (*filelock.Lock, error) {
	lock, ok, err := filelock.TryExclusive(ix.watchLock())
	if err != nil || ok {
		return lock, err
	}
	other, _ := ix.RunningWatcher()
	if auto || !other.Auto || other.PID <= 0 || stopProcess(other.PID) != nil {
		return nil, fmt.Errorf("%w (pid %d)", ErrWatching, other.PID)
	}
	ix.notify(fmt.Sprintf("asking the watcher started automatically (pid %d) to stop, to watch here", other.PID))
	ctx, cancel := context.WithTimeout(ctx, takeOverTimeout)
	defer cancel()
	lock, err = filelock.Exclusive(ctx, ix.watchLock())
	if err != nil {
		return nil, fmt.Errorf("%w (pid %d, which did not stop: %v)", ErrWatching, other.PID, err)
	}
	return lock, nil
}

// stopProcess asks the process pid to stop, as Ctrl-C would.
func stopProcess(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Signal(os.Interrupt)
}

type watcher struct {
	ix      *Index
	fs      *fsnotify.Watcher
	report  func(Report)
	dirs    map[string]bool // watched folders, slash-separated
	pending map[string]fsnotify.Op
	first   time.Time // when the oldest pending event came
	syncs   chan syncRequest
	idle    time.Duration // see WatchIdle
	// idleTimer fires when the idle limit may have passed.
	idleTimer *time.Timer
	// rootGone is set once the vault folder itself, or its .ctx0 folder,
	// is removed or moved.
	rootGone bool
}

func (w *watcher) loop(ctx context.Context) error {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var idle <-chan time.Time
	if w.idle > 0 {
		w.ix.touch()
		w.idleTimer = time.NewTimer(w.idle)
		defer w.idleTimer.Stop()
		idle = w.idleTimer.C
	}
	for {
		if w.rootGone {
			w.ix.notify(fmt.Sprintf("the vault folder %s is gone; the watcher stops", w.ix.root))
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-idle:
			// Every request and event moves the mark; the timer only
			// says when to look at it.
			if left := w.idle - time.Since(w.ix.lastActive()); left > 0 {
				w.idleTimer.Reset(left)
				continue
			}
			w.ix.notify(fmt.Sprintf("no request and no change for %v; the watcher stops", w.idle))
			return nil
		case ev, ok := <-w.fs.Events:
			if !ok {
				return nil
			}
			w.ix.touch()
			if filepath.Dir(ev.Name) == w.ix.syncDir() {
				if ev.Has(fsnotify.Create) && w.flush(ctx) == nil {
					os.Remove(ev.Name) // the reader's answer
				}
				continue
			}
			if w.note(ev) {
				if len(w.pending) == 1 {
					w.first = time.Now()
				}
				timer.Reset(max(0, min(settleDelay, maxDelay-time.Since(w.first))))
			}
		case req := <-w.syncs:
			w.ix.touch()
			req.done <- w.await(ctx, req.cookie)
		case err, ok := <-w.fs.Errors:
			if !ok {
				return nil
			}
			if !errors.Is(err, fsnotify.ErrEventOverflow) {
				return fmt.Errorf("watch %s: %w", w.ix.root, err)
			}
			// Events were lost: look at everything again.
			if err := w.addTree(""); err != nil {
				return err
			}
			if err := w.fullCheck(ctx); err != nil {
				return err
			}
		case <-timer.C:
			if err := w.flush(ctx); err != nil {
				w.ix.notify(fmt.Sprintf("index: %v; trying again", err))
				timer.Reset(time.Second)
			}
		}
	}
}

// await notes events until the cookie's, then indexes them. A cookie that
// is gone was seen and answered already.
func (w *watcher) await(ctx context.Context, cookie string) error {
	timeout := time.NewTimer(syncTimeout)
	defer timeout.Stop()
	for {
		if _, err := os.Stat(cookie); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		select {
		case ev, ok := <-w.fs.Events:
			if !ok {
				return errors.New("the watcher stopped")
			}
			if filepath.Dir(ev.Name) != w.ix.syncDir() {
				w.note(ev)
				continue
			}
			if !ev.Has(fsnotify.Create) {
				continue
			}
			err := w.flush(ctx)
			if err == nil {
				os.Remove(ev.Name)
			}
			if ev.Name == cookie {
				return err
			}
		case <-timeout.C:
			return errors.New("timed out")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// note records an event; it reports whether the event matters.
func (w *watcher) note(ev fsnotify.Event) bool {
	if ev.Name == w.ix.root && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
		w.rootGone = true
		return false
	}
	rel, err := filepath.Rel(w.ix.root, ev.Name)
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return false // .git, .ctx0, editors' and ctx0's temporary files
		}
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		// A folder moved away keeps its watch under the old name; drop it,
		// and the new name is watched when it is created.
		for d := range w.dirs {
			if d == rel || strings.HasPrefix(d, rel+"/") {
				_ = w.fs.Remove(filepath.Join(w.ix.root, filepath.FromSlash(d)))
				delete(w.dirs, d)
			}
		}
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			if err := w.addTree(rel); err != nil {
				w.ix.notify(err.Error())
			}
		}
	}
	w.pending[rel] |= ev.Op
	return true
}

// flush indexes the pending events.
func (w *watcher) flush(ctx context.Context) error {
	if len(w.pending) == 0 {
		return nil
	}
	// A vault being removed (rm -rf) loses its .ctx0 folder before the
	// vault folder itself goes: indexing its removals then would make the
	// index, and the folder, again, and keep the vault from going.
	if _, err := os.Lstat(filepath.Dir(w.ix.path)); errors.Is(err, fs.ErrNotExist) {
		w.rootGone = true
		return nil
	}
	var folders, names []string
	parents := map[string]bool{}
	for rel, op := range w.pending {
		if op.Has(fsnotify.Create) || op.Has(fsnotify.Remove) || op.Has(fsnotify.Rename) {
			parents[vault.Folder(rel)] = true
		}
		if name, ok := vault.NameOf(rel); ok {
			if !w.ix.takeWritten(name, op) {
				names = append(names, name)
			}
			continue
		}
		// A folder created, moved or removed: list it (a gone folder's
		// entries are removed). Other files are nothing to the index.
		fi, err := os.Lstat(filepath.Join(w.ix.root, filepath.FromSlash(rel)))
		if (err == nil && fi.IsDir()) || errors.Is(err, fs.ErrNotExist) {
			folders = append(folders, rel)
		}
	}
	// The folders whose listing changed: every change to them is among the
	// events, so their new mtimes can be recorded without listing them.
	now := w.ix.now()
	var stamps []folderStamp
	for p := range parents {
		if fi, err := os.Lstat(filepath.Join(w.ix.root, filepath.FromSlash(p))); err == nil && fi.IsDir() {
			s := stampOf(fi)
			stamps = append(stamps, folderStamp{path: p, mtime: s.mtime, settled: s.settledAt(now)})
		}
	}
	start := now
	rep, err := w.ix.update(ctx, folders, names, stamps, nil)
	if err != nil {
		return err
	}
	clear(w.pending)
	rep.Check, rep.Took = CheckPaths, w.ix.now().Sub(start)
	w.ix.mu.Lock()
	w.ix.last = rep
	w.ix.mu.Unlock()
	if rep.Changes() > 0 && w.report != nil {
		w.report(rep)
	}
	return nil
}

func (w *watcher) fullCheck(ctx context.Context) error {
	rep, err := w.ix.check(ctx, CheckFull)
	if err != nil {
		return err
	}
	if rep.Changes() > 0 && w.report != nil {
		w.report(rep)
	}
	return nil
}

// addTree watches the folder rel and the folders under it.
func (w *watcher) addTree(rel string) error {
	top := filepath.Join(w.ix.root, filepath.FromSlash(rel))
	return filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		r, _ := filepath.Rel(w.ix.root, p)
		r = filepath.ToSlash(r)
		if r == "." {
			r = ""
		}
		if r != "" && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if w.dirs[r] {
			return nil
		}
		if err := w.fs.Add(p); err != nil {
			return fmt.Errorf("watch %s: %w", p, err)
		}
		w.dirs[r] = true
		return nil
	})
}

// maxWritten bounds Index.written: files whose events never come (a
// watcher that stopped following a folder) are forgotten with the rest.
const maxWritten = 4096

// noteWritten records that the write path had name's file indexed, as fi
// (see update's seen), when a watcher runs in this process to hear of it.
func (ix *Index) noteWritten(name string, fi fs.FileInfo) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.syncs == nil {
		return
	}
	if ix.written == nil || len(ix.written) >= maxWritten {
		ix.written = map[string]os.FileInfo{}
	}
	ix.written[name] = fi
}

// takeWritten tells whether the watcher may skip the events op of name's
// file, and forgets the file's record: the write path indexed this very
// file. That holds only for an event of a file put there by a rename
// (Create: how the write path puts every file in place) that is still the
// file indexed, the same inode of the same size and mtime. A person's edit
// after ours is another file (an editor's rename), or a write in place,
// which sends a Write event: either is indexed again.
func (ix *Index) takeWritten(name string, op fsnotify.Op) bool {
	ix.mu.Lock()
	fi, ok := ix.written[name]
	delete(ix.written, name)
	ix.mu.Unlock()
	if !ok || op != fsnotify.Create {
		return false
	}
	cur, err := os.Lstat(fileOf(ix.root, name))
	return err == nil && cur.Mode().IsRegular() && os.SameFile(fi, cur) && cur.Size() == fi.Size() && cur.ModTime().Equal(fi.ModTime())
}
