package vault

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testVault makes a new vault in a temporary folder with a fixed clock.
func testVault(t *testing.T) *Vault {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("these tests check the repository with the git binary")
	}
	clock := time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)
	v, _, err := Init(t.Context(), t.TempDir(), WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// runGit runs the real git binary in the vault and returns its output.
func runGit(t *testing.T, v *Vault, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = v.Root()
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(),
		"GIT_AUTHOR_NAME=p", "GIT_AUTHOR_EMAIL=p@p", "GIT_COMMITTER_NAME=p", "GIT_COMMITTER_EMAIL=p@p")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// checkClean asserts what every ctx0 write promises: git fsck is clean and
// the work tree matches HEAD.
func checkClean(t *testing.T, v *Vault) {
	t.Helper()
	runGit(t, v, "fsck", "--strict")
	if st := runGit(t, v, "status", "--porcelain"); st != "" {
		t.Fatalf("git status not clean:\n%s", st)
	}
}

func TestApplyBuildsTreesLikeGit(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	// Names that sort differently as files and as folders, to check git's order.
	steps := []struct {
		msg     string
		changes []change
	}{
		{"add", []change{
			{path: "a.md", data: []byte("a\n")},
			{path: "a-b.md", data: []byte("a-b\n")},
			{path: "a/b.md", data: []byte("a/b\n")},
			{path: "a.b/c.md", data: []byte("a.b/c\n")},
			{path: "deep/er/est/x.md", data: []byte("x\n")},
		}},
		{"modify and remove", []change{
			{path: "a.md", data: []byte("a2\n")},
			{path: "deep/er/est/x.md"}, // empties three folders
		}},
	}
	for _, s := range steps {
		if _, err := v.apply(ctx, s.msg, s.changes); err != nil {
			t.Fatalf("%s: %v", s.msg, err)
		}
		checkClean(t, v)
	}
	tree := runGit(t, v, "ls-tree", "-r", "--name-only", "HEAD")
	for _, want := range []string{"a.md", "a-b.md", "a/b.md", "a.b/c.md"} {
		if !strings.Contains(tree, want+"\n") {
			t.Errorf("HEAD lacks %s:\n%s", want, tree)
		}
	}
	if strings.Contains(tree, "deep/") {
		t.Errorf("emptied folder still in HEAD:\n%s", tree)
	}
	if _, err := os.Stat(filepath.Join(v.Root(), "deep")); !os.IsNotExist(err) {
		t.Errorf("emptied folder still on disk: %v", err)
	}
	if got := runGit(t, v, "show", "HEAD:a.md"); got != "a2\n" {
		t.Errorf("HEAD:a.md = %q", got)
	}
	// git's own tree for the same index must be ours, byte for byte.
	if ours, theirs := runGit(t, v, "rev-parse", "HEAD^{tree}"), runGit(t, v, "write-tree"); ours != theirs {
		t.Errorf("tree %s, git write-tree %s", ours, theirs)
	}
}

func TestApplyLeavesPersonsWorkAlone(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	// A staged new file and an unstaged edit, both the person's.
	os.WriteFile(filepath.Join(v.Root(), "staged.md"), []byte("staged\n"), 0o644)
	runGit(t, v, "add", "staged.md")
	os.WriteFile(filepath.Join(v.Root(), "me.md"), []byte("half-edit"), 0o644)

	if _, err := v.apply(ctx, "ours", []change{{path: "knowledge/x.md", data: []byte("x\n")}}); err != nil {
		t.Fatal(err)
	}
	runGit(t, v, "fsck", "--strict")
	if got, want := runGit(t, v, "status", "--porcelain"), " M me.md\nA  staged.md\n"; got != want {
		t.Errorf("git status:\n%s\nwant:\n%s", got, want)
	}
	if got := runGit(t, v, "show", "--name-only", "--format=", "HEAD"); got != "knowledge/x.md\n" {
		t.Errorf("commit touched %q", got)
	}
}

func TestApplyAfterPersonsCommit(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	os.WriteFile(filepath.Join(v.Root(), "by-hand.md"), []byte("hand\n"), 0o644)
	runGit(t, v, "add", "by-hand.md")
	runGit(t, v, "commit", "-q", "-m", "by hand")
	if _, err := v.apply(ctx, "ours", []change{{path: "ours.md", data: []byte("ours\n")}}); err != nil {
		t.Fatal(err)
	}
	checkClean(t, v)
	if got := runGit(t, v, "log", "--format=%s"); got != "ours\nby hand\ninit: ctx0 vault\n" {
		t.Errorf("log:\n%s", got)
	}
	if got := runGit(t, v, "reflog", "-1", "--format=%gs"); got != "commit: ours\n" {
		t.Errorf("reflog: %q", got)
	}
}

func TestApplyOnPackedRefAndDetachedHead(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	runGit(t, v, "pack-refs", "--all")
	if _, err := v.apply(ctx, "on packed", []change{{path: "p.md", data: []byte("p\n")}}); err != nil {
		t.Fatal(err)
	}
	checkClean(t, v)
	runGit(t, v, "checkout", "-q", "--detach")
	if _, err := v.apply(ctx, "detached", []change{{path: "d.md", data: []byte("d\n")}}); err != nil {
		t.Fatal(err)
	}
	checkClean(t, v)
	if got := runGit(t, v, "log", "-1", "--format=%s", "HEAD"); got != "detached\n" {
		t.Errorf("HEAD: %q", got)
	}
	if got := runGit(t, v, "log", "-1", "--format=%s", "main"); got != "on packed\n" {
		t.Errorf("main moved: %q", got)
	}
}

func TestApplyCancelled(t *testing.T) {
	v := testVault(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := v.apply(ctx, "x", []change{{path: "x.md", data: []byte("x\n")}}); err == nil {
		t.Fatal("apply with a cancelled context succeeded")
	}
	checkClean(t, v)
}

func TestApplyRefLock(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	lock := filepath.Join(v.Root(), ".git", "refs", "heads", "main.lock")
	// A fresh lock is a running git command: wait, then give up naming it.
	os.WriteFile(lock, nil, 0o644)
	_, err := v.apply(ctx, "blocked", []change{{path: "x.md", data: []byte("x\n")}})
	if err == nil || !errors.Is(err, os.ErrExist) || !strings.Contains(err.Error(), "main.lock") {
		t.Fatalf("apply with a held ref lock: %v", err)
	}
	if _, err := os.Stat(filepath.Join(v.Root(), "x.md")); !os.IsNotExist(err) {
		t.Fatalf("a failed write left its file behind: %v", err)
	}
	// An old one is a crashed writer's leftover: taken over.
	old := time.Now().Add(-time.Minute)
	os.Chtimes(lock, old, old)
	if _, err := v.apply(ctx, "unblocked", []change{{path: "y.md", data: []byte("y\n")}}); err != nil {
		t.Fatal(err)
	}
	runGit(t, v, "fsck", "--strict")
	if got := runGit(t, v, "log", "-1", "--format=%s"); got != "unblocked\n" {
		t.Errorf("HEAD: %q", got)
	}
}

func TestImport(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	files := []ImportFile{
		{Name: "contacts/sam", Data: []byte("---\ntitle: Sam\ntype: contact\ntags: [billing]\n---\nOwns billing.\n")},
		{Name: "me", Data: []byte("---\ntitle: Me\ntype: contact\ntags: [self, imported]\n---\nNew words.\n")},
	}
	res, err := v.Import(ctx, files, "backup.json")
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 1 || res.Merged != 1 {
		t.Errorf("import: %+v", res)
	}
	checkClean(t, v)
	if got := runGit(t, v, "show", "HEAD:contacts/sam.md"); got != string(files[0].Data) {
		t.Errorf("new entry not byte for byte: %q", got)
	}
	// me.md was as init wrote it: the backup's version replaces it whole.
	if me := runGit(t, v, "show", "HEAD:me.md"); me != string(files[1].Data) {
		t.Errorf("me.md untouched since init should take the import's version:\n%s", me)
	}
	// The same import again changes nothing.
	if res, err := v.Import(ctx, files[:1], "backup.json"); err != nil || res.Unchanged != 1 || res.Commit.Hash != "" {
		t.Errorf("re-import: %+v, %v", res, err)
	}
	// One bad file and nothing is written.
	head := runGit(t, v, "rev-parse", "HEAD")
	_, err = v.Import(ctx, []ImportFile{{Name: "ok", Data: []byte("ok\n")}, {Name: "../bad", Data: []byte("x")}}, "x")
	if err == nil || runGit(t, v, "rev-parse", "HEAD") != head {
		t.Errorf("bad import: %v", err)
	}
}
