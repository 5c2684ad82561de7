// Package gittest runs the real git binary on a test's repositories, to
// check what ctx0 wrote with the tool people will use on it.
package gittest

import (
	"os/exec"
	"strings"
	"testing"
)

// Run runs git with args in dir, with no system config and a home of the
// test's own, and returns its output without surrounding space. A failure
// fails t; a machine without git skips the test.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return RunInput(t, dir, "", args...)
}

// RunInput is Run with input on git's standard input.
func RunInput(t testing.TB, dir, input string, args ...string) string {
	t.Helper()
	Require(t)
	cmd := exec.Command("git", args...)
	cmd.Stdin = strings.NewReader(input)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Require skips t on a machine without the git binary, for a test that
// checks its results with git.
func Require(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs the git binary")
	}
}

// CheckClean fails t unless the repository at dir passes git fsck --strict
// and git status shows nothing.
func CheckClean(t testing.TB, dir string) {
	t.Helper()
	Run(t, dir, "fsck", "--strict")
	if st := Run(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status not clean:\n%s", st)
	}
}
