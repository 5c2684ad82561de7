package vault

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// A long-running vault (a watcher, the MCP server) keeps git's staging area
// and the trees it wrote between writes. Whatever a person or another
// process does between two of its writes (git add, git commit, git
// checkout, a write by another vault), each write gives what the same
// write by a vault opened cold on a copy gives: the same commit, the same
// staging area, git's checks clean.
func TestWarmWritesAsCold(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	clock := v.now
	n := 0
	write := func(what string, paths ...string) {
		t.Helper()
		n++
		twin := t.TempDir()
		if out, err := exec.Command("cp", "-a", v.Root()+"/.", twin).CombinedOutput(); err != nil {
			t.Fatalf("copy the vault: %v\n%s", err, out)
		}
		cold, err := Open(ctx, twin, WithClock(clock))
		if err != nil {
			t.Fatal(err)
		}
		var changes []change
		for _, p := range paths {
			changes = append(changes, change{path: p, data: fmt.Appendf(nil, "write %d: %s\n", n, p)})
		}
		msg := fmt.Sprintf("write %d after %s", n, what)
		if _, err := v.apply(ctx, msg, changes); err != nil {
			t.Fatalf("%s: %v", msg, err)
		}
		if _, err := cold.apply(ctx, msg, changes); err != nil {
			t.Fatalf("%s, cold: %v", msg, err)
		}
		for _, args := range [][]string{
			{"rev-parse", "HEAD", "HEAD^{tree}"},
			{"ls-files", "--stage"},
			{"status", "--porcelain"},
		} {
			// GIT_OPTIONAL_LOCKS=0: git status refreshes nothing, as
			// nobody runs it between a watcher's writes.
			if warm, cold := readGit(t, v, args...), readGit(t, cold, args...); warm != cold {
				t.Fatalf("%s: git %v:\n%s\ncold:\n%s", msg, args, warm, cold)
			}
		}
		runGit(t, v, "fsck", "--strict")
	}
	write("nothing", "knowledge/a.md")
	write("nothing", "knowledge/b.md", "notes/b.md")
	write("nothing", "knowledge/c.md")
	if v.gitIndex.Hits() == 0 || v.warm.hits == 0 {
		t.Fatalf("a write after two kept nothing: staging area %d, trees %d", v.gitIndex.Hits(), v.warm.hits)
	}

	if err := os.WriteFile(filepath.Join(v.Root(), "staged.md"), []byte("a person's staged file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, v, "add", "staged.md")
	write("a person's git add", "knowledge/d.md")

	runGit(t, v, "commit", "-q", "-m", "a person's commit")
	write("a person's git commit", "knowledge/e.md")
	write("nothing", "knowledge/e2.md")

	runGit(t, v, "checkout", "-q", "-b", "other", "HEAD~3")
	write("a person's git checkout", "knowledge/f.md")

	other, err := Open(ctx, v.Root(), WithClock(func() time.Time { return clock().Add(time.Minute) }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.apply(ctx, "another process", []change{{path: "knowledge/other.md", data: []byte("other\n")}}); err != nil {
		t.Fatal(err)
	}
	write("another process's write", "knowledge/g.md")
	write("nothing", "knowledge/h.md")
	checkClean(t, v)
}

// readGit runs git in the vault without letting it refresh git's staging
// area (GIT_OPTIONAL_LOCKS=0), and returns its output.
func readGit(t *testing.T, v *Vault, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = v.Root()
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
