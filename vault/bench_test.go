package vault

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ctx0/ctx0/eval/synthvault"
)

// benchEntries is the size of the benchmark vault (architecture.md's 10k).
const benchEntries = 10000

var (
	benchOnce sync.Once
	benchSrc  string
	benchErr  error
)

// benchVault copies one generated 10k-entry vault per benchmark, so each
// starts from the same state.
func benchVault(b *testing.B) string {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("the generator commits with the git binary")
	}
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ctx0-bench-")
		if err != nil {
			benchErr = err
			return
		}
		benchSrc = filepath.Join(dir, "vault")
		benchErr = synthvault.Generate(benchSrc, benchEntries, 1000, 1)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	dst := filepath.Join(b.TempDir(), "vault")
	if out, err := exec.Command("cp", "-a", benchSrc, dst).CombinedOutput(); err != nil {
		b.Fatalf("copy vault: %v\n%s", err, out)
	}
	return dst
}

// BenchmarkWritePath is one new entry committed through ctx0's write path
// (files, blobs, trees along the path, commit, ref, .git/index splice) on a
// 10k-entry vault.
func BenchmarkWritePath(b *testing.B) {
	dir := benchVault(b)
	v, err := Open(b.Context(), dir)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		p := fmt.Sprintf("knowledge/bench-%d.md", i)
		if _, err := v.apply(b.Context(), "bench", []change{{path: p, data: fmt.Appendf(nil, "---\ntitle: %d\n---\nbody %d\n", i, i)}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGoGitAddCommit is the same write through go-git's Worktree.Add
// and Commit, which walk the whole work tree: the cost ctx0's write path
// avoids.
func BenchmarkGoGitAddCommit(b *testing.B) {
	dir := benchVault(b)
	repo, err := git.PlainOpen(dir)
	if err != nil {
		b.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		b.Fatal(err)
	}
	sig := &object.Signature{Name: "b", Email: "b@b", When: time.Now()}
	b.ResetTimer()
	for i := range b.N {
		p := fmt.Sprintf("knowledge/bench-%d.md", i)
		if err := os.WriteFile(filepath.Join(dir, p), fmt.Appendf(nil, "---\ntitle: %d\n---\nbody %d\n", i, i), 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := wt.Add(p); err != nil {
			b.Fatal(err)
		}
		if _, err := wt.Commit("bench", &git.CommitOptions{Author: sig}); err != nil {
			b.Fatal(err)
		}
	}
}
