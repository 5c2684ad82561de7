package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage"
)

// refStore is a repository's storage whose references are written the way
// git writes them: each through "<ref>.lock", filled, fsynced and renamed
// over the ref (writeRefAs), so that a process killed at any moment leaves
// a ref with its old value or its new one, never an empty or half-written
// file. go-git's own storage truncates a ref file and then writes it, and
// every git command after a kill between the two calls the repository
// broken. Every go-git call of ctx0 that sets references (fetch, push,
// clone) goes through one.
//
// Its locks are recorded in h, the fetch lock's journal for a fetch or a
// push (lockFetch), which run outside the vault lock: the next holder
// removes those a killed one left. Without a journal (a repository being
// made), a lock left is removed by the next write once stale, by the rules
// for git's lock files (createGitLockAs).
type refStore struct {
	*sharedStorage
	v   *Vault
	h   *held
	ctx context.Context
}

// refStore returns the repository's storage with references written
// through lock files recorded in h, waiting for a ref's lock until ctx
// ends.
func (v *Vault) refStore(ctx context.Context, h *held) (*refStore, error) {
	s, ok := v.repo.Storer.(*sharedStorage)
	if !ok {
		return nil, fmt.Errorf("vault %s: storage %T is not the vault's own", v.root, v.repo.Storer)
	}
	return &refStore{sharedStorage: s, v: v, h: h, ctx: ctx}, nil
}

// newRepoStore is the storage of a git repository to be made at root (by
// git init or a clone), with its refs written through lock files as a
// vault's are.
func newRepoStore(ctx context.Context, root string) (*refStore, error) {
	dot := filepath.Join(root, ".git")
	if err := os.MkdirAll(dot, 0o755); err != nil {
		return nil, fmt.Errorf("make %s: %w", dot, err)
	}
	raw := &Vault{root: root, gitDir: dot, gitLockWait: defaultGitLockWait}
	return &refStore{sharedStorage: newSharedStorage(dot), v: raw, ctx: ctx}, nil
}

// remote is the vault's remote name, fetching and pushing through a
// refStore whose locks h records.
func (v *Vault) remote(ctx context.Context, h *held, name string) (*git.Remote, error) {
	r, err := v.repo.Remote(name)
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", name, err)
	}
	s, err := v.refStore(ctx, h)
	if err != nil {
		return nil, err
	}
	return git.NewRemote(s, r.Config()), nil
}

// SetReference sets r, whatever the ref held.
func (s *refStore) SetReference(r *plumbing.Reference) error {
	return s.CheckAndSetReference(r, nil)
}

// CheckAndSetReference sets r if the ref still holds old's hash (any value
// when old is nil), comparing under the ref's lock, as go-git's does; the
// value compared is the ref's loose file or, without one, its packed
// entry. It fails with storage.ErrReferenceHasChanged otherwise.
func (s *refStore) CheckAndSetReference(r, old *plumbing.Reference) error {
	name := r.Name()
	if err := s.checkName(name); err != nil {
		return err
	}
	var value string
	switch r.Type() {
	case plumbing.HashReference:
		value = r.Hash().String()
	case plumbing.SymbolicReference:
		value = "ref: " + r.Target().String()
	default:
		return fmt.Errorf("update %s: invalid reference", name)
	}
	check := func() error {
		if old == nil {
			return nil
		}
		cur, err := s.sharedStorage.Reference(name)
		if err != nil {
			return fmt.Errorf("update %s: read its value: %w", name, err)
		}
		if cur.Hash() != old.Hash() {
			return storage.ErrReferenceHasChanged
		}
		return nil
	}
	return s.v.writeRefAs(s.ctx, s.h, name, value, check, nil)
}

// RemoveReference removes the ref's loose file and its packed entry
// holding its lock, so that no git command writes it meanwhile.
func (s *refStore) RemoveReference(name plumbing.ReferenceName) error {
	if err := s.checkName(name); err != nil {
		return err
	}
	lockPath := filepath.Join(s.v.gitDir, filepath.FromSlash(name.String())) + ".lock"
	if _, err := os.Lstat(filepath.Dir(lockPath)); errors.Is(err, os.ErrNotExist) {
		// No loose ref, so no folder for its lock: only packed-refs
		// can hold it, which go-git rewrites through a temporary file.
		return s.sharedStorage.RemoveReference(name)
	}
	f, err := s.v.createGitLockAs(s.ctx, s.h, lockPath, s.v.gitLockWait)
	if err != nil {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	f.Close()
	defer os.Remove(lockPath)
	return s.sharedStorage.RemoveReference(name)
}

// checkName refuses a name that is not a ref under the git folder: a
// remote names the refs a fetch writes.
func (s *refStore) checkName(name plumbing.ReferenceName) error {
	p := filepath.Join(s.v.gitDir, filepath.FromSlash(name.String()))
	bad := !name.IsSafe() || !isInside(s.v.gitDir, p)
	for _, c := range []byte(name) {
		bad = bad || c < 0x20 || c == 0x7f
	}
	if bad {
		return fmt.Errorf("update %q: not a reference name git allows", name.String())
	}
	return nil
}
