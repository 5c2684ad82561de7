package worker

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/curator"
	"github.com/ctx0/ctx0/librarian"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
)

// testNow is the tests' clock: after every session of the fixtures.
var testNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func now() time.Time { return testNow }

// session is a real Claude Code session (see transcript's
// testdata/SOURCES.md).
var session = filepath.Join("..", "transcript", "testdata", "claude-code", "kiliman-test2-v1.0.57.jsonl")

// fixture is a new vault and its ingest state.
func fixture(t *testing.T) (*vault.Vault, *sessions.Store) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("these tests check the repository with the git binary")
	}
	v, _, err := vault.Init(t.Context(), filepath.Join(t.TempDir(), "vault"), vault.WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sessions.Open(t.Context(), v.Root(), sessions.WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return v, st
}

// queue reads path into st and queues its conversations, as a hook at the
// session's end does.
func queue(t *testing.T, st *sessions.Store, path string) {
	t.Helper()
	f, err := sessions.FileAt(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := st.Ingest(t.Context(), []sessions.File{f}, sessions.Options{End: true, Queue: true})
	if err != nil || len(rep.Errors) > 0 || rep.Queued == 0 {
		t.Fatalf("ingest %s: %+v, %v", path, rep, err)
	}
}

// start runs the worker until stop is called or the test ends, and
// returns its events.
func start(t *testing.T, o Options) (events <-chan Event, stop func()) {
	t.Helper()
	ch := make(chan Event, 100)
	o.Report = func(e Event) {
		select {
		case ch <- e:
		default:
			t.Errorf("event %+v not read", e)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return ch, stop
}

// next returns the next event that match accepts, failing the test if
// none comes within a generous deadline.
func next(t *testing.T, events <-chan Event, what string, match func(Event) bool) Event {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case e := <-events:
			if e.Time != testNow {
				t.Errorf("event at %v, want the injected clock's %v", e.Time, testNow)
			}
			if match(e) {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s within a minute", what)
		}
	}
}

func TestFilesQueuedConversationsThenCurates(t *testing.T) {
	v, st := fixture(t)
	queue(t, st, session)
	curate := func(ctx context.Context, sessionEnd bool) (curator.Result, bool, error) {
		if !sessionEnd {
			return curator.Result{}, false, nil
		}
		res, ran, _, err := curator.RunIfDue(ctx, curator.Options{Vault: v, SessionEnd: true, Now: now})
		return res, ran, err
	}
	events, stop := start(t, Options{Librarian: librarian.Options{Vault: v, Store: st}, Curate: curate, Now: now})

	filed := next(t, events, "conversation filed", func(e Event) bool {
		if e.Err != nil {
			t.Fatalf("%s: %v", e.Stage, e.Err)
		}
		return e.Filed != nil
	})
	if len(filed.Filed.Filed.Created) == 0 {
		t.Errorf("filed %+v: created nothing", filed.Filed.Filed)
	}
	next(t, events, "curator run", func(e Event) bool {
		if e.Err != nil {
			t.Fatalf("%s: %v", e.Stage, e.Err)
		}
		return e.Curated != nil
	})
	stop()
	queued, err := st.Conversations(t.Context(), sessions.Queued)
	if err != nil || len(queued) > 0 {
		t.Errorf("still queued: %v, %v", queued, err)
	}
	if out, err := exec.Command("git", "-C", v.Root(), "fsck", "--strict").CombinedOutput(); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
	if out, err := exec.Command("git", "-C", v.Root(), "status", "--porcelain").Output(); err != nil || len(out) > 0 {
		t.Errorf("git status: %q, %v", out, err)
	}
}

func TestFollowsSessionFolders(t *testing.T) {
	v, st := fixture(t)
	dir := t.TempDir()
	events, _ := start(t, Options{Librarian: librarian.Options{Vault: v, Store: st}, Dirs: []string{dir}, Now: now})
	next(t, events, "start of the watch", func(e Event) bool { return e.Ingest != nil && e.Ingest.Started })

	data, err := os.ReadFile(session)
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(dir, "-home-sam-app")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "s1.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	e := next(t, events, "session read", func(e Event) bool {
		return e.Ingest != nil && e.Ingest.File != "" && e.Ingest.Report.Messages > 0
	})
	if got, want := filepath.Base(e.Ingest.File), "s1.jsonl"; got != want {
		t.Errorf("read %s, want %s", got, want)
	}
}

func TestFailedRunWaitsInTheQueueAndIsRetried(t *testing.T) {
	v, st := fixture(t)
	queue(t, st, session)
	failing := llm.NewCommand([]string{"false"}, "", time.Minute)
	events, stop := start(t, Options{
		Librarian:  librarian.Options{Vault: v, Store: st, Provider: failing},
		Now:        now,
		RetryPause: time.Millisecond,
		RetryMax:   time.Millisecond,
	})
	for i := range 2 { // the failure, then the retry's
		e := next(t, events, "failed librarian run", func(e Event) bool {
			if e.Filed != nil {
				t.Fatalf("filed with a model that fails: %+v", e.Filed)
			}
			return e.Err != nil
		})
		if e.Stage != StageLibrarian {
			t.Errorf("failure %d from %q, want %q", i, e.Stage, StageLibrarian)
		}
	}
	stop() // a run cut short by the stop goes back to the queue too
	queued, err := st.Conversations(t.Context(), sessions.Queued)
	if err != nil || len(queued) == 0 {
		t.Errorf("queued after failures: %v, %v; want the conversation back in the queue", queued, err)
	}
}

func TestRunNeedsAStore(t *testing.T) {
	err := Run(t.Context(), Options{})
	if err == nil || errors.Is(err, context.Canceled) {
		t.Errorf("Run without a store: %v, want an error", err)
	}
}
