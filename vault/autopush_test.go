package vault

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// TestPushWanted: writes record that a push is wanted (and ask for one
// pusher, not one per write); the pusher pushes them all in one sync,
// keeps the record while the remote is unreachable, and pushes once it is
// back. A pusher that finds another holding the lock leaves it the work.
func TestPushWanted(t *testing.T) {
	ctx := t.Context()
	remote := bareRemote(t)
	clk := time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)
	now := func() time.Time { return clk }
	starts := 0
	v, _, err := Init(ctx, t.TempDir(), WithClock(now), WithOnCommit(func(v *Vault) {
		start, err := WantPush(v.Root())
		if err != nil {
			t.Error(err)
		}
		if start {
			starts++
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.AddRemote("origin", remote); err != nil {
		t.Fatal(err)
	}
	starts = 0 // init's own commit asked for one
	add := func(name string) { t.Helper(); addFact(t, v, name) }
	head := func() string { return strings.TrimSpace(runGit(t, v, "rev-parse", "HEAD")) }
	remoteHead := func() string {
		return strings.TrimSpace(runGit(t, &Vault{root: remote}, "rev-parse", "--verify", "-q", "main"))
	}
	var events []WatchEvent
	o := PushOptions{
		Now:    now,
		Sleep:  func(ctx context.Context, d time.Duration) error { clk = clk.Add(d); return ctx.Err() },
		Report: func(ev WatchEvent) { events = append(events, ev) },
		GiveUp: 10 * time.Minute,
	}

	for _, n := range []string{"knowledge/one", "knowledge/two", "knowledge/three"} {
		add(n)
	}
	if !PushIsWanted(v.Root()) || starts != 3 {
		t.Fatalf("after 3 writes with no pusher: wanted %v, starts %d; want true, 3", PushIsWanted(v.Root()), starts)
	}

	// Another process holds the push lock: this one leaves it the work,
	// and the writes do not ask for another pusher.
	held := flock.New(filepath.Join(v.Root(), filepath.FromSlash(pushLockFile)))
	if ok, err := held.TryLock(); !ok || err != nil {
		t.Fatalf("take the push lock: %v %v", ok, err)
	}
	add("knowledge/four")
	if starts != 3 {
		t.Errorf("a write asked for a pusher while one held the lock")
	}
	if err := v.PushWanted(ctx, o); err != nil || len(events) != 0 || !PushIsWanted(v.Root()) {
		t.Fatalf("with the lock held elsewhere: err %v, events %v, wanted %v", err, events, PushIsWanted(v.Root()))
	}
	held.Unlock()

	if err := v.PushWanted(ctx, o); err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || !events[0].Result.Pushed || remoteHead() != head() || PushIsWanted(v.Root()) {
		t.Fatalf("want one push of every write: events %+v, remote %s, head %s, wanted %v", events, remoteHead(), head(), PushIsWanted(v.Root()))
	}

	// Offline: told once, the record is kept when it gives up, and the
	// commit is pushed by the next pusher once the remote is back.
	if err := os.Rename(remote, remote+".off"); err != nil {
		t.Fatal(err)
	}
	add("knowledge/offline")
	events = nil
	err = v.PushWanted(ctx, o)
	if err == nil || len(events) != 2 || events[0].Status != "offline" || events[0].RetryIn <= 0 || !PushIsWanted(v.Root()) {
		t.Fatalf("offline: err %v, events %+v, wanted %v", err, events, PushIsWanted(v.Root()))
	}
	if err := os.Rename(remote+".off", remote); err != nil {
		t.Fatal(err)
	}
	if err := v.PushWanted(ctx, o); err != nil {
		t.Fatal(err)
	}
	if remoteHead() != head() || PushIsWanted(v.Root()) {
		t.Fatalf("back online: remote %s, head %s, wanted %v", remoteHead(), head(), PushIsWanted(v.Root()))
	}
	if _, err := os.Stat(filepath.Join(v.Root(), "knowledge", "offline.md")); err != nil {
		t.Fatal(err)
	}
	checkClean(t, v)
	runGit(t, &Vault{root: remote}, "fsck", "--strict")
}

// TestSyncCommitsAskNoPush: the commits a sync makes (here, of an edit made
// with another tool) are its own to push and do not call onCommit; a write
// of this process does.
func TestSyncCommitsAskNoPush(t *testing.T) {
	ctx := t.Context()
	remote := bareRemote(t)
	calls := 0
	v, _, err := Init(ctx, t.TempDir(), WithOnCommit(func(*Vault) { calls++ }))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.AddRemote("origin", remote); err != nil {
		t.Fatal(err)
	}
	addFact(t, v, "knowledge/one")
	if calls == 0 {
		t.Fatal("a write did not call onCommit")
	}
	calls = 0
	path := filepath.Join(v.Root(), "knowledge", "one.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, "Edited in another editor.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := v.Sync(ctx, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.External == nil || !res.Pushed {
		t.Fatalf("sync committed no external edit or pushed nothing: %+v", res)
	}
	if calls != 0 {
		t.Errorf("the sync's commit called onCommit %d times", calls)
	}
	addFact(t, v, "knowledge/two")
	if calls != 1 {
		t.Errorf("a write after the sync called onCommit %d times, want 1", calls)
	}
}
