package vault

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ctx0/ctx0/internal/inode"
	"github.com/ctx0/ctx0/internal/proc"
)

// journalFile is the vault lock's journal. The lock itself is a flock on
// .ctx0/lock, which decides who holds the vault; the journal says what the
// holder is doing: who it is (pid and start time), which files it is
// writing (each path with its content before and after, as git blob
// hashes), and which of git's lock files it is creating. A writer that
// finishes removes it. A writer killed midway leaves it behind, and
// whichever ctx0 command comes next (it finds a journal and can take the
// lock) finishes or undoes that writer's work: see recoverLocked. It lives
// beside the lock, not in it, because on Windows the locked byte range
// cannot be written through another handle, and in .ctx0/state/ because
// that folder is ignored by git in every vault.
const journalFile = ".ctx0/state/journal"

// The journal is JSON lines: the first holds the holder and the records
// so far, each later one the records added since (see held.save). It is
// not fsynced: it guards against a killed process, whose writes the kernel
// keeps, and a crash of the machine that loses it loses no more than the
// same crash did before the journal.
type journal struct {
	Holder   string         `json:"holder"`
	Writes   []journalWrite `json:"writes,omitempty"`
	GitLocks []journalLock  `json:"gitLocks,omitempty"`
}

// journalWrite is one file a writer changes. Hashes are git blob hashes;
// "" means the file is absent. Pre is the work-tree file before the write,
// stored as a blob first so it can be put back; Head is the path in HEAD's
// tree before the commit; Post is what the write puts there.
type journalWrite struct {
	Path string `json:"path"`
	Pre  string `json:"pre,omitempty"`
	Head string `json:"head,omitempty"`
	Post string `json:"post,omitempty"`
}

// journalLock is one of git's lock files (index.lock, refs/heads/main.lock)
// that the writer created: its path relative to the git dir, the file's
// inode (0 where the system has none), and when.
type journalLock struct {
	Path string `json:"path"`
	Tmp  string `json:"tmp,omitempty"` // ctx0's own name for the file before it became Path
	Ino  uint64 `json:"ino,omitempty"`
	At   int64  `json:"at"` // unix nanoseconds
}

// held is the vault lock while this process holds it.
type held struct {
	path string // the journal file
	j    journal
	// syncing is set while a sync holds the lock: the commits it makes
	// (merges, external edits) are its own to push, so they do not call
	// onCommit.
	syncing bool
	// onDisk is how many records of j the journal file holds, in order;
	// rewrite is set when one of those was changed or dropped since.
	onDisk struct {
		saved         bool
		writes, locks int
		rewrite       bool
	}

	// head is HEAD's tree as the journal last looked, kept while HEAD
	// stays: the writes of a group ask it of one path each.
	head struct {
		hash  plumbing.Hash
		files *headPaths
	}
}

func readJournal(p string) (journal, bool, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return journal{}, false, nil
	}
	if err != nil {
		return journal{}, false, fmt.Errorf("read lock journal: %w", err)
	}
	return parseJournal(data), true, nil
}

// parseJournal reads a journal's lines: the first, then the records each
// later one adds. A line cut short is the last one, and its holder died
// writing it, before it touched what the line would have named: it and
// anything after it are left out.
func parseJournal(data []byte) journal {
	var j journal
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec journal
		if json.Unmarshal(line, &rec) != nil {
			break
		}
		if i == 0 {
			j.Holder = rec.Holder
		}
		j.Writes = append(j.Writes, rec.Writes...)
		j.GitLocks = append(j.GitLocks, rec.GitLocks...)
	}
	return j
}

// save writes the journal. While the holder only adds records, each save
// appends a line with the new ones: a group commit journals each of its
// writes before it touches the file, and rewriting every record each time
// made the group's journal quadratic, and each rename over the old file
// waited for the file system to flush it (ext4 does so for a file replaced
// by rename). A record changed or dropped since it was saved makes the
// file written whole again, replaced by a rename so that a reader sees
// the old one or the new one.
func (h *held) save() error {
	d := &h.onDisk
	if !d.saved || d.rewrite || len(h.j.Writes) < d.writes || len(h.j.GitLocks) < d.locks {
		data, err := json.Marshal(h.j)
		if err != nil {
			return err
		}
		tmp := h.path + ".new"
		if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
			return fmt.Errorf("write lock journal: %w", err)
		}
		if err := os.Rename(tmp, h.path); err != nil {
			return fmt.Errorf("write lock journal: %w", err)
		}
		d.saved, d.rewrite, d.writes, d.locks = true, false, len(h.j.Writes), len(h.j.GitLocks)
		return nil
	}
	rec := journal{Writes: h.j.Writes[d.writes:], GitLocks: h.j.GitLocks[d.locks:]}
	if len(rec.Writes) == 0 && len(rec.GitLocks) == 0 {
		return nil
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("write lock journal: %w", err)
	}
	// One write: a process killed during it leaves the line whole or
	// not at all, and a line cut short is read as never written.
	_, err = f.Write(append(data, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// What the file holds now is unknown: write it whole next time.
		d.rewrite = true
		return fmt.Errorf("write lock journal: %w", err)
	}
	d.writes, d.locks = len(h.j.Writes), len(h.j.GitLocks)
	return nil
}

// dropWrites forgets the write records from the n-th on (their writes were
// put back, or committed and staged); the file keeps them until the next
// save writes it whole, as it did before saves appended.
func (h *held) dropWrites(n int) {
	if n >= len(h.j.Writes) {
		return
	}
	h.j.Writes = h.j.Writes[:n]
	if n < h.onDisk.writes {
		h.onDisk.rewrite = true
	}
}

// done removes the journal: the holder finished.
func (h *held) done() error {
	if err := os.Remove(h.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove lock journal: %w", err)
	}
	return nil
}

// gitLockRel is p (a path under the git dir) as the journal records it.
func (v *Vault) gitLockRel(p string) string {
	rel, err := filepath.Rel(v.gitDir, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

// createGitLock creates git's lock file p exclusively, as git does, and
// records it in the journal, so that a ctx0 killed while holding it is
// known to have held it. The file is made under a name of ctx0's own
// first and recorded with its inode, then hard-linked to p, which fails if
// p exists as O_EXCL does: so the record names the lock before the lock
// exists, and only that file. (Where there are no hard links, p is created
// directly and recorded once made.) It waits up to wait for a git command
// holding p to finish. A lock file older than staleLock that no journal
// accounts for (a git command, or a ctx0 from before the journal, that was
// killed) is removed when abandoned says so.
func (v *Vault) createGitLock(ctx context.Context, p string, wait time.Duration) (*os.File, error) {
	return v.createGitLockAs(ctx, v.held, p, wait)
}

// createGitLockAs is createGitLock recording the lock in h's journal, or
// in none when h is nil.
func (v *Vault) createGitLockAs(ctx context.Context, h *held, p string, wait time.Duration) (*os.File, error) {
	var own *os.File
	if h != nil {
		f, err := os.CreateTemp(v.gitDir, "ctx0-lock-*")
		if err != nil {
			return nil, err
		}
		defer os.Remove(f.Name()) // the name only: p keeps the file
		rec := journalLock{Path: v.gitLockRel(p), Tmp: v.gitLockRel(f.Name()), At: time.Now().UnixNano()}
		if fi, err := f.Stat(); err == nil {
			rec.Ino = inode.Of(fi)
		}
		h.j.GitLocks = append(h.j.GitLocks, rec)
		if err := h.save(); err != nil {
			f.Close()
			return nil, err
		}
		own = f
	}
	delay := time.Millisecond
	deadline := time.Now().Add(wait)
	for {
		var f *os.File
		var err error
		if own != nil {
			if err = os.Link(own.Name(), p); err == nil {
				return own, nil
			}
			if !errors.Is(err, os.ErrExist) {
				// No hard links here: create p itself.
				own.Close()
				own = nil
				continue
			}
		} else {
			f, err = os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
			if err == nil {
				if h == nil {
					return f, nil
				}
				rec := journalLock{Path: v.gitLockRel(p), At: time.Now().UnixNano()}
				if fi, err := f.Stat(); err == nil {
					rec.Ino = inode.Of(fi)
				}
				h.j.GitLocks = append(h.j.GitLocks, rec)
				if err := h.save(); err != nil {
					f.Close()
					os.Remove(p)
					return nil, err
				}
				return f, nil
			}
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > staleLock && v.abandoned(p) {
			os.Remove(p)
			continue
		}
		if time.Now().After(deadline) {
			if own != nil {
				own.Close()
			}
			return nil, fmt.Errorf("%s: %w: another git process is running, or one crashed (remove the file if so)", p, os.ErrExist)
		}
		select {
		case <-ctx.Done():
			if own != nil {
				own.Close()
			}
			return nil, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 50*time.Millisecond)
	}
}

// removeDeadGitLocks removes the git lock files that the journal of a dead
// holder says it created. The rule that tells its lock from a person's git
// command's: the file must still be the one the holder created, the same
// inode, modified no earlier than the holder created it (less a second for
// coarse file-system clocks) and no later than a minute after (a lock is
// held for milliseconds, and a later file with a reused inode is someone
// else's). Where the system gives no inode numbers, the time alone says:
// modified within a second before the record and two seconds after.
func (v *Vault) removeDeadGitLocks(locks []journalLock) []string {
	var removed []string
	for _, l := range locks {
		if l.Tmp != "" && strings.HasPrefix(path.Base(l.Tmp), "ctx0-lock-") {
			if t := filepath.Join(v.gitDir, filepath.FromSlash(l.Tmp)); isInside(v.gitDir, t) {
				os.Remove(t)
			}
		}
		p := filepath.Join(v.gitDir, filepath.FromSlash(l.Path))
		if !isInside(v.gitDir, p) {
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		at := time.Unix(0, l.At)
		m := fi.ModTime()
		var ours bool
		if l.Ino != 0 {
			ours = inode.Of(fi) == l.Ino && !m.Before(at.Add(-time.Second)) && m.Before(at.Add(time.Minute))
		} else {
			ours = !m.Before(at.Add(-time.Second)) && m.Before(at.Add(2*time.Second))
		}
		if ours && os.Remove(p) == nil {
			removed = append(removed, ".git/"+l.Path)
		}
	}
	return removed
}

func isInside(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && !bytes.HasPrefix([]byte(filepath.ToSlash(rel)), []byte("../"))
}

// holderExitWait bounds the wait for a journal's holder that still shows
// as running to end (see holderAlive).
const holderExitWait = time.Second

// holderAlive tells whether the holder a journal names still runs. It is
// called with the vault lock held, so that holder has let go of it: one
// killed a moment ago closed its files, its flock with them, before the
// system shows it as ended, and the process that was waiting for the lock
// (a writer whose watcher was killed as it made the writer's write) gets
// it in that moment. So a holder that shows as running is waited for,
// briefly, before it is taken for one that runs: otherwise its journal
// would be left alone, then replaced by the new holder's, and its git lock
// files and half-made writes left for nobody to repair.
func holderAlive(j journal) bool {
	h, err := proc.Parse(j.Holder)
	if err != nil {
		return false
	}
	if h == proc.Self() {
		// This process holds the flock now, so its earlier lock session
		// that left the journal is over.
		return false
	}
	return !h.WaitGone(holderExitWait)
}

// abandoned tells whether a git lock file older than staleLock, which no
// ctx0 journal names, was left by a process that is gone. A ref lock is:
// git holds one for milliseconds. An index.lock is only when no git
// process runs in the vault, since `git commit` holds it for as long as
// the person takes to write the message; where processes cannot be
// listed, it is left to the person (doctor names it).
func (v *Vault) abandoned(p string) bool {
	if filepath.Base(p) != "index.lock" {
		return true
	}
	running, known := proc.Running("git", v.root)
	return known && !running
}
