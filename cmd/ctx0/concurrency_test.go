package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ctx0Cmd runs the ctx0 command that testscript.Main put on $PATH: a real
// process, as an agent would run it.
func ctx0Cmd(t *testing.T, vault string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("ctx0", append([]string{"--vault", vault}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
	return cmd
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func newVault(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs the git binary to check the vault")
	}
	dir := t.TempDir()
	if out, err := ctx0Cmd(t, dir, "init", dir).CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	return dir
}

// rememberAtOnce starts writers ctx0 processes at once, each making each
// remembers in turn, of fmt.Sprintf(text, writer, i), and fails t for each
// that failed.
func rememberAtOnce(t *testing.T, dir string, writers, each int, text string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if out, err := ctx0Cmd(t, dir, "remember", fmt.Sprintf(text, w, i)).CombinedOutput(); err != nil {
					errs <- fmt.Errorf("writer %d, fact %d: %v: %s", w, i, err, out)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestConcurrentRemember: 8 writer processes x 100 remembers each, all at
// once. Every one must land as its own entry, with its own line in a
// commit's message, and git must find the repository sound.
func TestConcurrentRemember(t *testing.T) {
	const writers, each = 8, 100
	dir := newVault(t)
	rememberAtOnce(t, dir, writers, each, "Writer %d remembers fact number %d about the system.")
	gitOut(t, dir, "fsck", "--strict")
	if st := gitOut(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status not clean:\n%s", st)
	}
	files := gitOut(t, dir, "ls-files", "knowledge/*.md")
	if n := strings.Count(files, "\n"); n != writers*each {
		t.Errorf("%d entries in HEAD, want %d", n, writers*each)
	}
	// Writes queued beside the lock share a commit, with one line each.
	remembered := 0
	for _, line := range strings.Split(gitOut(t, dir, "log", "--format=%B"), "\n") {
		if strings.HasPrefix(line, "remember ") {
			remembered++
		}
	}
	if remembered != writers*each {
		t.Errorf("%d remember lines in git log, want %d", remembered, writers*each)
	}
	found := map[string]int{}
	for _, line := range strings.Split(gitOut(t, dir, "grep", "-h", "-o", "Writer [0-9]* remembers fact number [0-9]*", "HEAD", "--", "knowledge"), "\n") {
		found[line]++
	}
	for w := range writers {
		for i := range each {
			// Title and body both hold the text.
			if want := fmt.Sprintf("Writer %d remembers fact number %d", w, i); found[want] != 2 {
				t.Errorf("%q found %d times, want 2", want, found[want])
			}
		}
	}
}

// TestCrashLeavesSoundRepository kills writers at random moments. Whatever
// was committed must be intact, git fsck clean, and the next write must
// work.
func TestCrashLeavesSoundRepository(t *testing.T) {
	dir := newVault(t)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		cmd := ctx0Cmd(t, dir, "remember", fmt.Sprintf("Crash test memory %d with some words.", i))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.IntN(30_000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	gitOut(t, dir, "fsck", "--strict")
	// Every committed entry is on disk, byte for byte.
	for _, f := range strings.Fields(gitOut(t, dir, "ls-files", "knowledge")) {
		committed := gitOut(t, dir, "show", "HEAD:"+f)
		onDisk, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || string(onDisk) != committed {
			t.Errorf("%s: committed entry differs on disk (%v)", f, err)
		}
	}
	if out, err := ctx0Cmd(t, dir, "remember", "After the crashes, writes still work.").CombinedOutput(); err != nil {
		t.Fatalf("write after crashes: %v\n%s", err, out)
	}
	gitOut(t, dir, "fsck", "--strict")
}
