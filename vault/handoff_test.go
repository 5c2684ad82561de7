package vault_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/internal/gittest"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// Environment of the processes TestHandOffToWatcher runs: the test binary
// run again as a watcher, or as a ctx0 process that makes one write.
const (
	handoffEnvWatch = "CTX0_TEST_HANDOFF_WATCH" // the vault to watch
	handoffEnvDie   = "CTX0_TEST_HANDOFF_DIE"   // the watcher's step of taking the queue to die at
	handoffEnvVault = "CTX0_TEST_HANDOFF_VAULT" // the vault to write to
	handoffEnvText  = "CTX0_TEST_HANDOFF_TEXT"  // the text to remember
	handoffEnvAdd   = "CTX0_TEST_HANDOFF_ADD"   // add the text as the body of this name instead
)

// openIndexed opens the vault at dir with its index as its catalog, as
// ctx0 commands do.
func openIndexed(dir string) (*vault.Vault, *index.Index, error) {
	ctx := context.Background()
	v, err := vault.Open(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	ix, err := index.Open(ctx, v)
	if err != nil {
		return nil, nil, err
	}
	v.SetCatalog(ix)
	return v, ix, nil
}

// TestHandOffWatcherProcess is not a test: run by TestHandOffToWatcher as
// another process, it watches the vault $CTX0_TEST_HANDOFF_WATCH until
// killed, as ctx0 index --watch does; with $CTX0_TEST_HANDOFF_DIE, it
// exits at that step of taking the queue in, as a crash would.
func TestHandOffWatcherProcess(t *testing.T) {
	dir := os.Getenv(handoffEnvWatch)
	if dir == "" {
		t.Skip("run by TestHandOffToWatcher")
	}
	if die := os.Getenv(handoffEnvDie); die != "" {
		vault.SetQueueHook(func(step string) {
			if step == die {
				os.Exit(3)
			}
		})
	}
	_, ix, err := openIndexed(dir)
	if err == nil {
		err = ix.Watch(context.Background(), nil)
	}
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// TestHandOffWriterProcess is not a test: run by TestHandOffToWatcher as
// another process, it remembers $CTX0_TEST_HANDOFF_TEXT in the vault (or
// adds it as the body of $CTX0_TEST_HANDOFF_ADD), handing the write to a
// running watcher as ctx0 remember and add do, and prints the result as
// JSON.
func TestHandOffWriterProcess(t *testing.T) {
	dir := os.Getenv(handoffEnvVault)
	if dir == "" {
		t.Skip("run by TestHandOffToWatcher")
	}
	v, ix, err := openIndexed(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	v.HandOff(ix)
	var r vault.Remembered
	text := os.Getenv(handoffEnvText)
	if name := os.Getenv(handoffEnvAdd); name != "" {
		r.Name, r.Commit, err = v.Add(context.Background(), vault.AddOptions{Name: name, Body: &text})
	} else {
		r, err = v.Remember(context.Background(), vault.RememberOptions{Text: text})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(r)
	os.Exit(0)
}

// handoffWrite is one write of TestHandOffToWatcher: a remember of text,
// or with add, an add of that name with text as its body.
type handoffWrite struct{ text, add string }

// writer starts the process that makes w in the vault at dir.
func (w handoffWrite) start(t *testing.T, dir string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHandOffWriterProcess$")
	cmd.Env = append(os.Environ(), handoffEnvVault+"="+dir, handoffEnvText+"="+w.text, handoffEnvAdd+"="+w.add)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// result waits for a writer and returns what it printed.
func result(t *testing.T, w handoffWrite, cmd *exec.Cmd, out *strings.Builder) vault.Remembered {
	t.Helper()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("writer of %q: %v\n%s", w.text, err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var r vault.Remembered
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
		t.Fatalf("writer of %q printed %q: %v", w.text, out.String(), err)
	}
	return r
}

// startWatcherProcess runs the watcher of the vault at dir in another
// process, dying at step die if set, and returns once it answers on its
// socket, with a channel closed once it has exited.
func startWatcherProcess(t *testing.T, dir, die string) (*exec.Cmd, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHandOffWatcherProcess$")
	cmd.Env = append(os.Environ(), handoffEnvWatch+"="+dir, handoffEnvDie+"="+die)
	return cmd, vaulttest.StartProcess(t, cmd, filepath.Join(dir, filepath.FromSlash(index.File))+"-sock")
}

// checkRepo asserts what every ctx0 write promises: git fsck is clean,
// the work tree matches HEAD, and nothing is left in the queue.
func checkRepo(t *testing.T, dir string) {
	t.Helper()
	gittest.Run(t, dir, "fsck", "--strict")
	if st := gittest.Run(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status not clean:\n%s", st)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".ctx0", "state", "queue", "*")); len(left) > 0 {
		t.Errorf("left in the queue: %v", left)
	}
}

// A ctx0 process that remembers or adds while a watcher runs in another
// process hands its write to the watcher, and gets what it would have got
// making the write itself: the same name, duplicate, redaction and commit
// subject, in a commit the watcher made.
func TestHandOffToWatcher(t *testing.T) {
	if os.Getenv(handoffEnvWatch) != "" || os.Getenv(handoffEnvVault) != "" {
		t.Skip("a process of the test")
	}
	writes := []handoffWrite{
		{text: "Sarah prefers email over calls."},
		{text: "We decided to use SQLite for the index.", add: "decisions/index-storage"},
		{text: "Sarah prefers email over calls."}, // a duplicate
		{text: "The deploy token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 for staging."},
	}
	run := func(watch bool) (results []vault.Remembered, subjects string, dir string) {
		dir = vaulttest.New(t).Root()
		if watch {
			startWatcherProcess(t, dir, "")
		}
		base := strings.TrimSpace(gittest.Run(t, dir, "rev-parse", "HEAD"))
		for _, w := range writes {
			cmd, out := w.start(t, dir)
			r := result(t, w, cmd, out)
			if trailer := strings.Contains(r.Commit.Message, "\nCtx0-Write: "); !r.Duplicate && trailer != watch {
				t.Errorf("watcher %v: %q made in a commit %s, message %q", watch, w.text, r.Commit.Hash, r.Commit.Message)
			}
			// The message differs by the line naming the queued write.
			r.Commit.Hash, r.Commit.Message = "", ""
			results = append(results, r)
		}
		checkRepo(t, dir)
		return results, gittest.Run(t, dir, "log", "--format=%s", base+"..HEAD"), dir
	}
	alone, aloneLog, _ := run(false)
	handed, handedLog, dir := run(true)
	if a, h := fmt.Sprint(alone), fmt.Sprint(handed); a != h {
		t.Errorf("results made alone:\n%s\nhanded to the watcher:\n%s", a, h)
	}
	if aloneLog != handedLog {
		t.Errorf("git log made alone:\n%s\nhanded to the watcher:\n%s", aloneLog, handedLog)
	}
	if !handed[2].Duplicate || handed[3].Commit.Redacted == nil {
		t.Errorf("the duplicate or the redaction got lost: %+v", handed)
	}
	// The watcher's index knows the entries it wrote.
	_, ix, err := openIndexed(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := ix.Lookup(t.Context(), handed[1].Name); err != nil || len(m) != 1 {
		t.Errorf("lookup of %s in the watcher's index: %v, %v", handed[1].Name, m, err)
	}
}

// A watcher that dies as it takes the queue in (asked, before it claims
// anything; after it claimed the writes; after it committed them, before
// it answered) loses no write and makes none twice: each writer finds its
// write in the watcher's commit or makes it itself.
func TestHandOffWatcherDies(t *testing.T) {
	if os.Getenv(handoffEnvWatch) != "" || os.Getenv(handoffEnvVault) != "" {
		t.Skip("a process of the test")
	}
	const writers = 4
	for _, die := range []string{"asked", "claimed", "committed"} {
		t.Run(die, func(t *testing.T) {
			dir := vaulttest.New(t).Root()
			watcher, exited := startWatcherProcess(t, dir, die)
			base := strings.TrimSpace(gittest.Run(t, dir, "rev-parse", "HEAD"))
			ws := make([]handoffWrite, writers)
			cmds := make([]*exec.Cmd, writers)
			outs := make([]*strings.Builder, writers)
			for i := range ws {
				ws[i] = handoffWrite{text: fmt.Sprintf("Writer %d remembers that the build takes %d minutes.", i, 10+i)}
				if i%2 == 1 {
					ws[i].add = fmt.Sprintf("notes/handed-%d", i)
				}
				cmds[i], outs[i] = ws[i].start(t, dir)
			}
			names := map[string]bool{}
			for i, w := range ws {
				r := result(t, w, cmds[i], outs[i])
				if r.Duplicate || r.Name == "" || names[r.Name] {
					t.Fatalf("writer of %q: result %+v", w.text, r)
				}
				names[r.Name] = true
				if got := gittest.Run(t, dir, "show", r.Commit.Hash+":"+r.Name+".md"); !strings.Contains(got, w.text) {
					t.Errorf("%s in %s does not hold %q:\n%s", r.Name, r.Commit.Hash, w.text, got)
				}
			}
			// The watcher died where it was told to: no writer made its
			// write before asking it.
			select {
			case <-exited:
			case <-time.After(time.Minute):
				t.Fatalf("the watcher is still running a minute after the writes: it was never asked to take them (die at %q)", die)
			}
			if code := watcher.ProcessState.ExitCode(); code != 3 {
				t.Errorf("the watcher exited with %d, want 3 (died at %q)", code, die)
			}
			checkRepo(t, dir)
			// Each text is in exactly one entry of HEAD, with one line in
			// the log.
			for _, w := range ws {
				out, _ := exec.Command("git", "-C", dir, "grep", "-l", "-F", w.text, "HEAD", "--", ".").Output()
				if n := strings.Count(string(out), "\n"); n != 1 {
					t.Errorf("%q is in %d entries:\n%s", w.text, n, out)
				}
			}
			n := 0
			for _, line := range strings.Split(gittest.Run(t, dir, "log", "--format=%B", base+"..HEAD"), "\n") {
				if strings.HasPrefix(line, "remember ") || strings.HasPrefix(line, "add ") {
					n++
				}
			}
			if n != writers {
				t.Errorf("%d remember and add lines in git log, want %d", n, writers)
			}
		})
	}
}

// queueTaker takes the queue with holder, a vault of its own on the same
// folder, as a running watcher does, and records the kinds of the requests
// it finds there. With gone, no taker runs. Like the watcher, it returns
// once its holder has answered the writes it took in.
type queueTaker struct {
	holder   *vault.Vault
	gone     bool
	kinds    []string
	answered atomic.Bool    // the holder has answered
	made     sync.WaitGroup // the holder's takes, until each lets go of the lock
}

func (k *queueTaker) Running() bool { return true }

func (k *queueTaker) TakeQueue(ctx context.Context, queue func() bool) error {
	if k.gone {
		return errors.New("no taker runs")
	}
	if !queue() {
		return nil
	}
	reqs, _ := filepath.Glob(filepath.Join(k.holder.Root(), ".ctx0", "state", "queue", "*.req"))
	for _, p := range reqs {
		var req map[string]json.RawMessage
		data, err := os.ReadFile(p)
		if err == nil {
			err = json.Unmarshal(data, &req)
		}
		if err != nil {
			return err
		}
		for kind := range req {
			k.kinds = append(k.kinds, kind)
		}
	}
	answered := make(chan struct{})
	made := make(chan error, 1)
	k.made.Add(1)
	go func() {
		defer k.made.Done()
		made <- k.holder.MakeQueued(context.WithoutCancel(ctx), func() {
			k.answered.Store(true)
			close(answered)
		})
	}()
	select {
	case <-answered:
		return nil
	case err := <-made:
		return err
	}
}

// indexOrder is the holder's index, which records whether its writers were
// answered when it hears of their writes.
type indexOrder struct {
	*index.Index
	taker *queueTaker
	late  []bool // for each update, whether the writers had their answers
}

func (o *indexOrder) Changed(ctx context.Context, paths []string) error {
	o.late = append(o.late, o.taker.answered.Load())
	return o.Index.Changed(ctx, paths)
}

// A holder answers the writes it took in from other processes as soon as
// their commit is durable and staged: its index hears of them after, and a
// reader that syncs with it finds them all the same.
func TestHandedWritesAnsweredBeforeTheIndex(t *testing.T) {
	dir := vaulttest.New(t).Root()
	writer, _, err := openIndexed(dir)
	if err != nil {
		t.Fatal(err)
	}
	holder, ix, err := openIndexed(dir)
	if err != nil {
		t.Fatal(err)
	}
	taker := &queueTaker{holder: holder}
	order := &indexOrder{Index: ix, taker: taker}
	holder.SetCatalog(order)
	writer.HandOff(taker)
	r, err := writer.Remember(t.Context(), vault.RememberOptions{Text: "The release train leaves every second Tuesday."})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Commit.Message, "\nCtx0-Write: ") {
		t.Fatalf("not made by the holder: %+v", r)
	}
	taker.made.Wait()
	if !slices.Equal(order.late, []bool{true}) {
		t.Errorf("answered before each index update: %v, want [true]", order.late)
	}
	if m, err := ix.Lookup(t.Context(), r.Name); err != nil || len(m) != 1 {
		t.Errorf("lookup of %s in the holder's index: %v, %v", r.Name, m, err)
	}
	checkRepo(t, dir)
}

// A remember handed to a running taker leaves the type, and the title that
// follows from it, to the taker, which has its patterns warm: the request
// in the queue holds only the redacted text and what the writer was told,
// and the entry, its name and its commit are those of the same remember
// made by the writer alone. When the taker is gone after all, the writer
// tells them itself.
func TestHandedRememberTypedByItsTaker(t *testing.T) {
	writes := []vault.RememberOptions{
		{Text: "We decided to use SQLite for the index."},
		{Text: "Meet Priya Patel, our new designer, she works from Berlin."},
		{Text: "Sarah prefers email over calls."},
		{Text: "The deploy token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 for staging."},
		{Text: "Sarah Chen is our investor.", Title: "Sarah"},
		{Text: "The build takes ten minutes on the old runners.", Type: "fact"},
		{Text: "We decided to use SQLite for the index."}, // a duplicate
	}
	run := func(t *testing.T, taker *queueTaker) ([]vault.Remembered, map[string]string) {
		v := vaulttest.New(t)
		if taker != nil {
			holder, err := vault.Open(t.Context(), v.Root(), vault.WithClock(func() time.Time { return vaulttest.Now }))
			if err != nil {
				t.Fatal(err)
			}
			taker.holder = holder
			v.HandOff(taker)
		}
		var rs []vault.Remembered
		files := map[string]string{}
		for _, o := range writes {
			r, err := v.Remember(t.Context(), o)
			if err != nil {
				t.Fatalf("remember %q: %v", o.Text, err)
			}
			data, err := os.ReadFile(filepath.Join(v.Root(), r.Name+".md"))
			if err != nil {
				t.Fatal(err)
			}
			files[r.Name] = string(data)
			r.Commit.Hash, r.Commit.Message = "", ""
			rs = append(rs, r)
		}
		checkRepo(t, v.Root())
		return rs, files
	}
	alone, aloneFiles := run(t, nil)
	if alone[1].Name != "contacts/priya-patel" || alone[4].Name != "contacts/sarah" || !alone[6].Duplicate || alone[3].Commit.Redacted == nil {
		t.Fatalf("made alone: %+v", alone)
	}
	for _, gone := range []bool{false, true} {
		taker := &queueTaker{gone: gone}
		handed, files := run(t, taker)
		if a, h := fmt.Sprint(alone), fmt.Sprint(handed); a != h {
			t.Errorf("taker gone %v: results made alone:\n%s\nhanded:\n%s", gone, a, h)
		}
		if a, h := fmt.Sprint(aloneFiles), fmt.Sprint(files); a != h {
			t.Errorf("taker gone %v: entries made alone:\n%s\nhanded:\n%s", gone, a, h)
		}
		// Each remember without a type is queued untyped; the one with
		// its type, typed.
		want := []string{"untyped_remember", "untyped_remember", "untyped_remember", "untyped_remember", "untyped_remember", "remember", "untyped_remember"}
		if gone {
			want = nil
		}
		if !slices.Equal(taker.kinds, want) {
			t.Errorf("taker gone %v: requests queued %v, want %v", gone, taker.kinds, want)
		}
	}
}
