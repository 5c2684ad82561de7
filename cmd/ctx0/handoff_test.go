package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/vaulttest"
)

// startIndexWatch runs ctx0 index --watch for the vault at dir, and
// returns once it answers on its socket, with a channel closed once it has
// exited.
func startIndexWatch(t *testing.T, dir string) (*exec.Cmd, <-chan struct{}) {
	t.Helper()
	cmd := ctx0Cmd(t, dir, "index", "--watch")
	return cmd, vaulttest.StartProcess(t, cmd, filepath.Join(dir, ".ctx0", "index.db-sock"))
}

// writeJSON runs a ctx0 write with --json and returns what it printed.
func writeJSON(t *testing.T, dir string, args ...string) writeResult {
	t.Helper()
	out, err := ctx0Cmd(t, dir, append(args, "--json")...).Output()
	if err != nil {
		t.Fatalf("ctx0 %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	var r writeResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("ctx0 %s printed %q: %v", strings.Join(args, " "), out, err)
	}
	return r
}

// TestWritesHandedToWatcher: while ctx0 index --watch runs, ctx0 remember
// and ctx0 add hand their writes to it (its commits name each queued
// write), concurrent writers included, and print what they print without
// it; once it has stopped, they make their writes themselves.
func TestWritesHandedToWatcher(t *testing.T) {
	dir := newVault(t)
	watcher, exited := startIndexWatch(t, dir)
	handed := func(r writeResult) bool { return strings.Contains(r.Commit.Message, "\nCtx0-Write: ") }

	r := writeJSON(t, dir, "remember", "Sarah prefers email over calls.")
	if r.Name != "preferences/sarah-prefers-email-over-calls" || !handed(r) {
		t.Errorf("remember with the watcher = %+v; want its entry made by the watcher", r)
	}
	r = writeJSON(t, dir, "add", "decisions/index-storage", "--type", "decision", "--body", "We use SQLite for the index.")
	if r.Name != "decisions/index-storage" || !handed(r) {
		t.Errorf("add with the watcher = %+v; want its entry made by the watcher", r)
	}
	if out, err := ctx0Cmd(t, dir, "add", "decisions/index-storage", "--body", "again").CombinedOutput(); err == nil || !strings.Contains(string(out), "decisions/index-storage") {
		t.Errorf("add of an existing name with the watcher: %v, %s; want an error naming it", err, out)
	}

	const writers, each = 4, 3
	rememberAtOnce(t, dir, writers, each, "Writer %d hands fact number %d to the watcher.")

	watcher.Process.Kill()
	<-exited
	r = writeJSON(t, dir, "remember", "Made once the watcher has stopped.")
	if r.Name == "" || handed(r) {
		t.Errorf("remember after the watcher stopped = %+v; want it made here", r)
	}

	gitOut(t, dir, "fsck", "--strict")
	if st := gitOut(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status not clean:\n%s", st)
	}
	if n := strings.Count(gitOut(t, dir, "grep", "-l", "hands fact number", "HEAD", "--", "."), "\n"); n != writers*each {
		t.Errorf("%d entries of the concurrent writers in HEAD, want %d", n, writers*each)
	}
	lines := 0
	for _, line := range strings.Split(gitOut(t, dir, "log", "--format=%B"), "\n") {
		if strings.HasPrefix(line, "remember ") || strings.HasPrefix(line, "add ") {
			lines++
		}
	}
	if want := 2 + writers*each + 1; lines != want {
		t.Errorf("%d remember and add lines in git log, want %d", lines, want)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".ctx0", "state", "queue", "*")); len(left) > 0 {
		t.Errorf("left in the queue: %v", left)
	}
}
