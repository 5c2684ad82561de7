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

// Watch keeps the index up to date with the files until ctx ends. It checks
// every file once, then follows the file system's events, indexes them in
// batches, and tells readers it is alive so that they need not check every
// file themselves. report, if not nil, hears of each check or batch that
// changed the index. Only one watcher runs per vault.
func (ix *Index) Watch(ctx context.Context, report func(Report)) error {
	if err := os.MkdirAll(ix.syncDir(), 0o755); err != nil {
		return fmt.Errorf("watch %s: %w", ix.root, err)
	}
	lock, ok, err := filelock.TryExclusive(ix.watchLock())
	if err != nil {
		return fmt.Errorf("watch %s: %w", ix.root, err)
	}
	if !ok {
		w, _ := ix.RunningWatcher()
		return fmt.Errorf("watch %s: another watcher runs (pid %d)", ix.root, w.PID)
	}
	defer lock.Unlock()
	if err := os.WriteFile(ix.watchLock(), fmt.Appendf(nil, "%d %s\n", os.Getpid(), utc(ix.clock())), 0o644); err != nil {
		return fmt.Errorf("watch %s: %w", ix.root, err)
	}

	w := &watcher{ix: ix, report: report, dirs: map[string]bool{}, pending: map[string]fsnotify.Op{}}
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
	return w.loop(ctx)
}

type watcher struct {
	ix      *Index
	fs      *fsnotify.Watcher
	report  func(Report)
	dirs    map[string]bool // watched folders, slash-separated
	pending map[string]fsnotify.Op
	first   time.Time // when the oldest pending event came
	syncs   chan syncRequest
}

func (w *watcher) loop(ctx context.Context) error {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.fs.Events:
			if !ok {
				return nil
			}
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
