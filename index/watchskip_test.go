package index

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsnotify/fsnotify"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// The watcher does not read again a file the write path of its own
// process has just indexed (the event of its rename into place), but a
// person's edit right after ours, in place or by rename, is indexed. The
// watcher's batches are driven by hand here, so that which comes first,
// the write path's update or the watcher's batch, is fixed.
func TestWatcherSkipsWhatTheWritePathIndexed(t *testing.T) {
	ctx := t.Context()
	v := vaulttest.New(t)
	ix := openIndex(t, v, nil)
	// A watcher runs in this process: the write path's updates are noted
	// for it. Its loop does not run; flush below is its batch.
	// A write syncs with it first (forWrite): answered at once, as by a
	// watcher with nothing pending.
	syncs := make(chan syncRequest)
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case req := <-syncs:
				req.done <- nil
			case <-stop:
				return
			}
		}
	}()
	ix.mu.Lock()
	ix.syncs = syncs
	ix.mu.Unlock()
	defer func() {
		ix.mu.Lock()
		ix.syncs = nil
		ix.mu.Unlock()
		close(stop)
	}()
	w := &watcher{ix: ix, dirs: map[string]bool{}, pending: map[string]fsnotify.Op{}}
	remember := func(text string) string {
		t.Helper()
		r, err := v.Remember(ctx, vault.RememberOptions{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return vault.EntryPath(r.Name)
	}
	// batch flushes events as the watcher heard them and returns how many
	// entry files it read.
	batch := func(events map[string]fsnotify.Op) int {
		t.Helper()
		for rel, op := range events {
			w.pending[rel] = op
		}
		if err := w.flush(ctx); err != nil {
			t.Fatal(err)
		}
		return ix.LastCheck().Checked
	}
	// indexed fails unless the index holds rel's file as it is now.
	indexed := func(rel string) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(v.Root(), filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		db, err := ix.handle(ctx)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := vault.NameOf(rel)
		rows, err := loadRows(ctx, db, []string{name})
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if got, want := rows[name].hash, hex.EncodeToString(sum[:]); got != want {
			t.Errorf("the index holds %s as %q, the file is %q", rel, got, want)
		}
	}

	ours := remember("The deploy window opens at nine.")
	if n := batch(map[string]fsnotify.Op{ours: fsnotify.Create}); n != 0 {
		t.Errorf("the watcher read %d files for the write path's own write, want 0", n)
	}
	indexed(ours)

	// A person edits in place right after our write: the same size, so
	// only the content tells, and the events hold a Write.
	inPlace := remember("The billing run starts at ten.")
	p := filepath.Join(v.Root(), filepath.FromSlash(inPlace))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(string(data[:len(data)-4])+"TEN\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := batch(map[string]fsnotify.Op{inPlace: fsnotify.Create | fsnotify.Write}); n != 1 {
		t.Errorf("the watcher read %d files after an edit in place, want 1", n)
	}
	indexed(inPlace)

	// A person's editor saves by rename right after our write: another
	// file, whose event is a Create like ours.
	renamed := remember("The pager rotation changes on Monday.")
	p = filepath.Join(v.Root(), filepath.FromSlash(renamed))
	if data, err = os.ReadFile(p); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(p), ".edit.tmp")
	if err := os.WriteFile(tmp, []byte(string(data[:len(data)-7])+"Friday\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	if n := batch(map[string]fsnotify.Op{renamed: fsnotify.Create}); n != 1 {
		t.Errorf("the watcher read %d files after a save by rename, want 1", n)
	}
	indexed(renamed)

	// A record is used once: a later event for the same file is read.
	if n := batch(map[string]fsnotify.Op{ours: fsnotify.Create}); n != 1 {
		t.Errorf("the watcher read %d files for a second event of one write, want 1", n)
	}
}
