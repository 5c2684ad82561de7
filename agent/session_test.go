package agent

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/internal/gittest"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

var clock = time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)

func at(t time.Time) func() time.Time { return func() time.Time { return t } }

const alpha = "---\ntitle: Alpha\ntype: fact\ntags: [a]\n---\nOne.\nTwo.\n"

// testVault is a new vault holding knowledge/alpha.md.
func testVault(t *testing.T) *vault.Vault {
	t.Helper()
	gittest.Require(t)
	v := vaulttest.New(t, vault.WithClock(at(clock)))
	if _, err := v.Import(t.Context(), []vault.ImportFile{{Name: "knowledge/alpha", Data: []byte(alpha)}}, "test"); err != nil {
		t.Fatal(err)
	}
	return v
}

func begin(t *testing.T, v *vault.Vault, now time.Time) *Session {
	t.Helper()
	s, err := Begin(t.Context(), v, Options{Kind: "librarian", Trigger: "conversation 7", Provider: "offline", Now: at(now)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFinishMergesTheRunWhileTheUserWrites(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	s := begin(t, v, clock)
	base := gittest.Run(t, v.Root(), "rev-parse", "HEAD")
	if s.Tree().Commit() != base {
		t.Fatalf("base %s, HEAD %s", s.Tree().Commit(), base)
	}
	old, err := s.Read(ctx, "knowledge/alpha.md")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write("knowledge/alpha.md", []byte(strings.Replace(string(old), "tags: [a]", "tags: [a, b]", 1))); err != nil {
		t.Fatal(err)
	}
	newEntry := "---\ntitle: New\n---\nFiled by the run.\n"
	if err := s.Write("knowledge/new.md", []byte(newEntry)); err != nil {
		t.Fatal(err)
	}
	s.AddUsage(llm.Usage{InputTokens: 100, OutputTokens: 10})
	s.AddUsage(llm.Usage{InputTokens: 20, OutputTokens: 5})

	// The user writes meanwhile: to the same entry, and a new one.
	if _, _, err := v.Write(ctx, "knowledge/alpha", "One.\nTwo, edited by the user.\n"); err != nil {
		t.Fatal(err)
	}
	rem, err := v.Remember(ctx, vault.RememberOptions{Text: "Sam owns billing."})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(v.Root(), "knowledge", "new.md")); err == nil {
		t.Fatal("the run wrote into the work tree before Finish")
	}

	run, err := s.Finish(ctx, "librarian: file conversation 7")
	if err != nil {
		t.Fatal(err)
	}
	gittest.CheckClean(t, v.Root())
	if run.Status != StatusDone || run.Base != base || run.Conflicts != 0 || run.Error != "" {
		t.Errorf("run = %+v", run)
	}
	if !slices.Equal(run.Created, []string{"knowledge/new.md"}) || !slices.Equal(run.Updated, []string{"knowledge/alpha.md"}) {
		t.Errorf("created %q, updated %q", run.Created, run.Updated)
	}
	if run.Usage != (llm.Usage{InputTokens: 120, OutputTokens: 15}) {
		t.Errorf("usage = %+v", run.Usage)
	}
	if got := gittest.Run(t, v.Root(), "rev-parse", "refs/ctx0/runs/"+run.ID); got != run.Result {
		t.Errorf("run ref = %s, result %s", got, run.Result)
	}
	if got := gittest.Run(t, v.Root(), "log", "-1", "--format=%P", run.Result); got != base {
		t.Errorf("run commit's parents %q, want the base %s", got, base)
	}
	if !strings.Contains(gittest.Run(t, v.Root(), "log", "-1", "--format=%B", run.Result), "Run: "+run.ID) {
		t.Error("the run commit does not name its run")
	}
	if head := gittest.Run(t, v.Root(), "rev-parse", "HEAD"); run.Merged != head {
		t.Errorf("merged %s, HEAD %s", run.Merged, head)
	}
	// Every write survives: the run's and the user's.
	got, err := os.ReadFile(filepath.Join(v.Root(), "knowledge", "alpha.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "tags: [a, b]") || !strings.Contains(string(got), "Two, edited by the user.") {
		t.Errorf("alpha.md lost an edit:\n%s", got)
	}
	for _, p := range []string{"knowledge/new.md", vault.EntryPath(rem.Name)} {
		if _, err := os.Stat(filepath.Join(v.Root(), filepath.FromSlash(p))); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}

	rec, err := Get(ctx, v.Root(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != StatusDone || rec.Result != run.Result || !rec.Ended.Equal(run.Ended) || !slices.Equal(rec.Created, run.Created) {
		t.Errorf("recorded %+v\nreturned %+v", rec, run)
	}
	if _, err := s.Finish(ctx, "again"); err == nil {
		t.Error("a second Finish succeeded")
	}
	if err := s.Write("knowledge/late.md", []byte("late\n")); err == nil {
		t.Error("Write after Finish succeeded")
	}
}

func TestReadSeesPendingWrites(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	s := begin(t, v, clock)
	defer s.Abort(ctx, nil)
	steps := []struct {
		do   func() error
		path string
		want string // "" for not found
	}{
		{nil, "knowledge/alpha.md", alpha},
		{nil, "knowledge/new.md", ""},
		{func() error { return s.Write("knowledge/new.md", []byte("new\n")) }, "knowledge/new.md", "new\n"},
		{func() error { return s.Write("knowledge/alpha.md", []byte("changed\n")) }, "knowledge/alpha.md", "changed\n"},
		{func() error { return s.Delete("knowledge/alpha.md") }, "knowledge/alpha.md", ""},
		{func() error { return s.Write("knowledge/alpha.md", []byte("back\n")) }, "knowledge/alpha.md", "back\n"},
	}
	for i, st := range steps {
		if st.do != nil {
			if err := st.do(); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
		}
		got, err := s.Read(ctx, st.path)
		if st.want == "" {
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("step %d: Read(%s) = %q, %v; want not found", i, st.path, got, err)
			}
			continue
		}
		if err != nil || string(got) != st.want {
			t.Errorf("step %d: Read(%s) = %q, %v; want %q", i, st.path, got, err, st.want)
		}
	}
	// The base is untouched.
	if got, _ := s.Tree().Read(ctx, "knowledge/alpha.md"); string(got) != alpha {
		t.Errorf("base alpha.md = %q", got)
	}
	for _, p := range []string{"../x.md", ".git/config", ".ctx0/state/runs/x.md", "notes.txt", "/abs.md"} {
		if err := s.Write(p, []byte("x\n")); err == nil {
			t.Errorf("Write(%q) succeeded", p)
		}
		if err := s.Delete(p); err == nil {
			t.Errorf("Delete(%q) succeeded", p)
		}
	}
}

func TestAbortLeavesTheBranch(t *testing.T) {
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name   string
		end    func(s *Session) (Run, error)
		status string
		errMsg string
	}{
		{"abort on failure", func(s *Session) (Run, error) { return s.Abort(t.Context(), errors.New("provider down")) }, StatusFailed, "provider down"},
		{"abort on cancel", func(s *Session) (Run, error) { return s.Abort(canceled, canceled.Err()) }, StatusCancelled, "context canceled"},
		{"finish with a cancelled context", func(s *Session) (Run, error) {
			run, err := s.Finish(canceled, "never merged")
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Finish error = %v, want context.Canceled", err)
			}
			return run, nil
		}, StatusCancelled, "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := testVault(t)
			head := gittest.Run(t, v.Root(), "rev-parse", "HEAD")
			s := begin(t, v, clock)
			if err := s.Write("knowledge/new.md", []byte("tried\n")); err != nil {
				t.Fatal(err)
			}
			run, err := tt.end(s)
			if err != nil {
				t.Fatal(err)
			}
			if run.Status != tt.status || !strings.Contains(run.Error, tt.errMsg) {
				t.Errorf("run = %+v; want %s with %q", run, tt.status, tt.errMsg)
			}
			if got := gittest.Run(t, v.Root(), "rev-parse", "HEAD"); got != head {
				t.Errorf("HEAD moved from %s to %s", head, got)
			}
			gittest.CheckClean(t, v.Root())
			if _, err := os.Stat(filepath.Join(v.Root(), "knowledge", "new.md")); err == nil {
				t.Error("the aborted run's file reached the work tree")
			}
			rec, err := Get(t.Context(), v.Root(), run.ID)
			if err != nil || rec.Status != tt.status {
				t.Errorf("recorded %+v, %v", rec, err)
			}
		})
	}
}

func TestAbortKeepsWhatTheRunTriedOnItsRef(t *testing.T) {
	v := testVault(t)
	s := begin(t, v, clock)
	if err := s.Write("knowledge/new.md", []byte("tried\n")); err != nil {
		t.Fatal(err)
	}
	run, err := s.Abort(t.Context(), errors.New("reply failed the schema"))
	if err != nil {
		t.Fatal(err)
	}
	if run.Result == "" {
		t.Fatal("no commit of what the run tried")
	}
	if got := gittest.Run(t, v.Root(), "show", "refs/ctx0/runs/"+run.ID+":knowledge/new.md"); got != "tried" {
		t.Errorf("run ref holds %q", got)
	}
}

func TestFinishWithoutChanges(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	head := gittest.Run(t, v.Root(), "rev-parse", "HEAD")
	s := begin(t, v, clock)
	// Writing what is already there, and deleting what is not, change nothing.
	if err := s.Write("knowledge/alpha.md", []byte(alpha)); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("knowledge/absent.md"); err != nil {
		t.Fatal(err)
	}
	run, err := s.Finish(ctx, "nothing")
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != StatusDone || run.Result != "" || run.Merged != "" || len(run.Created)+len(run.Updated)+len(run.Deleted) != 0 {
		t.Errorf("run = %+v", run)
	}
	if got := gittest.Run(t, v.Root(), "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved")
	}
	if refs := gittest.Run(t, v.Root(), "for-each-ref", "refs/ctx0/"); refs != "" {
		t.Errorf("refs made: %s", refs)
	}
}

func TestListStatusAndOrder(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	root := v.Root()
	if runs, err := List(ctx, root); err != nil || len(runs) != 0 || runs == nil {
		t.Fatalf("List on a new vault = %#v, %v", runs, err)
	}

	// Begun out of order in time; listed newest first.
	var ids []string
	for _, min := range []int{2, 3, 1} {
		s := begin(t, v, clock.Add(time.Duration(min)*time.Minute))
		if _, err := s.Finish(ctx, ""); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID())
	}
	live := begin(t, v, clock.Add(4*time.Minute))
	// A record left running by a process that died holds no lock.
	dead := Run{ID: "20260128T100500.000Z-deadbeef", Kind: "curator", Status: StatusRunning, Started: clock.Add(5 * time.Minute)}
	if err := save(root, dead); err != nil {
		t.Fatal(err)
	}

	runs, err := List(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.ID+" "+r.Status)
	}
	want := []string{dead.ID + " died", live.ID() + " running", ids[1] + " done", ids[0] + " done", ids[2] + " done"}
	if !slices.Equal(got, want) {
		t.Errorf("List =\n%q\nwant\n%q", got, want)
	}
	if runs[0].Created == nil {
		t.Error("a record without lists reads with nil lists")
	}

	if _, err := live.Finish(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if r, err := Get(ctx, root, live.ID()); err != nil || r.Status != StatusDone {
		t.Errorf("after Finish: %+v, %v", r, err)
	}
	for _, id := range []string{"nope", "../x", ""} {
		if _, err := Get(ctx, root, id); !errors.Is(err, ErrNoRun) {
			t.Errorf("Get(%q) = %v, want ErrNoRun", id, err)
		}
	}
}

// Two runs from one base, finished at the same time: the vault lock queues
// their merges, and everything both wrote survives.
func TestConcurrentRunsBothSurvive(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	edits := []struct{ from, to, entry string }{
		{"tags: [a]", "tags: [a]\nproject: bot0", "knowledge/from-first.md"},
		{"Two.", "Two, from the second run.", "knowledge/from-second.md"},
	}
	sessions := make([]*Session, len(edits))
	for i, e := range edits {
		s := begin(t, v, clock)
		if err := s.Write("knowledge/alpha.md", []byte(strings.Replace(alpha, e.from, e.to, 1))); err != nil {
			t.Fatal(err)
		}
		if err := s.Write(e.entry, []byte("---\ntitle: X\n---\nx\n")); err != nil {
			t.Fatal(err)
		}
		sessions[i] = s
	}
	errs := make(chan error, len(sessions))
	for _, s := range sessions {
		go func() {
			_, err := s.Finish(ctx, "")
			errs <- err
		}()
	}
	for range sessions {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	gittest.CheckClean(t, v.Root())
	got, err := os.ReadFile(filepath.Join(v.Root(), "knowledge", "alpha.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edits {
		if !strings.Contains(string(got), e.to) {
			t.Errorf("alpha.md lost %q:\n%s", e.to, got)
		}
		if _, err := os.Stat(filepath.Join(v.Root(), filepath.FromSlash(e.entry))); err != nil {
			t.Error(err)
		}
	}
	runs, err := List(ctx, v.Root())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Status != StatusDone || r.Conflicts != 0 {
			t.Errorf("run %s: %s, %d conflict(s)", r.ID, r.Status, r.Conflicts)
		}
	}
}
