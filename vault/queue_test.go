package vault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/ctx0/ctx0/internal/proc"
)

// Environment of TestQueueWriterProcess, the test binary run again as a
// ctx0 process that remembers one text.
const (
	queueEnvVault = "CTX0_TEST_QUEUE_VAULT"
	queueEnvText  = "CTX0_TEST_QUEUE_TEXT"
	queueEnvAdd   = "CTX0_TEST_QUEUE_ADD"  // add the text as the body of this name, not remember it
	queueEnvDie   = "CTX0_TEST_QUEUE_DIE"  // the step of queueHook to die at
	queueEnvMark  = "CTX0_TEST_QUEUE_MARK" // made by the one process that dies
)

// TestQueueWriterProcess is not a test: run by TestQueueAcrossProcesses as
// another process, it remembers $CTX0_TEST_QUEUE_TEXT in the vault (or
// adds it as the body of $CTX0_TEST_QUEUE_ADD) and prints the result as
// JSON. With $CTX0_TEST_QUEUE_DIE set, the first
// such process to reach that step while holding writes of others exits
// there, as a crash would.
func TestQueueWriterProcess(t *testing.T) {
	dir := os.Getenv(queueEnvVault)
	if dir == "" {
		t.Skip("run by TestQueueAcrossProcesses")
	}
	if die := os.Getenv(queueEnvDie); die != "" {
		queueHook = func(step string) {
			if step == die && os.Mkdir(os.Getenv(queueEnvMark), 0o755) == nil {
				os.Exit(3)
			}
		}
	}
	v, err := Open(context.Background(), dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var r Remembered
	text := os.Getenv(queueEnvText)
	if name := os.Getenv(queueEnvAdd); name != "" {
		r.Name, r.Commit, err = v.Add(context.Background(), AddOptions{Name: name, Body: &text})
	} else {
		r, err = v.Remember(context.Background(), RememberOptions{Text: text})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(r)
	os.Exit(0)
}

// Separate processes that remember while another holds the vault lock put
// their writes in the queue beside it; the first to get the lock commits
// them all in one commit, and each process gets its own entry. A holder
// that dies after claiming the queued writes, or after committing them but
// before answering, loses none and makes none twice: each waiter finds its
// write in the commit or makes it itself.
func TestQueueAcrossProcesses(t *testing.T) {
	if os.Getenv(queueEnvVault) != "" {
		t.Skip("a writer process")
	}
	const writers = 6
	for _, die := range []string{"", "claimed", "committed"} {
		t.Run("die="+die, func(t *testing.T) {
			v := testVault(t)
			base := strings.TrimSpace(runGit(t, v, "rev-parse", "HEAD"))
			// This test holds the lock as another process would: every
			// writer finds it held and queues its write.
			held, err := filelock.Exclusive(t.Context(), filepath.Join(v.Root(), lockFile))
			if err != nil {
				t.Fatal(err)
			}
			mark := filepath.Join(t.TempDir(), "died")
			type writer struct {
				text string
				cmd  *exec.Cmd
				out  strings.Builder
			}
			ws := make([]*writer, writers)
			for i := range ws {
				w := &writer{text: fmt.Sprintf("Queued writer %d remembers that the build takes %d minutes.", i, 10+i)}
				w.cmd = exec.Command(os.Args[0], "-test.run=^TestQueueWriterProcess$")
				w.cmd.Env = append(os.Environ(), queueEnvVault+"="+v.Root(), queueEnvText+"="+w.text,
					queueEnvDie+"="+die, queueEnvMark+"="+mark)
				if i%2 == 1 {
					// Every other one adds an entry of its own name.
					w.cmd.Env = append(w.cmd.Env, fmt.Sprintf("%s=notes/queued-add-%d", queueEnvAdd, i))
				}
				w.cmd.Stdout = &w.out
				w.cmd.Stderr = &w.out
				if err := w.cmd.Start(); err != nil {
					t.Fatal(err)
				}
				ws[i] = w
			}
			waitFiles(t, filepath.Join(v.Root(), queueDir), ".req", writers)
			if err := held.Unlock(); err != nil {
				t.Fatal(err)
			}
			saved, died := 0, 0
			names := map[string]bool{}
			for _, w := range ws {
				err := w.cmd.Wait()
				if code := w.cmd.ProcessState.ExitCode(); die != "" && code == 3 {
					died++
					continue
				}
				if err != nil {
					t.Fatalf("writer of %q: %v\n%s", w.text, err, w.out.String())
				}
				var r Remembered
				if err := json.Unmarshal([]byte(lastLine(w.out.String())), &r); err != nil {
					t.Fatalf("writer of %q printed %q: %v", w.text, w.out.String(), err)
				}
				if r.Duplicate || r.Name == "" || r.Commit.Hash == "" || names[r.Name] || !slices.Contains(r.Commit.Paths, r.Name+".md") {
					t.Fatalf("writer of %q: result %+v", w.text, r)
				}
				names[r.Name] = true
				saved++
				// Its entry is in the commit it was told of, with its text.
				got := runGit(t, v, "show", r.Commit.Hash+":"+r.Name+".md")
				if !strings.Contains(got, w.text) {
					t.Errorf("%s in %s does not hold %q:\n%s", r.Name, r.Commit.Hash, w.text, got)
				}
			}
			if die != "" && died != 1 {
				t.Fatalf("%d writers died at %q, want 1", died, die)
			}
			checkClean(t, v)
			// Every text that a writer was told is saved is in one entry
			// of HEAD; the text of the one that died, in one or none.
			entries := 0
			for _, w := range ws {
				// git grep exits 1 when nothing matches.
				out, _ := exec.Command("git", "-C", v.Root(), "grep", "-l", "-F", w.text, "HEAD", "--", ".").Output()
				n := strings.Count(string(out), "\n")
				if n > 1 || (n == 0 && w.cmd.ProcessState.ExitCode() == 0) {
					t.Errorf("%q is in %d entries:\n%s", w.text, n, out)
				}
				entries += n
			}
			if entries < saved || entries > saved+died {
				t.Errorf("%d entries in HEAD, %d writers told theirs is saved and %d died", entries, saved, died)
			}
			// One line in the log for each.
			log := runGit(t, v, "log", "--format=%B", base+"..HEAD")
			n := 0
			for _, line := range strings.Split(log, "\n") {
				if strings.HasPrefix(line, "remember ") || strings.HasPrefix(line, "add ") {
					n++
				}
			}
			if n != entries {
				t.Errorf("%d remember and add lines in git log, want one per entry (%d):\n%s", n, entries, log)
			}
			commits := strings.Count(runGit(t, v, "log", "--format=%H", base+"..HEAD"), "\n")
			if die != "claimed" && commits >= entries {
				t.Errorf("%d commits for %d writes: the queued writes were not grouped", commits, entries)
			}
			if left, _ := filepath.Glob(filepath.Join(v.Root(), queueDir, "*")); len(left) > 0 {
				t.Errorf("left in the queue: %v", left)
			}
		})
	}
}

// waitFiles waits until dir holds n files named with suffix, failing after
// a minute.
func waitFiles(t *testing.T, dir, suffix string, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		got, _ := filepath.Glob(filepath.Join(dir, "*"+suffix))
		if len(got) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d files *%s in %s after a minute, want %d", len(got), suffix, dir, n)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// The line a holder writes for a queued write reads back as its id and
// paths; a line without the trailer reads as none, and no line makes it
// panic.
func FuzzParseQueuedLine(f *testing.F) {
	f.Add("12-345-0011223344556677", "knowledge/a.md knowledge/b.md")
	f.Add("", "")
	f.Add("id", "")
	f.Add("1-2-3 x", "y\tz")
	f.Fuzz(func(t *testing.T, id, paths string) {
		line := queuedTrailer + id + " " + paths
		got, ps, ok := parseQueuedLine(line)
		want := strings.Fields(id + " " + paths)
		if ok != (len(want) >= 2) {
			t.Fatalf("parseQueuedLine(%q) ok=%v, want %v", line, ok, len(want) >= 2)
		}
		if ok && (got != want[0] || strings.Join(ps, " ") != strings.Join(want[1:], " ")) {
			t.Fatalf("parseQueuedLine(%q) = %q %q", line, got, ps)
		}
		if _, _, ok := parseQueuedLine(paths); ok && !strings.HasPrefix(paths, queuedTrailer) {
			t.Fatalf("parseQueuedLine(%q) took a line without the trailer", paths)
		}
	})
}

// queueWaiter reads a request's id as its waiter, or refuses it, without
// panicking.
func FuzzQueueWaiter(f *testing.F) {
	f.Add("12-34-0011223344556677")
	f.Add("1-2")
	f.Add("a-b-c")
	f.Add("-1-18446744073709551616-x")
	f.Fuzz(func(t *testing.T, id string) {
		h, ok := queueWaiter(id)
		if !ok {
			return
		}
		parts := strings.Split(id, "-")
		pid, _ := strconv.Atoi(parts[0])
		start, _ := strconv.ParseUint(parts[1], 10, 64)
		if len(parts) != 3 || h.PID != pid || h.Start != start {
			t.Fatalf("queueWaiter(%q) = %+v", id, h)
		}
	})
}

// A request's id names the process that queued it, so a holder can tell a
// request whose waiter has died.
func TestQueueIDNamesItsWaiter(t *testing.T) {
	if h, ok := queueWaiter(newQueueID()); !ok || h != proc.Self() {
		t.Fatalf("queueWaiter(newQueueID()) = %+v, %v; want %+v", h, ok, proc.Self())
	}
}

// A write whose caller stops waiting while it is queued is withdrawn from
// the queue: no holder makes it, and nothing is left beside the lock.
func TestQueuedWriteWithdrawn(t *testing.T) {
	v := testVault(t)
	// Held through a file of its own, as by another process: v's writes
	// find it held and queue.
	held, err := filelock.Exclusive(t.Context(), filepath.Join(v.Root(), lockFile))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := v.Remember(ctx, RememberOptions{Text: "A write nobody waits for any more."})
		done <- err
	}()
	dir := filepath.Join(v.Root(), queueDir)
	waitFiles(t, dir, ".req", 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Remember after its context ended: %v, want context.Canceled", err)
	}
	waitIdle(t, v)
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
		t.Errorf("left in the queue: %v", left)
	}
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Remember(t.Context(), RememberOptions{Text: "A write after the lock is let go."}); err != nil {
		t.Fatal(err)
	}
	if out, _ := exec.Command("git", "-C", v.Root(), "grep", "-l", "nobody waits", "HEAD").Output(); len(out) > 0 {
		t.Errorf("the withdrawn write was made: %s", out)
	}
	checkClean(t, v)
}

// A queued write that fails fails alone, and its waiter gets the error as
// the holder made it: two handles of the vault (as two processes) add the
// same name while the lock is held; one holder makes both writes, the
// first succeeds and the other's waiter gets ErrExists.
func TestQueuedErrorReachesItsWaiter(t *testing.T) {
	v := testVault(t)
	other, err := Open(t.Context(), v.Root())
	if err != nil {
		t.Fatal(err)
	}
	held, err := filelock.Exclusive(t.Context(), filepath.Join(v.Root(), lockFile))
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		name string
		c    Commit
		err  error
	}
	got := make(chan result, 2)
	for i, h := range []*Vault{v, other} {
		go func() {
			body := fmt.Sprintf("Written by handle %d.", i)
			name, c, err := h.Add(t.Context(), AddOptions{Name: "notes/same", Body: &body})
			got <- result{name, c, err}
		}()
	}
	waitFiles(t, filepath.Join(v.Root(), queueDir), ".req", 2)
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	var ok, exists int
	var hashes []string
	for range 2 {
		r := <-got
		switch {
		case r.err == nil && r.name == "notes/same":
			ok++
			hashes = append(hashes, r.c.Hash)
		case errors.Is(r.err, ErrExists):
			exists++
		default:
			t.Fatalf("Add: %q, %v", r.name, r.err)
		}
	}
	if ok != 1 || exists != 1 {
		t.Fatalf("%d adds made, %d refused as existing; want 1 and 1", ok, exists)
	}
	if head := strings.TrimSpace(runGit(t, v, "rev-parse", "HEAD")); hashes[0] != head {
		t.Errorf("the add was told of commit %s, HEAD is %s", hashes[0], head)
	}
	if left, _ := filepath.Glob(filepath.Join(v.Root(), queueDir, "*")); len(left) > 0 {
		t.Errorf("left in the queue: %v", left)
	}
	checkClean(t, v)
}

// A holder whose own caller gives up once it has taken another process's
// write in (a watcher's request that timed out, a sync that ended) still
// makes that write: its waiter gets the commit, not the holder's "context
// canceled". The taker is a second handle of the vault, as a watcher
// process's, whose request context ends as soon as it has claimed the
// write.
func TestQueuedWriteOutlivesItsHoldersCaller(t *testing.T) {
	v := testVault(t)
	watcher, err := Open(t.Context(), v.Root())
	if err != nil {
		t.Fatal(err)
	}
	v.HandOff(givingUpTaker{watcher})
	queueHook = func(step string) {
		if step == "claimed" {
			givingUp.Load().(context.CancelFunc)()
		}
	}
	defer func() { queueHook = func(string) {} }()
	r, err := v.Remember(t.Context(), RememberOptions{Text: "Taken in by a holder whose caller gave up."})
	if err != nil {
		t.Fatalf("the handed write: %v, want it made", err)
	}
	if out := runGit(t, v, "show", "--stat", r.Commit.Hash); !strings.Contains(out, r.Name) {
		t.Errorf("commit %s does not hold %s:\n%s", r.Commit.Hash, r.Name, out)
	}
	checkClean(t, v)
}

// givingUp is the cancel of the request context of givingUpTaker's last
// TakeQueue.
var givingUp atomic.Value

// givingUpTaker takes the queue in through another handle of the vault,
// with a request context its test ends once the queue is claimed.
type givingUpTaker struct{ v *Vault }

func (g givingUpTaker) Running() bool { return true }

func (g givingUpTaker) TakeQueue(ctx context.Context, queue func() bool) error {
	if !queue() {
		return nil
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	givingUp.Store(context.CancelFunc(cancel))
	return g.v.MakeQueued(rctx, nil)
}
