package vault

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// killedFetch is a vault b cloned from a's remote, with a three commits
// ahead of it there, and twin, a copy of b that has fetched them: the pack
// b's next fetch makes, byte for byte, is the one twin's fetch made.
type killedFetch struct {
	b, twin string
	pack    string // the pack's name, without extension
	idx     []byte // its index
}

func newKilledFetch(t *testing.T) killedFetch {
	t.Helper()
	ctx := t.Context()
	a, url := sharedVault(t)
	k := killedFetch{b: filepath.Join(t.TempDir(), "b"), twin: filepath.Join(t.TempDir(), "twin")}
	if _, err := Clone(ctx, url, k.b); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := a.Remember(ctx, RememberOptions{Text: fmt.Sprintf("Fact %d, fetched after a killed fetch.", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(k.twin, os.DirFS(k.b)); err != nil {
		t.Fatal(err)
	}
	tv, err := Open(ctx, k.twin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tv.Sync(ctx, SyncOptions{PullOnly: true}); err != nil {
		t.Fatal(err)
	}
	before := packNames(t, k.b)
	for _, p := range packNames(t, k.twin) {
		if !slices.Contains(before, p) {
			k.pack = p
		}
	}
	if k.pack == "" {
		t.Fatal("the twin's fetch made no pack")
	}
	k.idx, err = os.ReadFile(filepath.Join(k.twin, ".git", "objects", "pack", k.pack+".idx"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// checkFetched fails t unless b holds the three commits a made.
func (k killedFetch) checkFetched(t *testing.T) {
	t.Helper()
	for i := range 3 {
		name := fmt.Sprintf("fact-%d-fetched-after-a-killed-fetch.md", i)
		if _, err := os.Stat(filepath.Join(k.b, "knowledge", name)); err != nil {
			t.Error(err)
		}
	}
}

// packNames lists the packs of the repository at dir, without extension.
func packNames(t *testing.T, dir string) []string {
	t.Helper()
	ps, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.pack"))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		ps[i] = strings.TrimSuffix(filepath.Base(p), ".pack")
	}
	return ps
}

// A fetch killed midway (a hook the agent stops at its timeout, a service
// killed with SIGKILL) must not stop every later sync: each case leaves
// what go-git leaves when killed at that point, and the next sync, as the
// watch runs it, must bring the remote's commits in and leave a repository
// git finds sound.
func TestSyncAfterAKilledFetch(t *testing.T) {
	tests := []struct {
		name string
		kill func(t *testing.T, k killedFetch)
	}{
		{"while writing the pack index", func(t *testing.T, k killedFetch) {
			writePackFile(t, k.b, k.pack+".idx", k.idx[:len(k.idx)/2])
		}},
		{"before moving the pack beside its index", func(t *testing.T, k killedFetch) {
			writePackFile(t, k.b, k.pack+".idx", k.idx)
		}},
		{"while writing the remote-tracking branch", func(t *testing.T, k killedFetch) {
			if err := os.WriteFile(filepath.Join(k.b, ".git", "refs", "remotes", "origin", "main"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			k := newKilledFetch(t)
			tt.kill(t, k)
			v, err := Open(ctx, k.b)
			if err != nil {
				t.Fatal(err)
			}
			res, err := v.Sync(ctx, SyncOptions{RefuseRewrite: true})
			if err != nil {
				t.Fatalf("the sync after the killed fetch: %v", err)
			}
			if res.Merge != "fast-forward" {
				t.Errorf("merge = %q, want fast-forward", res.Merge)
			}
			k.checkFetched(t)
			if problems, err := v.CheckGit(ctx); err != nil || len(problems) > 0 {
				t.Errorf("CheckGit after the sync = %v, %v; want nothing", problems, err)
			}
			checkClean(t, v)
		})
	}
}

// A repository where a fetch kept the index a killed one had half written
// (what go-git did before ctx0 cleared those) cannot read the objects of
// that pack: CheckGit must name the index, and Repair rebuild it from the
// pack, after which the sync works and git finds the repository sound.
func TestRepairRebuildsAHalfWrittenPackIndex(t *testing.T) {
	ctx := t.Context()
	k := newKilledFetch(t)
	pack, err := os.ReadFile(filepath.Join(k.twin, ".git", "objects", "pack", k.pack+".pack"))
	if err != nil {
		t.Fatal(err)
	}
	writePackFile(t, k.b, k.pack+".idx", k.idx[:len(k.idx)/2])
	writePackFile(t, k.b, k.pack+".pack", pack)
	tracking := filepath.Join(".git", "refs", "remotes", "origin", "main")
	ref, err := os.ReadFile(filepath.Join(k.twin, tracking))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(k.b, tracking), ref, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := Open(ctx, k.b)
	if err != nil {
		t.Fatal(err)
	}
	idx := ".git/objects/pack/" + k.pack + ".idx"
	problems, err := v.CheckGit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Every read of an object goes through every pack's index, so HEAD
	// may be reported unreadable too; the index must be named.
	if !slices.ContainsFunc(problems, func(p GitProblem) bool { return p.File == idx }) {
		t.Fatalf("CheckGit = %v, want a problem with %s", problems, idx)
	}
	done, err := v.Repair(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"rebuilt " + idx + " from its pack"}; !slices.Equal(done, want) {
		t.Errorf("Repair = %q, want %q", done, want)
	}
	if got, err := os.ReadFile(filepath.Join(k.b, filepath.FromSlash(idx))); err != nil || string(got) != string(k.idx) {
		t.Errorf("the rebuilt index differs from the one go-git wrote whole (%v)", err)
	}
	if problems, err := v.CheckGit(ctx); err != nil || len(problems) > 0 {
		t.Errorf("CheckGit after Repair = %v, %v; want nothing", problems, err)
	}
	if _, err := v.Sync(ctx, SyncOptions{RefuseRewrite: true}); err != nil {
		t.Fatalf("the sync after Repair: %v", err)
	}
	k.checkFetched(t)
	checkClean(t, v)
}

// writePackFile writes a file into the pack folder of the repository at
// dir.
func writePackFile(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, ".git", "objects", "pack", name), data, 0o444); err != nil {
		t.Fatal(err)
	}
}
