package main

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// refValue is what a whole ref file holds: a hash, or a symbolic ref.
var refValue = regexp.MustCompile(`^([0-9a-f]{40}|ref: refs/\S+)\n$`)

// TestKilledSyncLeavesNoTornRef kills a real `ctx0 sync` at many moments
// of its fetch and push, the remote a commit ahead each time, and after
// each kill asks the real git, before any other ctx0 command runs,
// whether the repository is sound: git fsck --strict, git for-each-ref,
// git log --all, and every ref file whole. git writes each ref through a
// lock file it renames, so a kill leaves the old value or the new one; a
// ref written in place is left empty by a kill between its truncation and
// its write. That window is microseconds wide, so a kill seldom lands in
// it: on Linux the test also watches the ref folders and fails on any
// write to a ref file itself (inotify's IN_MODIFY, which a rename never
// makes), the moment a kill would leave it torn.
func TestKilledSyncLeavesNoTornRef(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes for several seconds")
	}
	const rounds = 24
	a := newVault(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitOut(t, a, "init", "-q", "--bare", remote)
	mustRun(t, ctx0Cmd(t, a, "remote", "add", "origin", remote))
	mustRun(t, ctx0Cmd(t, a, "sync"))
	b := filepath.Join(t.TempDir(), "b")
	mustRun(t, ctx0Cmd(t, a, "clone", remote, b))

	inPlace := watchRefWrites(t, filepath.Join(b, ".git", "refs", "remotes", "origin"), filepath.Join(b, ".git", "refs", "heads"))
	r := rand.New(rand.NewPCG(70, 49))
	for i := range rounds {
		mustRun(t, ctx0Cmd(t, a, "remember", fmt.Sprintf("Fact %d fetched by a sync killed midway.", i)))
		mustRun(t, ctx0Cmd(t, a, "sync"))
		sync := ctx0Cmd(t, b, "sync")
		if err := sync.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.IntN(400)) * time.Millisecond)
		sync.Process.Signal(syscall.SIGKILL)
		sync.Wait()

		checkRefs(t, b, fmt.Sprintf("after kill %d", i))
		if t.Failed() {
			return
		}
		// Every other round, the next sync right after the kill: it
		// clears what the killed one left, a ref lock file included,
		// and works; otherwise the next round's sync is killed too.
		if i%2 == 1 {
			if out, err := ctx0Cmd(t, b, "sync").CombinedOutput(); err != nil {
				t.Fatalf("sync after kill %d: %v\n%s", i, err, out)
			}
		}
	}
	if out, err := ctx0Cmd(t, b, "sync").CombinedOutput(); err != nil {
		t.Fatalf("sync after the kills: %v\n%s", err, out)
	}
	checkRefs(t, b, "after the last sync")
	gitOut(t, b, "merge-base", "--is-ancestor", "origin/main", "HEAD")
	if want := strings.TrimSpace(gitOut(t, a, "rev-parse", "HEAD")); strings.TrimSpace(gitOut(t, b, "rev-parse", "origin/main")) != want {
		t.Errorf("origin/main is not the remote's last commit %s", want)
	}
	for _, name := range inPlace() {
		t.Errorf("ref %s written in place, not through its lock file", name)
	}
}

// watchRefWrites watches the folders dirs (on Linux) and returns a func
// that lists the ref files written in place since: a write to a file not
// named ".lock". A ref written through its lock file comes into place by
// a rename, which inotify reports as a create, never as a write.
func watchRefWrites(t *testing.T, dirs ...string) (inPlace func() []string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return func() []string { return nil }
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if err := w.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	found := make(chan []string, 1)
	go func() {
		seen := map[string]bool{}
		var names []string
		errs := w.Errors
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					found <- names
					return
				}
				if ev.Has(fsnotify.Write) && !strings.HasSuffix(ev.Name, ".lock") && !seen[ev.Name] {
					seen[ev.Name] = true
					names = append(names, ev.Name)
				}
			case err, ok := <-errs:
				if !ok {
					errs = nil
					continue
				}
				names = append(names, "(watch error: "+err.Error()+")")
			}
		}
	}()
	return func() []string {
		w.Close()
		return <-found
	}
}

// checkRefs fails t unless the real git finds the repository at dir sound
// and every ref file in it whole.
func checkRefs(t *testing.T, dir, when string) {
	t.Helper()
	for _, args := range [][]string{{"fsck", "--strict", "--no-progress"}, {"for-each-ref"}, {"log", "--all", "--oneline", "-1"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: git %s: %v\n%s", when, strings.Join(args, " "), err, out)
		}
	}
	refs := filepath.Join(dir, ".git", "refs")
	err := filepath.WalkDir(refs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || strings.HasSuffix(p, ".lock") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !refValue.Match(data) {
			t.Errorf("%s: ref %s holds %q", when, strings.TrimPrefix(p, dir), data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func mustRun(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
}
