package vault

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWatch runs Watch on a fake clock against a real bare remote, with a
// second clone writing too: a local commit is pushed after the debounce,
// the other clone's push is merged at the next interval, a remote that
// disappears is told once and retried until it is back, with the commit
// made meanwhile pushed then, and a force-pushed remote is refused with
// every local commit kept.
func TestWatch(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	remote := bareRemote(t)
	clk := time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)
	now := func() time.Time { return clk }
	a, _, err := Init(ctx, t.TempDir(), WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.AddRemote("origin", remote); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := Clone(ctx, remote, filepath.Join(t.TempDir(), "b"), WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	bareGit := &Vault{root: remote}
	add := func(v *Vault, name string) { t.Helper(); addFact(t, v, name) }
	head := func(v *Vault) string { return strings.TrimSpace(runGit(t, v, "rev-parse", "HEAD")) }
	remoteHead := func() string { return strings.TrimSpace(runGit(t, bareGit, "rev-parse", "main")) }

	var (
		events    []WatchEvent
		restoreAt time.Time
		sleeps    int
		beforeRw  string
	)
	steps := []func(ev WatchEvent){
		func(ev WatchEvent) { // start
			add(a, "knowledge/from-a")
		},
		func(ev WatchEvent) { // the new commit is pushed
			if ev.Trigger != "commit" || !ev.Result.Pushed || remoteHead() != head(a) {
				t.Fatalf("want the new commit pushed, got %+v (remote %s, a %s)", ev, remoteHead(), head(a))
			}
			add(b, "knowledge/from-b")
			if _, err := b.Sync(ctx, SyncOptions{}); err != nil {
				t.Fatal(err)
			}
		},
		func(ev WatchEvent) { // b's push comes in at the interval
			if ev.Trigger != "interval" || ev.Result.Merge != "fast-forward" {
				t.Fatalf("want b's push merged at the interval, got %+v", ev)
			}
			if err := os.Rename(remote, remote+".off"); err != nil {
				t.Fatal(err)
			}
			restoreAt = clk.Add(5 * time.Minute)
			add(a, "knowledge/offline-write")
		},
		func(ev WatchEvent) { // the remote is gone: said once
			if ev.Status != "offline" || ev.Error == "" || ev.RetryIn <= 0 {
				t.Fatalf("want offline, got %+v", ev)
			}
		},
		func(ev WatchEvent) { // back: the commit made offline is pushed
			if ev.Status != "synced" || !ev.Recovered || !ev.Result.Pushed || remoteHead() != head(a) {
				t.Fatalf("want a recovered push, got %+v", ev)
			}
			// Someone rewrites the remote: drop its last commit and
			// force-push another in its place.
			tmp := filepath.Join(t.TempDir(), "rw")
			runGit(t, &Vault{root: filepath.Dir(tmp)}, "clone", "-q", "-b", "main", remote, tmp)
			rw := &Vault{root: tmp}
			runGit(t, rw, "reset", "-q", "--hard", "HEAD~1")
			if err := os.WriteFile(filepath.Join(tmp, "rewritten.md"), []byte("# rewritten\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			runGit(t, rw, "add", "rewritten.md")
			runGit(t, rw, "commit", "-q", "-m", "rewrite")
			runGit(t, rw, "push", "-q", "--force", "origin", "HEAD:main")
			add(a, "knowledge/after-rewrite")
			beforeRw = head(a)
		},
		func(ev WatchEvent) { // refused, local work kept
			if ev.Status != "refused" || !strings.Contains(ev.Error, "rewritten") {
				t.Fatalf("want the rewritten remote refused, got %+v", ev)
			}
			if head(a) != beforeRw {
				t.Fatalf("the refused sync moved the branch: %s, want %s", head(a), beforeRw)
			}
			cancel()
		},
	}
	err = a.Watch(ctx, WatchOptions{
		Interval: time.Minute,
		Debounce: 2 * time.Second,
		Poll:     500 * time.Millisecond,
		Now:      now,
		Sleep: func(ctx context.Context, d time.Duration) error {
			clk = clk.Add(d)
			if sleeps++; sleeps > 100000 {
				t.Error("Watch kept sleeping without the events the test waits for")
				cancel()
			}
			if !restoreAt.IsZero() && clk.After(restoreAt) {
				restoreAt = time.Time{}
				if err := os.Rename(remote+".off", remote); err != nil {
					t.Fatal(err)
				}
			}
			return ctx.Err()
		},
		Report: func(ev WatchEvent) {
			events = append(events, ev)
			if len(events) > len(steps) {
				t.Fatalf("unexpected event %+v", ev)
			}
			steps[len(events)-1](ev)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != len(steps) {
		t.Fatalf("got %d events, want %d: %+v", len(events), len(steps), events)
	}
	for _, f := range []string{"knowledge/from-a.md", "knowledge/from-b.md", "knowledge/offline-write.md", "knowledge/after-rewrite.md"} {
		if _, err := os.Stat(filepath.Join(a.Root(), f)); err != nil {
			t.Errorf("lost %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(a.Root(), "rewritten.md")); err == nil {
		t.Error("the rewritten remote was merged")
	}
	checkClean(t, a)
	runGit(t, bareGit, "fsck", "--strict")
}

// addFact adds a fact entry name to v, committed.
func addFact(t *testing.T, v *Vault, name string) {
	t.Helper()
	body := "# " + name + "\n"
	if _, _, err := v.Add(t.Context(), AddOptions{Name: name, Meta: Meta{Type: "fact"}, Body: &body}); err != nil {
		t.Fatal(err)
	}
}

// TestSyncFetchTimeout: a remote that accepts the connection and never
// answers is given up after FetchTimeout, with the vault as it was.
func TestSyncFetchTimeout(t *testing.T) {
	v := testVault(t)
	silentRemote(t, v)
	before := runGit(t, v, "rev-parse", "HEAD")
	_, err := v.Sync(t.Context(), SyncOptions{PullOnly: true, FetchTimeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no answer within 200ms") {
		t.Fatalf("want no answer within 200ms, got %v", err)
	}
	if after := runGit(t, v, "rev-parse", "HEAD"); after != before {
		t.Fatalf("the branch moved: %s -> %s", before, after)
	}
}

// silentRemote makes origin of v a git:// server on 127.0.0.1 that accepts
// connections and never answers, until the test ends.
func silentRemote(t *testing.T, v *Vault) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c) // held open, silent
		}
	}()
	if err := v.AddRemote("origin", "git://"+l.Addr().String()+"/silent.git"); err != nil {
		t.Fatal(err)
	}
}

// TestWatchGivesUpOnASilentRemote: the watch's fetch is bounded, so a
// network that stopped answering is reported and retried, and never holds
// the watch (and the fetch lock other processes wait for) for ever.
func TestWatchGivesUpOnASilentRemote(t *testing.T) {
	v := testVault(t)
	silentRemote(t, v)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	events := make(chan WatchEvent, 1)
	done := make(chan error, 1)
	go func() {
		done <- v.Watch(ctx, WatchOptions{Interval: time.Minute, Sync: SyncOptions{FetchTimeout: 200 * time.Millisecond}, Report: func(ev WatchEvent) {
			select {
			case events <- ev:
			default:
			}
		}})
	}()
	select {
	case ev := <-events:
		if ev.Status != "offline" || !strings.Contains(ev.Error, "no answer within 200ms") {
			t.Errorf("first event %+v, want offline: no answer within 200ms", ev)
		}
	case err := <-done:
		t.Fatalf("the watch ended: %v", err)
	case <-time.After(time.Minute):
		// Not a measure of speed: a watch that waits on the silent
		// remote for ever never reports, and the test must end.
		t.Fatal("no sync reported in a minute")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
