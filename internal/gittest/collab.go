package gittest

import (
	"os"
	"path/filepath"
	"testing"
)

// Bare makes an empty bare repository in t's temporary directory whose HEAD
// names main, the branch ctx0 init makes, so a plain git clone of it checks
// that branch out. It returns its path, which is also its URL.
func Bare(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "remote.git")
	Run(t, filepath.Dir(dir), "init", "-q", "--bare", "--initial-branch=main", dir)
	return dir
}

// Collaborator is a plain git clone of a remote, worked with git alone: the
// second person of a sharing test, honest or hostile, who commits and
// pushes whatever git lets them.
type Collaborator struct {
	t   testing.TB
	Dir string
}

// Clone clones remote (which must have a main branch) for a collaborator,
// who commits as "Collaborator".
func Clone(t testing.TB, remote string) *Collaborator {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "collaborator")
	Run(t, filepath.Dir(dir), "clone", "-q", "--branch", "main", remote, dir)
	c := &Collaborator{t: t, Dir: dir}
	c.Git("config", "user.name", "Collaborator")
	c.Git("config", "user.email", "collaborator@example.com")
	c.Git("config", "core.autocrlf", "false")
	return c
}

// Git runs git in the clone and returns its output.
func (c *Collaborator) Git(args ...string) string {
	c.t.Helper()
	return Run(c.t, c.Dir, args...)
}

// Write writes a file of the clone's work tree, making its folders.
func (c *Collaborator) Write(rel, data string) {
	c.t.Helper()
	p := filepath.Join(c.Dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

// Repo makes a git repository of its own, with one commit, at rel in the
// clone's work tree: a nested repository.
func (c *Collaborator) Repo(rel string) string {
	c.t.Helper()
	p := filepath.Join(c.Dir, filepath.FromSlash(rel))
	Repo(c.t, p)
	return p
}

// Repo makes a git repository with one commit at dir.
func Repo(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	Run(t, dir, "init", "-q", "--initial-branch=main")
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("a tool\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Run(t, dir, "add", "README")
	Run(t, dir, "-c", "user.name=Tool", "-c", "user.email=tool@example.com", "commit", "-q", "-m", "tool")
}

// Push stages paths (everything when none; with git add -f, so what
// .gitignore lists is staged too), commits with msg and pushes main.
func (c *Collaborator) Push(msg string, paths ...string) {
	c.t.Helper()
	if len(paths) == 0 {
		c.Git("add", "-A")
	} else {
		c.Git(append([]string{"add", "-f", "--"}, paths...)...)
	}
	c.Git("commit", "-q", "-m", msg)
	c.Git("push", "-q", "origin", "main")
}

// Pull pulls main, with the merge driver off: the collaborator has no ctx0.
func (c *Collaborator) Pull() {
	c.t.Helper()
	c.Git("pull", "-q", "--no-rebase", "origin", "main")
}

// T is the test the clone belongs to.
func (c *Collaborator) T() testing.TB { return c.t }
