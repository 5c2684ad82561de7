package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/ctx0/ctx0/vault"
)

// Options describe a run about to begin.
type Options struct {
	Kind    string // librarian, curator, …
	Trigger string // what started it, for the record
	// Provider and Model name the language model the run asks, if any.
	Provider, Model string
	Now             func() time.Time // default time.Now
}

// Session is a run in progress. It reads the vault as of its base commit
// and keeps its writes in memory until Finish; the work tree and the branch
// are untouched until then. Its methods are safe for concurrent use.
type Session struct {
	v    *vault.Vault
	tree *vault.Tree
	now  func() time.Time
	lock *filelock.Lock

	mu      sync.Mutex
	run     Run
	pending map[string][]byte // path → content; nil deletes
	ended   bool
}

// Begin starts a run from the current branch's head and records it as
// running. The caller must end it with Finish or Abort; a process that dies
// first leaves a record that lists as died.
func Begin(ctx context.Context, v *vault.Vault, o Options) (*Session, error) {
	if o.Kind == "" {
		return nil, errors.New("begin run: no kind (librarian, curator, …)")
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	tree, err := v.TreeAt(ctx, "HEAD")
	if err != nil {
		return nil, fmt.Errorf("begin %s run: %w", o.Kind, err)
	}
	started := now().UTC()
	id, err := newID(started)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(v.Root(), filepath.FromSlash(runsDir)), 0o755); err != nil {
		return nil, fmt.Errorf("begin %s run: %w", o.Kind, err)
	}
	// Lock before the record says running, so that a running record
	// whose lock is free always means a dead run.
	lock, ok, err := filelock.TryExclusive(lockPath(v.Root(), id))
	if err != nil || !ok {
		return nil, fmt.Errorf("begin %s run: lock %s: held (%v)", o.Kind, id, err)
	}
	s := &Session{v: v, tree: tree, now: now, lock: lock, pending: map[string][]byte{}, run: Run{
		ID: id, Kind: o.Kind, Trigger: o.Trigger, Base: tree.Commit(), Status: StatusRunning,
		Provider: o.Provider, Model: o.Model, Started: started,
		Created: []string{}, Updated: []string{}, Deleted: []string{},
	}}
	if err := save(v.Root(), s.run); err != nil {
		s.release()
		return nil, err
	}
	return s, nil
}

// ID is the run's id.
func (s *Session) ID() string { return s.run.ID }

// Tree is the vault as of the run's base commit.
func (s *Session) Tree() *vault.Tree { return s.tree }

// Read returns the file at p as the run sees it: its own pending write if
// it made one, else the base. A missing or deleted file is an error that
// errors.Is fs.ErrNotExist.
func (s *Session) Read(ctx context.Context, p string) ([]byte, error) {
	s.mu.Lock()
	data, pending := s.pending[p]
	s.mu.Unlock()
	if !pending {
		return s.tree.Read(ctx, p)
	}
	if data == nil {
		return nil, fmt.Errorf("read %s: deleted by run %s: %w", p, s.run.ID, fs.ErrNotExist)
	}
	return bytes.Clone(data), nil
}

// Write sets the content of the entry file at p for the run's commit. The
// path and content are checked now (vault.Tree.CheckWrite); nothing reaches
// the disk before Finish.
func (s *Session) Write(p string, data []byte) error {
	data = append([]byte{}, data...) // never nil: nil means delete
	return s.put(p, data)
}

// Delete removes the entry file at p in the run's commit.
func (s *Session) Delete(p string) error { return s.put(p, nil) }

func (s *Session) put(p string, data []byte) error {
	if err := s.tree.CheckWrite(p, data); err != nil {
		return fmt.Errorf("run %s: %w", s.run.ID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return fmt.Errorf("run %s: already ended", s.run.ID)
	}
	s.pending[p] = data
	return nil
}

// AddUsage adds what a completion cost to the run's record.
func (s *Session) AddUsage(u llm.Usage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.run.Usage = s.run.Usage.Add(u)
}

// Finish ends the run: its changes become a commit on refs/ctx0/runs/<id>
// whose parent is the base, merged into the current branch field by field
// (vault.MergeRun), and the record says done. A run that changed nothing
// is done with nothing committed. If the commit or merge fails, the branch
// is as it was, the record says failed (cancelled if ctx was), and the
// error is returned with the record.
func (s *Session) Finish(ctx context.Context, msg string) (Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return s.run, fmt.Errorf("finish run %s: already ended", s.run.ID)
	}
	s.ended = true
	err := s.commitAndMerge(ctx, msg)
	run, serr := s.end(err)
	return run, errors.Join(err, serr)
}

func (s *Session) commitAndMerge(ctx context.Context, msg string) error {
	files, err := s.changes(ctx)
	if err != nil || len(files) == 0 {
		return err
	}
	commit, err := s.v.CommitRun(ctx, s.run.ID, s.run.Base, files, s.message(msg))
	if err != nil {
		return err
	}
	s.run.Result = commit
	// Should the process die while merging, its record still leads to the
	// commit (ctx0 runs show); a failure to save here shows up in end's.
	_ = save(s.v.Root(), s.run)
	res, err := s.v.MergeRun(ctx, commit, s.run.Kind+" run "+s.run.ID)
	if err != nil {
		return fmt.Errorf("merge run %s: %w", s.run.ID, err)
	}
	s.run.Merged, s.run.Conflicts = res.Commit, res.Conflicts
	return nil
}

// Abort ends the run without touching the branch: the record says
// cancelled when cause is a cancelled context, else failed, with cause as
// its error. What the run had written is still committed on its ref, for
// ctx0 runs show. The error is about recording, never cause.
func (s *Session) Abort(ctx context.Context, cause error) (Run, error) {
	if cause == nil {
		cause = errors.New("aborted")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return s.run, fmt.Errorf("abort run %s: already ended", s.run.ID)
	}
	s.ended = true
	// The run is over whether or not ctx still is; recording it must not
	// fail for that.
	ctx = context.WithoutCancel(ctx)
	if files, err := s.changes(ctx); err == nil && len(files) > 0 {
		if commit, err := s.v.CommitRun(ctx, s.run.ID, s.run.Base, files, s.message("aborted: "+cause.Error())); err == nil {
			s.run.Result = commit
		}
	}
	return s.end(cause)
}

// changes is the run's pending writes less those that leave the base as
// it was, and sorts them into created, updated and deleted for the record.
func (s *Session) changes(ctx context.Context) (map[string][]byte, error) {
	files := map[string][]byte{}
	s.run.Created, s.run.Updated, s.run.Deleted = []string{}, []string{}, []string{}
	for p, data := range s.pending {
		old, err := s.tree.Read(ctx, p)
		absent := errors.Is(err, fs.ErrNotExist)
		if err != nil && !absent {
			return nil, err
		}
		switch {
		case data == nil && absent, data != nil && !absent && bytes.Equal(old, data):
			continue
		case data == nil:
			s.run.Deleted = append(s.run.Deleted, p)
		case absent:
			s.run.Created = append(s.run.Created, p)
		default:
			s.run.Updated = append(s.run.Updated, p)
		}
		files[p] = data
	}
	for _, l := range [][]string{s.run.Created, s.run.Updated, s.run.Deleted} {
		sort.Strings(l)
	}
	return files, nil
}

// message is the run commit's message: msg, with the run named in
// trailers so git log leads back to the record.
func (s *Session) message(msg string) string {
	if msg == "" {
		msg = s.run.Kind + " run"
	}
	msg += "\n\nRun: " + s.run.ID
	if s.run.Trigger != "" {
		msg += "\nTrigger: " + s.run.Trigger
	}
	return msg
}

// end records the run's outcome (done when err is nil) and releases its
// lock. The error is about writing the record.
func (s *Session) end(err error) (Run, error) {
	s.run.Ended = s.now().UTC()
	switch {
	case err == nil:
		s.run.Status = StatusDone
	case errors.Is(err, context.Canceled):
		s.run.Status, s.run.Error = StatusCancelled, err.Error()
	default:
		s.run.Status, s.run.Error = StatusFailed, err.Error()
	}
	defer s.release()
	return s.run, save(s.v.Root(), s.run)
}

// release lets go of the run's lock; after it, the run is not alive.
func (s *Session) release() {
	_ = os.Remove(s.lock.Path())
	_ = s.lock.Unlock()
}
