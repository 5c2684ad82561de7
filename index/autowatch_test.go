package index

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// TestWatcherWanted: a read's full check, or a write's, of a vault of at
// least the minimum asks once for a watcher; a smaller vault, a check a
// watcher vouches for, and a watcher's own checks do not.
func TestWatcherWanted(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		name    string
		min     int
		watcher bool // another index of the vault watches
		write   bool // the write's check, not a read's
		want    int  // calls
	}{
		{"big enough", 2, false, false, 1},
		{"too small", 1000, false, false, 0},
		{"a watcher runs", 2, true, false, 0},
		{"a write, big enough", 2, false, true, 1},
		{"a write, too small", 1000, false, true, 0},
		{"a write, a watcher runs", 2, true, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := vaulttest.New(t)
			writeFile(t, v, "knowledge/a.md", "---\ntitle: A\n---\nAlpha.\n")
			writeFile(t, v, "knowledge/b.md", "---\ntitle: B\n---\nBeta.\n")
			if tc.watcher {
				startWatcher(t, v)
			}
			calls, files := 0, 0
			ix, err := Open(ctx, v, WithWatcherWanted(tc.min, func(n int) { calls++; files = n }))
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			for range 2 {
				var err error
				if tc.write {
					_, err = ix.forWrite(ctx)
				} else {
					_, _, err = ix.List(ctx, vault.Filter{})
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if calls != tc.want {
				t.Fatalf("asked for a watcher %d times, want %d", calls, tc.want)
			}
			if calls > 0 && files < tc.min {
				t.Errorf("asked with %d files, fewer than the minimum %d", files, tc.min)
			}
		})
	}

	// A watcher's own full checks, at its start and after lost events.
	v := vaulttest.New(t)
	writeFile(t, v, "knowledge/a.md", "---\ntitle: A\n---\nAlpha.\n")
	calls := 0
	ix, err := Open(ctx, v, WithWatcherWanted(1, func(int) { calls++ }))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	wctx, cancel := context.WithCancel(ctx)
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- ix.Watch(wctx, nil, WatchReady(func() { close(ready) })) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatal(err)
	}
	if _, _, err := ix.List(ctx, vault.Filter{}); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if calls != 0 {
		t.Errorf("a watcher asked for a watcher %d times", calls)
	}
}

// TestWatchRecordAndIdle: a watcher records that it was started
// automatically and its idle limit, for status; a second automatic one
// is refused with ErrWatching; a reader's request moves its idle mark; and
// with nothing to do it stops by itself once the limit passes.
func TestWatchRecordAndIdle(t *testing.T) {
	ctx := t.Context()
	v := vaulttest.New(t)
	writeFile(t, v, "knowledge/a.md", "---\ntitle: A\n---\nAlpha.\n")
	w := openIndex(t, v, nil)
	watch := func(ctx context.Context, opts ...WatchOption) <-chan error {
		ready := make(chan struct{})
		done := make(chan error, 1)
		go func() { done <- w.Watch(ctx, nil, append(opts, WatchReady(func() { close(ready) }))...) }()
		select {
		case <-ready:
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			done <- nil // stopped already: idle
		}
		return done
	}
	wctx, cancel := context.WithCancel(ctx)
	done := watch(wctx, WatchAuto(), WatchIdle(time.Hour))
	reader := openIndex(t, v, nil)
	got, ok := reader.RunningWatcher()
	if !ok || got.PID != os.Getpid() || !got.Auto || got.Idle != time.Hour {
		t.Errorf("RunningWatcher = %+v, %v; want this process, auto, idle 1h", got, ok)
	}
	if err := reader.Watch(ctx, nil, WatchAuto()); !errors.Is(err, ErrWatching) {
		t.Errorf("a second automatic watcher: %v, want ErrWatching", err)
	}
	before := w.lastActive()
	if _, err := reader.searchWatcher(ctx, Query{Text: "alpha"}); err != nil {
		t.Fatal(err)
	}
	if !w.lastActive().After(before) {
		t.Errorf("a search answered by the watcher left its idle mark at %v", before)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// Nothing comes: it stops by itself.
	if err := <-watch(ctx, WatchIdle(time.Millisecond)); err != nil {
		t.Fatalf("the idle watcher stopped with %v", err)
	}
	if _, ok := reader.RunningWatcher(); ok {
		t.Error("the watcher still runs after its idle limit")
	}
}

// TestWatchStopsWhenVaultRemoved: a watcher stops once its vault is
// removed, without making the index, or the vault's folder, again.
func TestWatchStopsWhenVaultRemoved(t *testing.T) {
	v := vaulttest.New(t)
	for _, n := range []string{"a", "b", "c"} {
		writeFile(t, v, "knowledge/"+n+".md", "---\ntitle: "+n+"\n---\nText.\n")
	}
	w := openIndex(t, v, nil)
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- w.Watch(t.Context(), nil, WatchReady(func() { close(ready) })) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatal(err)
	}
	if err := os.RemoveAll(v.Root()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the watcher of a removed vault stopped with %v", err)
	}
	if _, err := os.Stat(v.Root()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the vault folder is there again after the watcher stopped: %v", err)
	}
}

// TestWatcherRecord: the watch lock's record reads back as it was
// written, and an older ctx0's record (pid and start) still reads.
func TestWatcherRecord(t *testing.T) {
	started := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	for _, w := range []Watcher{
		{PID: 42, Started: started},
		{PID: 42, Started: started, Auto: true, Idle: 10 * time.Minute},
		{PID: 7, Idle: time.Second},
	} {
		if got := parseWatcher(w.String()); !sameWatcher(got, w) {
			t.Errorf("parseWatcher(%q) = %+v, want %+v", w.String(), got, w)
		}
	}
	if got := parseWatcher("42 2026-11-29T07:00:00Z\n"); !sameWatcher(got, Watcher{PID: 42, Started: started}) {
		t.Errorf("an older record reads as %+v", got)
	}
}

func sameWatcher(a, b Watcher) bool {
	return a.PID == b.PID && a.Started.Equal(b.Started) && a.Auto == b.Auto && a.Idle == b.Idle
}

// FuzzParseWatcher: whatever the watch lock holds, parseWatcher reads
// something, and what it read is written and read back the same.
func FuzzParseWatcher(f *testing.F) {
	f.Add("42 2026-11-29T07:00:00Z auto idle=10m0s\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		w := parseWatcher(s)
		if again := parseWatcher(w.String()); !sameWatcher(again, w) {
			t.Errorf("parseWatcher(%q) = %+v; written as %q it reads %+v", s, w, w.String(), again)
		}
	})
}
