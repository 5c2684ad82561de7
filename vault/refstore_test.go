package vault

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage"
)

// refStoreOfTwoCommits is a vault of two commits, its HEAD before and
// after the second, and the ref store of its fetches.
func refStoreOfTwoCommits(t *testing.T) (v *Vault, rs *refStore, first, second headState) {
	t.Helper()
	v = testVault(t)
	var err error
	if first, err = v.head(); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Remember(t.Context(), RememberOptions{Text: "A second commit for the ref to move to."}); err != nil {
		t.Fatal(err)
	}
	if second, err = v.head(); err != nil {
		t.Fatal(err)
	}
	if rs, err = v.refStore(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	return v, rs, first, second
}

// TestRefStoreWritesThroughALock: a ref write interrupted between filling
// its lock file and the rename (a stale "<ref>.lock" left behind) leaves
// the ref at its old value for git; a live writer's lock is waited for
// and honoured; a stale one is recovered by the next write, as the rules
// for git's lock files say.
func TestRefStoreWritesThroughALock(t *testing.T) {
	v, rs, first, second := refStoreOfTwoCommits(t)
	name := plumbing.NewRemoteReferenceName("origin", "main")
	if err := rs.SetReference(plumbing.NewHashReference(name, first.hash)); err != nil {
		t.Fatal(err)
	}
	refPath := filepath.Join(v.gitDir, "refs", "remotes", "origin", "main")
	lockPath := refPath + ".lock"
	// A writer killed after filling its lock file, before the rename.
	if err := os.WriteFile(lockPath, []byte(second.hash.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRef(t, v, name, first.hash)

	v.gitLockWait = 50 * time.Millisecond
	err := rs.SetReference(plumbing.NewHashReference(name, second.hash))
	if !errors.Is(err, os.ErrExist) {
		t.Fatalf("write beside a fresh lock: %v, want it refused as held", err)
	}
	wantRef(t, v, name, first.hash)

	old := time.Now().Add(-2 * staleLock)
	if err := os.Chtimes(lockPath, old, old); err != nil {
		t.Fatal(err)
	}
	if err := rs.SetReference(plumbing.NewHashReference(name, second.hash)); err != nil {
		t.Fatalf("write beside a stale lock: %v", err)
	}
	wantRef(t, v, name, second.hash)
	if _, err := os.Lstat(lockPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left after the write: %v", err)
	}
	runGit(t, v, "fsck", "--strict")
}

// TestRefStoreCheckAndSet keeps go-git's compare-and-swap: the old value is
// compared under the lock, a loose ref or a packed one, and a refused
// write leaves the ref and no lock file.
func TestRefStoreCheckAndSet(t *testing.T) {
	v, rs, first, second := refStoreOfTwoCommits(t)
	name := plumbing.ReferenceName("refs/tags/kept")
	// Packed only, as git gc leaves it.
	runGit(t, v, "update-ref", name.String(), first.hash.String())
	runGit(t, v, "pack-refs", "--all")
	if _, err := os.Lstat(filepath.Join(v.gitDir, "refs", "tags", "kept")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("tag not packed: %v", err)
	}
	tests := []struct {
		name string
		old  plumbing.Hash
		want error
		then plumbing.Hash
	}{
		{"stale old value", second.hash, storage.ErrReferenceHasChanged, first.hash},
		{"packed old value", first.hash, nil, second.hash},
		{"loose old value", second.hash, nil, first.hash},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := rs.CheckAndSetReference(plumbing.NewHashReference(name, tc.then), plumbing.NewHashReference(name, tc.old))
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if tc.want != nil {
				tc.then = tc.old
				if cur, _ := v.repo.Storer.Reference(name); cur != nil {
					tc.then = cur.Hash()
				}
			}
			wantRef(t, v, name, tc.then)
			if _, err := os.Lstat(filepath.Join(v.gitDir, "refs", "tags", "kept.lock")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("lock file left: %v", err)
			}
		})
	}
	if err := rs.RemoveReference(name); err != nil {
		t.Fatal(err)
	}
	if out := runGit(t, v, "for-each-ref", name.String()); out != "" {
		t.Errorf("removed tag still listed: %q", out)
	}
	if err := rs.SetReference(plumbing.NewHashReference("refs/remotes/origin/main", second.hash)); err != nil {
		t.Fatal(err)
	}
	sym := plumbing.NewSymbolicReference("refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	if err := rs.SetReference(sym); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(v.gitDir, "refs", "remotes", "origin", "HEAD")); string(got) != "ref: refs/remotes/origin/main\n" {
		t.Errorf("symbolic ref holds %q", got)
	}
	for _, bad := range []plumbing.ReferenceName{"refs/tags/../../config", "../outside", "refs/heads/a\x01b"} {
		if err := rs.SetReference(plumbing.NewHashReference(bad, first.hash)); err == nil {
			t.Errorf("SetReference(%q) accepted", bad)
		}
	}
	runGit(t, v, "fsck", "--strict")
}

// wantRef fails t unless git reads name as h.
func wantRef(t *testing.T, v *Vault, name plumbing.ReferenceName, h plumbing.Hash) {
	t.Helper()
	if got := strings.TrimSpace(runGit(t, v, "rev-parse", "--verify", name.String())); got != h.String() {
		t.Errorf("git reads %s as %s, want %s", name, got, h)
	}
}

// TestKilledFetchRefLockIsCleared: a fetch killed holding a ref's lock
// file left it recorded in the fetch lock's journal, and the next holder
// of the fetch lock, or the next command to open the vault, removes it at
// once, the ref keeping its old value; a lock file the journal does not
// name (a person's git fetch) is left.
func TestKilledFetchRefLockIsCleared(t *testing.T) {
	for _, tc := range []struct {
		name    string
		recover func(t *testing.T, v *Vault)
	}{
		{"next fetch", func(t *testing.T, v *Vault) {
			unlock, _, removed, err := v.lockFetch(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			unlock()
			if want := []string{".git/refs/remotes/origin/main.lock"}; !slices.Equal(removed, want) {
				t.Errorf("removed %q, want %q", removed, want)
			}
		}},
		{"next command", func(t *testing.T, v *Vault) {
			if _, err := Open(t.Context(), v.root); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := testVault(t)
			ctx := t.Context()
			head, err := v.head()
			if err != nil {
				t.Fatal(err)
			}
			name := plumbing.NewRemoteReferenceName("origin", "main")
			tag := filepath.Join(v.gitDir, "refs", "tags", "person.lock")
			unlock, h, _, err := v.lockFetch(ctx)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := v.refStore(ctx, h)
			if err != nil {
				t.Fatal(err)
			}
			if err := rs.SetReference(plumbing.NewHashReference(name, head.hash)); err != nil {
				t.Fatal(err)
			}
			lockPath := filepath.Join(v.gitDir, "refs", "remotes", "origin", "main.lock")
			// Killed after filling the lock file, before the rename: the
			// journal names the lock, and the process no longer removes it.
			f, err := v.createGitLockAs(ctx, h, lockPath, v.gitLockWait)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(strings.Repeat("0", 40) + "\n")
			f.Close()
			journal, err := os.ReadFile(h.path)
			if err != nil {
				t.Fatal(err)
			}
			unlock()
			if err := os.WriteFile(h.path, journal, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(tag), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(tag, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			wantRef(t, v, name, head.hash)

			tc.recover(t, v)
			if _, err := os.Lstat(lockPath); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the killed fetch's lock is still there: %v", err)
			}
			if _, err := os.Lstat(tag); err != nil {
				t.Errorf("a lock the journal does not name was removed: %v", err)
			}
			if _, err := os.Lstat(h.path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("fetch journal left: %v", err)
			}
			wantRef(t, v, name, head.hash)
			runGit(t, v, "fsck", "--strict")
		})
	}
}
