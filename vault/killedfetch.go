package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"

	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/ctx0/ctx0/internal/proc"
)

// A fetch is go-git's, and go-git writes two of its files in place rather
// than through a temporary file: a fetch killed midway (a hook the agent
// stopped at its timeout, a service killed with SIGKILL) can leave
//
//   - a pack's index, whole or in part, beside no pack: go-git writes the
//     index first and then moves the pack beside it. The next fetch of the
//     same objects makes the same pack, finds the index there and keeps it,
//     and every object in the pack is unreadable from then on;
//   - an empty ref file under refs/remotes or refs/tags: go-git truncates a
//     ref file before it writes the new value, and every later fetch fails
//     with "ref file is empty".
//
// Both are cleared before each fetch, under a lock that all of ctx0's
// fetches take, so what is found then is no running fetch's work. Git
// itself never leaves either: it writes a pack's index last and each ref
// through a lock file it renames, and so does ctx0 now (refStore); these
// are what an older ctx0 left.
const fetchLockFile = ".ctx0/state/fetch.lock"

// fetchJournalFile is the fetch lock's journal, as journalFile is the vault
// lock's: the ref lock files the holder's fetch or push creates, so that
// the next holder removes those a killed one left (removeDeadGitLocks)
// and not a person's git fetch's.
const fetchJournalFile = ".ctx0/state/fetch-journal"

// tempPackAge is the age past which a temporary pack file is a killed
// fetch's: git names its own the same way, and one that a person's git
// fetch is still writing changes every moment.
const tempPackAge = time.Hour

// lockFetch waits until ctx ends for the fetch lock, then clears what a
// killed fetch or push left (its journal's ref locks, fetchLeftovers). It
// returns the journal in which this holder's ref locks are recorded (see
// remote), and what it removed, each as a path relative to the vault root.
func (v *Vault) lockFetch(ctx context.Context) (unlock func(), h *held, removed []string, err error) {
	l, err := v.waitLock(ctx, filepath.Join(v.root, filepath.FromSlash(fetchLockFile)), "another ctx0 process fetching from a remote")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("lock fetches: %w", err)
	}
	h = &held{path: filepath.Join(v.root, filepath.FromSlash(fetchJournalFile)), j: journal{Holder: proc.Self().String()}}
	unlock = func() {
		h.done()
		l.Unlock()
	}
	prev, found, err := readJournal(h.path)
	if err != nil {
		unlock()
		return nil, nil, nil, err
	}
	if found {
		removed = append(removed, v.removeDeadGitLocks(prev.GitLocks)...)
	}
	left, err := v.fetchLeftovers()
	if err != nil {
		unlock()
		return nil, nil, nil, err
	}
	for _, p := range left {
		if err := os.Remove(filepath.Join(v.root, filepath.FromSlash(p))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			unlock()
			return nil, nil, removed, fmt.Errorf("remove what a killed fetch left: %w", err)
		}
		removed = append(removed, p)
	}
	if len(removed) > 0 {
		// go-git lists packs once; the next read must not find a name
		// whose file is gone.
		v.reloadPacks()
	}
	return unlock, h, removed, nil
}

// recoverFetch removes the ref lock files a killed fetch or push left, if
// its journal is there and no fetch holds the fetch lock now, so that a
// person's git fetch does not find them before ctx0's next fetch would
// remove them. It costs one stat when there is nothing to do. A fetch
// that takes the lock meanwhile does the same itself (lockFetch).
func (v *Vault) recoverFetch() {
	p := filepath.Join(v.root, filepath.FromSlash(fetchJournalFile))
	if _, err := os.Stat(p); err != nil {
		return
	}
	l, ok, err := filelock.TryExclusive(filepath.Join(v.root, filepath.FromSlash(fetchLockFile)))
	if err != nil || !ok {
		return
	}
	defer l.Unlock()
	prev, found, err := readJournal(p)
	if err != nil || !found {
		return
	}
	v.removeDeadGitLocks(prev.GitLocks)
	os.Remove(p)
}

// fetchLeftovers lists, relative to the vault root, the files a killed
// fetch left: pack indexes without their pack, empty ref files under
// refs/remotes and refs/tags, and temporary packs older than tempPackAge.
// Only under the fetch lock are they certain to be no running fetch's.
func (v *Vault) fetchLeftovers() ([]string, error) {
	var out []string
	packDir := filepath.Join(v.gitDir, "objects", "pack")
	ents, err := os.ReadDir(packDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", packDir, err)
	}
	for _, e := range ents {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "pack-") && strings.HasSuffix(name, ".idx"):
			if _, err := os.Lstat(filepath.Join(packDir, strings.TrimSuffix(name, ".idx")+".pack")); errors.Is(err, fs.ErrNotExist) {
				out = append(out, v.rel(filepath.Join(packDir, name)))
			}
		case strings.HasPrefix(name, "tmp_pack_"):
			if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > tempPackAge {
				out = append(out, v.rel(filepath.Join(packDir, name)))
			}
		}
	}
	for _, dir := range []string{"refs/remotes", "refs/tags"} {
		root := filepath.Join(v.gitDir, filepath.FromSlash(dir))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if !d.Type().IsRegular() || strings.HasSuffix(p, ".lock") {
				return nil
			}
			if fi, err := d.Info(); err == nil && fi.Size() == 0 {
				out = append(out, v.rel(p))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", root, err)
		}
	}
	return out, nil
}

// brokenPackIndexes lists, relative to the vault root, the pack indexes
// that cannot be read although their pack is there: what a fetch made of
// an index a killed one had half written, before ctx0 cleared those.
func (v *Vault) brokenPackIndexes() ([]string, error) {
	packDir := filepath.Join(v.gitDir, "objects", "pack")
	packs, err := filepath.Glob(filepath.Join(packDir, "pack-*.pack"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, pack := range packs {
		idx := strings.TrimSuffix(pack, ".pack") + ".idx"
		data, err := os.ReadFile(idx)
		if errors.Is(err, fs.ErrNotExist) {
			out = append(out, v.rel(idx))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", idx, err)
		}
		if err := idxfile.NewDecoder(bytes.NewReader(data)).Decode(idxfile.NewMemoryIndex()); err != nil {
			out = append(out, v.rel(idx))
		}
	}
	return out, nil
}

// rebuildPackIndex writes the index of the pack beside idx (a path
// relative to the vault root) again from the pack itself, as git
// index-pack does.
func (v *Vault) rebuildPackIndex(idx string) error {
	full := filepath.Join(v.root, filepath.FromSlash(idx))
	pack := strings.TrimSuffix(full, ".idx") + ".pack"
	f, err := os.Open(pack)
	if err != nil {
		return fmt.Errorf("rebuild %s: %w", idx, err)
	}
	defer f.Close()
	w := new(idxfile.Writer)
	p, err := packfile.NewParser(packfile.NewScanner(f), w)
	if err != nil {
		return fmt.Errorf("rebuild %s: read %s: %w", idx, pack, err)
	}
	if _, err := p.Parse(); err != nil {
		return fmt.Errorf("rebuild %s: read %s: %w", idx, pack, err)
	}
	mi, err := w.Index()
	if err != nil {
		return fmt.Errorf("rebuild %s: %w", idx, err)
	}
	var buf bytes.Buffer
	if _, err := idxfile.NewEncoder(&buf).Encode(mi); err != nil {
		return fmt.Errorf("rebuild %s: %w", idx, err)
	}
	// Read-only, as git and go-git leave pack files.
	if err := atomicfile.Replace(full, buf.Bytes(), 0o444); err != nil {
		return fmt.Errorf("rebuild %s: %w", idx, err)
	}
	v.reloadPacks()
	return nil
}
