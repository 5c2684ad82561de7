package vault

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ctx0/ctx0/internal/inode"
	"github.com/ctx0/ctx0/internal/proc"
)

// deadHolder is a process that ran and exited: the holder a killed ctx0
// leaves in its journal.
func deadHolder(t *testing.T) proc.Holder {
	t.Helper()
	cmd := exec.Command("git", "--version")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return proc.Holder{PID: cmd.Process.Pid, Start: 1}
}

// leaveJournal writes the journal a killed writer would have left.
func leaveJournal(t *testing.T, v *Vault, j journal) {
	t.Helper()
	p := filepath.Join(v.Root(), filepath.FromSlash(journalFile))
	data, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// leaveGitLock creates one of git's lock files as a killed ctx0 writer
// left it, and the journal record of it.
func leaveGitLock(t *testing.T, v *Vault, rel string) journalLock {
	t.Helper()
	p := filepath.Join(v.gitDir, filepath.FromSlash(rel))
	if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return journalLock{Path: rel, Ino: inode.Of(fi), At: fi.ModTime().UnixNano()}
}

func reopen(t *testing.T, v *Vault) *Vault {
	t.Helper()
	w, err := Open(t.Context(), v.Root(), WithClock(v.now))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// A killed writer's git lock files (fresh, so no age rule applies) are
// recovered at once by the next writer, which then commits, stages and
// leaves a clean repository.
func TestDeadWritersGitLocksAreRemovedAtOnce(t *testing.T) {
	v := testVault(t)
	locks := []journalLock{leaveGitLock(t, v, "index.lock"), leaveGitLock(t, v, "refs/heads/main.lock")}
	leaveJournal(t, v, journal{Holder: deadHolder(t).String(), GitLocks: locks})
	w := reopen(t, v)
	// The locks are fresh and their files never go away by themselves: a
	// writer that did not remove them would wait gitLockWait and then fail
	// with os.ErrExist. So success is the proof, with no clock to read on a
	// loaded machine.
	r, err := w.Remember(t.Context(), RememberOptions{Text: "probe after a crash"})
	if err != nil {
		t.Fatalf("remember after a killed writer: %v", err)
	}
	checkClean(t, w)
	if _, err := os.Stat(w.path(r.Name)); err != nil {
		t.Fatalf("the entry is not in the work tree: %v", err)
	}
	got := strings.Join(w.Recovered(), "\n")
	for _, want := range []string{".git/index.lock", ".git/refs/heads/main.lock"} {
		if !strings.Contains(got, want) {
			t.Errorf("Recovered() does not name %s:\n%s", want, got)
		}
	}
}

// A lock file that is not the one the dead writer recorded (another inode:
// a person's git command made it since) is left alone.
func TestPersonsGitLockIsNotTakenForADeadWriters(t *testing.T) {
	v := testVault(t)
	rec := leaveGitLock(t, v, "index.lock")
	p := filepath.Join(v.gitDir, "index.lock")
	os.Remove(p)
	os.WriteFile(filepath.Join(v.gitDir, "other"), nil, 0o644) // keep the freed inode busy
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); inode.Of(fi) == rec.Ino {
		t.Skip("the file system reused the inode at once")
	}
	leaveJournal(t, v, journal{Holder: deadHolder(t).String(), GitLocks: []journalLock{rec}})
	w := reopen(t, v)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("a person's index.lock was removed: %v", err)
	}
	w.gitLockWait = 50 * time.Millisecond
	_, err := w.Remember(t.Context(), RememberOptions{Text: "blocked by a running git"})
	if !errors.Is(err, os.ErrExist) {
		t.Fatalf("remember while git holds index.lock: %v", err)
	}
	// No commit is made that cannot be staged, and no file is left.
	if log := runGit(t, w, "log", "--format=%s"); strings.Contains(log, "remember") {
		t.Errorf("a commit was made while index.lock was held:\n%s", log)
	}
	os.Remove(p)
	checkClean(t, w)
}

// A writer killed after moving the branch and before staging leaves `D` and
// `??` in git status; a writer killed before moving the branch leaves its
// file uncommitted. Opening the vault finishes the first and undoes the
// second, and says so.
func TestKilledWriteIsFinishedOrUndone(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	if _, err := v.apply(ctx, "edit", []change{{path: "knowledge/kept.md", data: []byte("old\n")}}); err != nil {
		t.Fatal(err)
	}
	oldKept := plumbing.ComputeHash(plumbing.BlobObject, []byte("old\n")).String()

	// Committed, not staged: the commit exists, git's index is one behind.
	c, err := v.apply(ctx, "remember", []change{{path: "knowledge/x.md", data: []byte("x\n")}})
	if err != nil {
		t.Fatal(err)
	}
	runGit(t, v, "reset", "-q", "--soft", c.Hash) // no-op on the branch, keeps the work tree
	runGit(t, v, "rm", "-q", "--cached", "knowledge/x.md")
	if st := runGit(t, v, "status", "--porcelain"); !strings.Contains(st, "D  knowledge/x.md") || !strings.Contains(st, "?? knowledge/x.md") {
		t.Fatalf("setup: git status:\n%s", st)
	}
	post := plumbing.ComputeHash(plumbing.BlobObject, []byte("x\n")).String()

	// Not committed: a set that wrote its file and died.
	if err := os.WriteFile(filepath.Join(v.Root(), "knowledge/kept.md"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	newKept := plumbing.ComputeHash(plumbing.BlobObject, []byte("new\n")).String()
	leaveJournal(t, v, journal{Holder: deadHolder(t).String(), Writes: []journalWrite{
		{Path: "knowledge/x.md", Post: post},
		{Path: "knowledge/kept.md", Pre: oldKept, Head: oldKept, Post: newKept},
	}})

	w := reopen(t, v)
	checkClean(t, w)
	if b, _ := os.ReadFile(filepath.Join(w.Root(), "knowledge/kept.md")); string(b) != "old\n" {
		t.Errorf("kept.md = %q, want the committed %q back", b, "old\n")
	}
	got := strings.Join(w.Recovered(), "\n")
	if !strings.Contains(got, "staged knowledge/x.md") || !strings.Contains(got, "put knowledge/kept.md back") {
		t.Errorf("Recovered():\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(w.Root(), filepath.FromSlash(journalFile))); !os.IsNotExist(err) {
		t.Errorf("the journal is still there after recovery: %v", err)
	}
	problems, err := w.CheckGit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%v", problems); !strings.Contains(got, "repaired after a ctx0 process was killed while writing: staged knowledge/x.md") {
		t.Errorf("CheckGit does not report the repair:\n%s", got)
	}
}

// Recovery never undoes what a person did after the crash: a file edited
// since (neither the content before nor after the write) stays.
func TestRecoveryKeepsLaterEdits(t *testing.T) {
	v := testVault(t)
	if _, err := v.apply(t.Context(), "edit", []change{{path: "knowledge/k.md", data: []byte("old\n")}}); err != nil {
		t.Fatal(err)
	}
	old := plumbing.ComputeHash(plumbing.BlobObject, []byte("old\n")).String()
	written := plumbing.ComputeHash(plumbing.BlobObject, []byte("ctx0\n")).String()
	os.WriteFile(filepath.Join(v.Root(), "knowledge/k.md"), []byte("person\n"), 0o644)
	leaveJournal(t, v, journal{Holder: deadHolder(t).String(), Writes: []journalWrite{
		{Path: "knowledge/k.md", Pre: old, Head: old, Post: written},
	}})
	w := reopen(t, v)
	if b, _ := os.ReadFile(filepath.Join(w.Root(), "knowledge/k.md")); string(b) != "person\n" {
		t.Errorf("k.md = %q, want the person's edit", b)
	}
}

// A journal naming a process that still runs is not acted on.
func TestLiveHoldersJournalIsLeftAlone(t *testing.T) {
	v := testVault(t)
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer cmd.Process.Kill()
	live := proc.Holder{PID: cmd.Process.Pid}
	rec := leaveGitLock(t, v, "refs/heads/main.lock")
	leaveJournal(t, v, journal{Holder: live.String(), GitLocks: []journalLock{rec}})
	reopen(t, v)
	if _, err := os.Stat(filepath.Join(v.gitDir, "refs/heads/main.lock")); err != nil {
		t.Errorf("a running holder's lock was removed: %v", err)
	}
}

// A killed writer's temporary files are removed by the next command; a
// running writer's (this process's) are not; doctor names what is left
// elsewhere and Repair removes it.
func TestKilledWritersTempFilesAreRemoved(t *testing.T) {
	v := testVault(t)
	dead := deadHolder(t)
	dir := filepath.Join(v.Root(), "knowledge")
	deadTemp := filepath.Join(dir, ".x.md.tmp-"+strconv.Itoa(dead.PID)+"-123")
	liveTemp := filepath.Join(dir, ".y.md.tmp-"+strconv.Itoa(os.Getpid())+"-456")
	oldTemp := filepath.Join(v.Root(), "projects", ".z.md.tmp-789")
	for _, p := range []string{deadTemp, liveTemp, oldTemp} {
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(oldTemp, old, old)
	leaveJournal(t, v, journal{Holder: dead.String(), Writes: []journalWrite{{Path: "knowledge/x.md", Post: plumbing.ComputeHash(plumbing.BlobObject, []byte("x\n")).String()}}})
	w := reopen(t, v)
	if _, err := os.Stat(deadTemp); !os.IsNotExist(err) {
		t.Errorf("the killed writer's temporary file is still there: %v", err)
	}
	if _, err := os.Stat(liveTemp); err != nil {
		t.Errorf("a running writer's temporary file was removed: %v", err)
	}
	problems, err := w.CheckGit(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%v", problems); !strings.Contains(got, "projects/.z.md.tmp-789 a temporary file") || strings.Contains(got, ".y.md.tmp") {
		t.Errorf("CheckGit:\n%s", got)
	}
	if _, err := w.Repair(t.Context()); err != nil {
		t.Fatal(err)
	}
	os.Remove(liveTemp)
	checkClean(t, w)
}

// dyingHolderEnv names the vault a process of TestHolderKilledAMomentAgo
// takes the lock of.
const dyingHolderEnv = "CTX0_TEST_DYING_HOLDER"

// TestDyingHolderProcess is not a test: run by TestHolderKilledAMomentAgo
// as another process, it takes the vault lock, creates .git/index.lock
// under it as a write does, says so and waits to be killed.
func TestDyingHolderProcess(t *testing.T) {
	dir := os.Getenv(dyingHolderEnv)
	if dir == "" {
		t.Skip("run by TestHolderKilledAMomentAgo")
	}
	ctx := context.Background()
	v, err := Open(ctx, dir)
	if err == nil {
		_, err = v.lock(ctx)
	}
	if err == nil {
		_, err = v.createGitLock(ctx, filepath.Join(v.gitDir, "index.lock"), time.Second)
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	// Memory to give back makes the end of the process take a moment, as
	// a watcher's does.
	ballast := make([]byte, 64<<20)
	for i := range ballast {
		ballast[i] = 1
	}
	fmt.Println("ready")
	time.Sleep(time.Minute)
	fmt.Println(ballast[len(ballast)-1])
}

// A holder killed a moment ago lets go of the vault lock before the system
// shows it as ended; the writer that was waiting takes the lock then. It
// must still recover what the holder left (here its .git/index.lock), not
// take the holder for one that runs, leave its journal and then replace
// it: the lock file would be left to fail every write for 10 s. Each round
// races the kernel; without the wait for the holder to end, most rounds
// failed.
func TestHolderKilledAMomentAgo(t *testing.T) {
	if os.Getenv(dyingHolderEnv) != "" {
		t.Skip("a process of the test")
	}
	v := testVault(t)
	indexLock := filepath.Join(v.gitDir, "index.lock")
	for round := range 10 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDyingHolderProcess$")
		cmd.Env = append(os.Environ(), dyingHolderEnv+"="+v.Root())
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		if line != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the holder process: %q", line)
		}
		// Killed, and not waited for: the lock is taken as it ends.
		cmd.Process.Kill()
		unlock, err := v.lock(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		_, lerr := os.Stat(indexLock)
		unlock()
		cmd.Wait()
		if lerr == nil {
			t.Fatalf("round %d: the killed holder's .git/index.lock was left (recovered: %q)", round, v.Recovered())
		}
	}
	checkClean(t, v)
}
