package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx0/ctx0/internal/filelock"
)

// Writes that arrive while a commit is being made go into the next commit
// together, each with its own result: a name, the commit that holds it, its
// own line in the message. A write that fails fails alone, a duplicate is
// caught within the group, and two writes of one entry go into two commits,
// neither lost. Checked with the real git.
func TestGroupCommit(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	base, err := v.Remember(ctx, RememberOptions{Text: "The shared entry that two writers edit at once."})
	if err != nil {
		t.Fatal(err)
	}
	before := strings.TrimSpace(runGit(t, v, "rev-list", "--count", "HEAD"))
	waitIdle(t, v) // the runner of base's write may outlive its answer

	// Hold the vault lock, as another writer would, while writes queue.
	unlock, err := v.lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		what string
		name string
		c    Commit
		dup  bool
		err  error
	}
	results := make(chan result, 64)
	var wg sync.WaitGroup
	remember := func(what, text string) {
		wg.Go(func() {
			r, err := v.Remember(ctx, RememberOptions{Text: text})
			results <- result{what, r.Name, r.Commit, r.Duplicate, err}
		})
	}
	set := func(what, field, value string) {
		wg.Go(func() {
			name, c, err := v.Set(ctx, base.Name, field, value)
			results <- result{what, name, c, false, err}
		})
	}
	// The first write is taken at once and waits for the lock; the others
	// queue behind it for the next commit.
	remember("first", "The first write, alone in its commit.")
	waitQueued(t, v, 0)
	for i := range 12 {
		remember("fact", fmt.Sprintf("Fact %d about the deploy pipeline.", i))
	}
	for i := range 3 { // one title: three names
		remember("same title", fmt.Sprintf("Rollbacks need a ticket.\n\nVariant %d.", i))
	}
	remember("twin", "A text sent twice by two agents.")
	remember("twin", "A text sent twice by two agents.")
	set("bad", "pinned", "maybe")
	set("tags", "tags", "ops, deploy")
	set("project", "project", "pipeline")
	waitQueued(t, v, 20)
	unlock()
	wg.Wait()
	close(results)

	commits := map[string][]result{}
	var names []string
	dups := 0
	for r := range results {
		switch {
		case r.what == "bad":
			if r.err == nil || !strings.Contains(r.err.Error(), "not true or false") {
				t.Errorf("bad set: %v, want its own error", r.err)
			}
			continue
		case r.err != nil:
			t.Errorf("%s %s: %v", r.what, r.name, r.err)
			continue
		case r.dup:
			dups++
			continue
		}
		commits[r.c.Hash] = append(commits[r.c.Hash], r)
		names = append(names, r.name)
		// The commit returned holds the write.
		runGit(t, v, "cat-file", "-e", r.c.Hash+":"+r.name+".md")
		if !slices.Equal(r.c.Paths, []string{r.name + ".md"}) {
			t.Errorf("%s: paths %v, want only its own", r.name, r.c.Paths)
		}
	}
	if dups != 1 {
		t.Errorf("%d duplicates, want 1 of the twins", dups)
	}
	// The first write, a commit of every other, and the second edit of
	// the shared entry after it.
	if len(commits) != 3 {
		t.Errorf("%d commits, want 3: %v", len(commits), commits)
	}
	after := strings.TrimSpace(runGit(t, v, "rev-list", "--count", "HEAD"))
	if fmt.Sprint(len(commits)) != fmt.Sprint(atoi(after)-atoi(before)) {
		t.Errorf("%s commits on the branch after %s, want %d more", after, before, len(commits))
	}
	for h, rs := range commits {
		msg := runGit(t, v, "log", "-1", "--format=%B", h)
		if len(rs) == 1 {
			continue
		}
		subject, body, _ := strings.Cut(strings.TrimSpace(msg), "\n\n")
		if subject != fmt.Sprintf("ctx0: %d writes", len(rs)) {
			t.Errorf("group subject %q, want it to count %d writes", subject, len(rs))
		}
		lines := strings.Split(body, "\n")
		if len(lines) != len(rs) {
			t.Errorf("%d lines for %d writes:\n%s", len(lines), len(rs), msg)
		}
		for _, r := range rs {
			if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasSuffix(l, " "+r.name) }) {
				t.Errorf("no line for %s in:\n%s", r.name, msg)
			}
		}
	}
	slices.Sort(names)
	for _, want := range []string{"knowledge/rollbacks-need-a-ticket", "knowledge/rollbacks-need-a-ticket-2", "knowledge/rollbacks-need-a-ticket-3"} {
		if _, ok := slices.BinarySearch(names, want); !ok {
			t.Errorf("no %s among %v", want, names)
		}
	}
	d, err := v.Get(ctx, base.Name)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Entry.Bytes(); !strings.Contains(string(got), "project: pipeline") || !strings.Contains(string(got), "deploy") {
		t.Errorf("one edit of the shared entry is lost:\n%s", got)
	}
	checkClean(t, v)
	// History names the entry's own line of a group commit.
	h, err := v.History(ctx, names[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(h[0].Subject, " "+names[0]) {
		t.Errorf("history of %s says %q", names[0], h[0].Subject)
	}
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}

// A caller that stops waiting while its write waits for the lock gets its
// context's error at once, and its write is never made; the writes
// waiting with it are.
func TestGroupWriteCancelledWhileWaiting(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	unlock, err := v.lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := runGit(t, v, "rev-list", "--count", "HEAD")
	cctx, cancel := context.WithCancel(ctx)
	gone := make(chan error, 1)
	go func() {
		_, err := v.Remember(cctx, RememberOptions{Text: "A fact whose caller gives up."})
		gone <- err
	}()
	kept := make(chan error, 1)
	go func() {
		_, err := v.Remember(ctx, RememberOptions{Text: "A fact whose caller waits."})
		kept <- err
	}()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		v.writes.mu.Lock()
		running := v.writes.running
		v.writes.mu.Unlock()
		if running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the writes never queued")
		}
	}
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled write returned %v, want context.Canceled", err)
	}
	unlock()
	if err := <-kept; err != nil {
		t.Fatal(err)
	}
	if after := runGit(t, v, "rev-list", "--count", "HEAD"); atoi(strings.TrimSpace(after)) != atoi(strings.TrimSpace(before))+1 {
		t.Errorf("%s commits after %s, want one more", strings.TrimSpace(after), strings.TrimSpace(before))
	}
	if files := runGit(t, v, "ls-tree", "-r", "--name-only", "HEAD"); strings.Contains(files, "gives-up") {
		t.Errorf("the cancelled write was made:\n%s", files)
	}
	checkClean(t, v)
}

// A write returns only once the vault lock is released and its journal
// removed: a process that exits as soon as its write returns (the CLI)
// otherwise left the journal behind now and then, and the next command
// repaired a write that was whole, reading all of git's staging area.
func TestWriteReturnsAfterJournalRemoved(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	journal := filepath.Join(v.Root(), filepath.FromSlash(journalFile))
	lock := filepath.Join(v.Root(), lockFile)
	for i := range 60 {
		if _, err := v.Remember(ctx, RememberOptions{Text: fmt.Sprintf("Fact %d, written alone.", i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(journal); err == nil {
			t.Fatalf("write %d returned with its journal %s still there", i, journal)
		}
		l, ok, err := filelock.TryExclusive(lock)
		if err != nil || !ok {
			t.Fatalf("write %d returned with the vault lock still held (%v)", i, err)
		}
		l.Unlock()
	}
}

// pinCounter is the vault's own catalog, counting how often a group pins
// it and how often it hears of changed files.
type pinCounter struct {
	*scanCatalog
	mu      sync.Mutex
	pins    int
	changed [][]string
}

func (c *pinCounter) Pin(ctx context.Context) (Catalog, error) {
	c.mu.Lock()
	c.pins++
	c.mu.Unlock()
	return c.scanCatalog, c.load(ctx)
}

func (c *pinCounter) Changed(ctx context.Context, paths []string) error {
	c.mu.Lock()
	c.changed = append(c.changed, slices.Clone(paths))
	c.mu.Unlock()
	return c.scanCatalog.Changed(ctx, paths)
}

// The writes of a group ask the catalog as the group found it, pinned
// once, and see the group's earlier writes from what they wrote: a text
// remembered twice is one entry, an alias taken earlier in the group is
// refused. The catalog hears of the group's files once, after its commit,
// not once a write.
func TestGroupViewAnswersForTheGroup(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	var names []string
	for _, text := range []string{"The first entry that gets an alias.", "The second entry that wants it."} {
		r, err := v.Remember(ctx, RememberOptions{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, r.Name)
	}
	cat := &pinCounter{scanCatalog: &scanCatalog{v: v}}
	v.SetCatalog(cat)

	unlock, err := v.lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The writes above are answered before their runner stops: wait for
	// it, or it would take the first write below into the group of the
	// second.
	waitIdle(t, v)
	var wg sync.WaitGroup
	type result struct {
		what string
		r    Remembered
		err  error
	}
	results := make(chan result, 16)
	remember := func(what, text string) {
		wg.Go(func() {
			r, err := v.Remember(ctx, RememberOptions{Text: text})
			results <- result{what, r, err}
		})
	}
	alias := func(what, name string) {
		wg.Go(func() {
			_, _, err := v.Alias(ctx, name, "ops lead")
			results <- result{what: what, err: err}
		})
	}
	remember("first", "Alone in the first group, waiting for the lock.")
	waitQueued(t, v, 0)
	remember("twin", "A text two agents send at once.")
	waitQueued(t, v, 1)
	remember("twin", "A text two agents send at once.")
	waitQueued(t, v, 2)
	alias("alias", names[0])
	waitQueued(t, v, 3)
	alias("alias again", names[1])
	waitQueued(t, v, 4)
	for i := range 4 {
		remember("fact", fmt.Sprintf("Fact %d of the group.", i))
	}
	waitQueued(t, v, 8)
	unlock()
	wg.Wait()
	close(results)

	dups := 0
	for r := range results {
		switch {
		case r.what == "alias again":
			if r.err == nil || !strings.Contains(r.err.Error(), `alias "ops lead" is taken`) {
				t.Errorf("second alias: %v, want it taken by %s", r.err, names[0])
			}
		case r.err != nil:
			t.Errorf("%s: %v", r.what, r.err)
		case r.r.Duplicate:
			dups++
		}
	}
	if dups != 1 {
		t.Errorf("%d duplicates, want 1 of the twins", dups)
	}
	if cat.pins != 2 {
		t.Errorf("catalog pinned %d times, want once a group (2)", cat.pins)
	}
	// The first group's file, then the second group's six: one entry
	// remembered, one aliased, four facts.
	if len(cat.changed) != 2 || len(cat.changed[0]) != 1 || len(cat.changed[1]) != 6 {
		t.Errorf("catalog told of %v, want one call a group: 1 file, then 6", cat.changed)
	}
	if ms, err := v.Resolve(ctx, "ops lead"); err != nil || ms != names[0] {
		t.Errorf(`"ops lead" resolves to %q (%v), want %s`, ms, err, names[0])
	}
	checkClean(t, v)
}

// A group's files are made durable together, each folder once, before the
// branch moves to the commit that holds them: one sync a group, not two
// fsyncs a write in turn, and never a commit that a power cut could leave
// without its files.
func TestGroupSyncsItsFilesBeforeItsCommit(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	type synced struct {
		files, dirs []string
		head        string
	}
	var calls []synced
	defer func(f func(files, dirs []string)) { syncing = f }(syncing)
	syncing = func(files, dirs []string) {
		// Called once a commit, each call over before the next begins.
		calls = append(calls, synced{slices.Clone(files), slices.Clone(dirs), strings.TrimSpace(runGit(t, v, "rev-parse", "HEAD"))})
	}
	unlock, err := v.lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	results := make(chan Remembered, 8)
	var wg sync.WaitGroup
	remember := func(text, typ string) {
		wg.Go(func() {
			r, err := v.Remember(ctx, RememberOptions{Text: text, Type: typ})
			if err != nil {
				t.Error(err)
			}
			results <- r
		})
	}
	remember("Alone in the first group.", "note")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		v.writes.mu.Lock()
		running := v.writes.running && len(v.writes.pending) == 0
		v.writes.mu.Unlock()
		if running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first write never started")
		}
	}
	for i := range 4 {
		remember(fmt.Sprintf("Fact %d of the second group.", i), []string{"note", "decision"}[i%2])
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		v.writes.mu.Lock()
		n := len(v.writes.pending)
		v.writes.mu.Unlock()
		if n == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued, want 4", n)
		}
	}
	unlock()
	wg.Wait()
	close(results)

	if len(calls) != 2 {
		t.Fatalf("%d syncs, want one a group (2): %v", len(calls), calls)
	}
	var second []string
	for r := range results {
		file := filepath.Join(v.root, filepath.FromSlash(r.Name+".md"))
		if !strings.Contains(r.Name, "second-group") {
			continue
		}
		second = append(second, file)
		if !slices.Contains(calls[1].files, file) || !slices.Contains(calls[1].dirs, filepath.Dir(file)) {
			t.Errorf("%s or its folder not synced with its group: %v", file, calls[1])
		}
		// The branch moved only after the sync.
		if parent := strings.TrimSpace(runGit(t, v, "rev-parse", r.Commit.Hash+"^")); parent != calls[1].head {
			t.Errorf("commit %s of %s follows %s, but HEAD was %s when its files were synced", r.Commit.Hash, r.Name, parent, calls[1].head)
		}
	}
	if len(second) != 4 || len(calls[1].files) != 4 || len(calls[1].dirs) != 2 {
		t.Errorf("second group synced %d files in %d folders (%v), want its 4 files in 2 folders", len(calls[1].files), len(calls[1].dirs), calls[1])
	}
	checkClean(t, v)
}

// waitQueued waits until n writes wait in v's queue behind a group the
// runner has taken.
func waitQueued(t *testing.T, v *Vault, n int) {
	t.Helper()
	waitWrites(t, v, fmt.Sprintf("%d writes queued", n), func(pending int, running bool) bool { return pending == n && running })
}

// waitIdle waits until v's write runner has stopped: a write is answered
// before its runner looks for the next group, so a test that counts the
// queue must not take that runner for the one its own first write starts.
func waitIdle(t *testing.T, v *Vault) {
	t.Helper()
	waitWrites(t, v, "the write runner idle", func(pending int, running bool) bool { return pending == 0 && !running })
}

// waitWrites waits until ok holds of v's write queue, failing after a
// minute.
func waitWrites(t *testing.T, v *Vault, what string, ok func(pending int, running bool) bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		v.writes.mu.Lock()
		pending, running := len(v.writes.pending), v.writes.running
		v.writes.mu.Unlock()
		if ok(pending, running) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("want %s: %d writes queued, runner running %v", what, pending, running)
		}
	}
}

// A remember builds its entry and stores its blob before it queues for the
// vault lock, beside the other writers, so that the group's leader, which
// decides writes in turn, only names and places it. It is still decided
// under the lock, and the vault is whole after.
func TestRememberStoresBeforeQueueing(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	loose := func() int {
		t.Helper()
		n := 0
		dirs, err := filepath.Glob(filepath.Join(v.gitDir, "objects", "[0-9a-f][0-9a-f]"))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dirs {
			files, err := os.ReadDir(d)
			if err != nil {
				t.Fatal(err)
			}
			n += len(files)
		}
		return n
	}
	waitIdle(t, v) // no runner of an earlier write is mistaken for this one's
	unlock, err := v.lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := loose()
	done := make(chan error, 1)
	go func() {
		_, err := v.Remember(ctx, RememberOptions{Text: "Stored while another writer holds the vault."})
		done <- err
	}()
	waitQueued(t, v, 0) // taken by the runner, which waits for the lock
	if after := loose(); after != before+1 {
		t.Errorf("%d loose objects while the write waits for the lock, want %d (its blob)", after, before+1)
	}
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkClean(t, v)
}
