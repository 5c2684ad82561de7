package vault

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
)

// Group commit. The writes of one process that arrive while a commit is
// being made wait, and go into the next commit together: one lock, one
// commit, one update of git's staging area for all of them, so throughput
// grows with the writers instead of staying at one commit at a time.
// Each write is still decided, checked, redacted and merged with what a
// person changed on its own, in arrival order, each on the files as the
// writes before it left them; a write that fails fails alone, and each
// caller gets its own result with the commit that holds its write. Two
// writes of one file never share a commit: the later one waits for the
// next, so the journal and the merge see one change per file.
// The remembers and adds of other processes that find the lock held join
// the group through the queue beside the lock (queue.go).

// pendingWrite is one call of update waiting for its commit.
type pendingWrite struct {
	ctx   context.Context
	fn    func() (msg string, changes []change, err error)
	c     Commit
	err   error
	panic any // what fn panicked with, raised again in the caller
	done  chan struct{}
	// state is pendingTaken until the write is decided (pendingStarted)
	// or its caller stops waiting first (pendingAbandoned).
	state atomic.Int32
	// q is set for a write that can go through the queue beside the
	// vault lock: this process's, which another may commit, or another
	// process's, taken in from that queue (queue.go).
	q *queuedWrite
	// answered, if set, is called once the writes of other processes
	// that p's group took in are answered (see MakeQueued).
	answered func()
}

const (
	pendingTaken = iota
	pendingStarted
	pendingAbandoned
)

func (p *pendingWrite) finish(c Commit, err error) {
	p.c, p.err = c, err
	close(p.done)
}

// run decides the write, keeping a panic for the caller's goroutine.
func (p *pendingWrite) run() (msg string, changes []change, err error) {
	defer func() {
		if r := recover(); r != nil {
			p.panic = r
			err = fmt.Errorf("write panicked: %v", r)
		}
	}()
	return p.fn()
}

// writeQueue holds the writes waiting for the next commit, and whether a
// goroutine is making commits of them.
type writeQueue struct {
	mu      sync.Mutex
	pending []*pendingWrite
	running bool
}

// take removes the next group from the queue: the writes that arrived so
// far. (A sync commits under the vault lock, never through the queue: see
// held.syncing.)
func (q *writeQueue) take() []*pendingWrite {
	group := q.pending
	q.pending = nil
	return group
}

// update runs one write: under the vault lock, fn reads what it needs and
// returns the changes; they are committed, with the other writes waiting
// at the time, and the catalog hears of them. Deciding under the lock is
// what keeps two writers from picking the same new name or overwriting
// each other's edit.
func (v *Vault) update(ctx context.Context, fn func() (msg string, changes []change, err error)) (Commit, error) {
	return v.updateWrite(&pendingWrite{ctx: ctx, fn: fn, done: make(chan struct{})})
}

// updateWrite is update of a write made ready by its caller.
func (v *Vault) updateWrite(p *pendingWrite) (Commit, error) {
	ctx := p.ctx
	if err := ctx.Err(); err != nil {
		return Commit{}, v.lockError(ctx)
	}
	q := &v.writes
	q.mu.Lock()
	q.pending = append(q.pending, p)
	if !q.running {
		q.running = true
		go v.runWrites()
	}
	q.mu.Unlock()
	select {
	case <-p.done:
	case <-ctx.Done():
		q.mu.Lock()
		if i := slices.Index(q.pending, p); i >= 0 {
			q.pending = slices.Delete(q.pending, i, i+1)
			q.mu.Unlock()
			return Commit{}, v.lockError(ctx)
		}
		q.mu.Unlock()
		if p.state.CompareAndSwap(pendingTaken, pendingAbandoned) {
			// Taken into a group still waiting for the lock: it will
			// skip this write.
			return Commit{}, v.lockError(ctx)
		}
		// Being decided or committed: its outcome is this write's.
		<-p.done
	}
	if p.panic != nil {
		panic(p.panic)
	}
	return p.c, p.err
}

func (v *Vault) lockError(ctx context.Context) error {
	return fmt.Errorf("lock vault %s: %w", filepath.Join(v.root, lockFile), ctx.Err())
}

// runWrites commits the queued writes, group after group, until none wait.
func (v *Vault) runWrites() {
	q := &v.writes
	for {
		q.mu.Lock()
		group := q.take()
		if len(group) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		if later := v.commitGroup(group); len(later) > 0 {
			q.mu.Lock()
			q.pending = append(later, q.pending...)
			q.mu.Unlock()
		}
	}
}

// groupWrite is one write of a group, in the work tree.
type groupWrite struct {
	p        *pendingWrite
	msg      string
	redacted map[string]int
	blobs    map[string]plumbing.Hash
	s        *staged
}

// errLater means a write changes a file that an earlier write of the same
// group changes: it goes into the next commit.
var errLater = errors.New("a file of this write is in the commit being made")

// commitGroup makes one commit of group's writes, and finishes each; it
// returns the writes that must wait for the next commit.
func (v *Vault) commitGroup(group []*pendingWrite) (later []*pendingWrite) {
	ctx, stop := groupContext(group)
	defer func() { stop() }()
	// Each caller hears of its write only once the lock is released and
	// its journal removed: a process that exits as soon as its write
	// returns (the CLI) would otherwise leave the journal behind, and the
	// next command would repair a write that was whole.
	var results []func()
	finish := func(p *pendingWrite, c Commit, err error) {
		if p.q.answer(c, err) {
			return
		}
		results = append(results, func() { p.finish(c, err) })
	}
	// The lock, and with it the writes other processes queued beside it;
	// this process's writes that one of them committed meanwhile are
	// finished.
	unlock, group, err := v.lockGroup(ctx, group, finish)
	if err != nil {
		for _, p := range group {
			if !p.state.CompareAndSwap(pendingTaken, pendingStarted) {
				continue // its caller has gone
			}
			if p.ctx.Err() != nil {
				p.finish(Commit{}, v.lockError(p.ctx))
				continue
			}
			p.finish(Commit{}, err)
		}
		return nil
	}
	defer func() {
		unlock()
		for _, r := range results {
			r()
		}
	}()
	if len(group) == 0 {
		return nil
	}
	// The writes taken in from the queue wait for this commit as well: the
	// group's context now ends only once all of theirs have too, so that a
	// leader whose caller gave up (a sync that timed out, a request that
	// ended) does not cancel another process's write half made.
	stop()
	ctx, stop = groupContext(group)
	// The writes' checks (a duplicate, an alias taken) ask the catalog as
	// the group found it, and see the group's earlier writes in the view;
	// the catalog hears of all of them once, as the commit is made.
	v.group = v.newGroupView(ctx)
	defer func() { v.group = nil }()
	obs, _ := v.catalog.(Observer)
	touched := map[string]bool{}
	var ws []*groupWrite
	var paths []string
	for _, p := range group {
		if !p.state.CompareAndSwap(pendingTaken, pendingStarted) {
			continue // its caller has gone
		}
		w, err := v.stageWrite(p, touched)
		switch {
		case errors.Is(err, errLater) && p.q.putBack():
			continue
		case errors.Is(err, errLater):
			p.state.Store(pendingTaken)
			later = append(later, p)
			continue
		case err != nil || w == nil:
			finish(p, Commit{}, err)
			continue
		}
		ws = append(ws, w)
		v.group.add(w.s.changes)
		paths = append(paths, w.s.paths()...)
	}
	if len(ws) == 0 {
		return later
	}
	// No write is decided after the last one, so the catalog hears of the
	// group's files while the commit is made, which needs nothing of the
	// catalog: the index update and the commit overlap. A group that holds
	// other processes' writes answers them first, as soon as their commit
	// is durable and staged, and the index follows the answer: beside the
	// commit it would take a core from the commit they wait for. (The
	// catalog is a derived view: a reader that syncs with the watcher
	// holding the lock finds the files all the same, and the next group
	// decides only once the update is over, under the lock.)
	var indexErr error
	followed := make(chan struct{})
	follow := func() {
		defer close(followed)
		if obs != nil {
			indexErr = obs.Changed(context.WithoutCancel(ctx), paths)
		}
	}
	taken := func(w *groupWrite) bool { return w.p.q != nil && w.p.q.remote }
	remote := slices.ContainsFunc(ws, taken)
	if !remote {
		go follow()
	}
	msg := queuedTrailers(groupMessage(ws), ws)
	blobs := map[string]plumbing.Hash{}
	ss := make([]*staged, len(ws))
	for i, w := range ws {
		for p, h := range w.blobs {
			blobs[p] = h
		}
		ss[i] = w.s
	}
	h, err := v.commitStaged(ctx, msg, ss, v.treePlan(ctx, msg, blobs))
	queuedCommitted(ws)
	commitOf := func(w *groupWrite) Commit {
		c := Commit{Hash: h.String(), Message: msg}
		if len(w.redacted) > 0 {
			c.Redacted = w.redacted
		}
		return c
	}
	if remote {
		if err == nil {
			for _, w := range ws {
				if taken(w) {
					c := commitOf(w)
					c.Paths = w.s.paths()
					finish(w.p, c, nil)
				}
			}
			for _, p := range group {
				if p.answered != nil {
					p.answered()
				}
			}
		}
		// After the answer; or, the commit undone, the files put back.
		follow()
	}
	<-followed
	if err != nil && h.IsZero() {
		if obs != nil && !remote {
			// The files were put back: the catalog follows them.
			obs.Changed(context.WithoutCancel(ctx), paths)
		}
		for _, w := range ws {
			finish(w.p, Commit{}, err)
		}
		return later
	}
	for _, w := range ws {
		if remote && err == nil && taken(w) {
			continue // answered
		}
		c := commitOf(w)
		if err != nil {
			finish(w.p, c, err)
			continue
		}
		c.Paths = w.s.paths()
		finish(w.p, c, indexErr)
	}
	return later
}

// stageWrite decides p's write on the files as they are now and puts it in
// the work tree; nil when it changes nothing. A file that another program
// changes meanwhile makes it decide again.
func (v *Vault) stageWrite(p *pendingWrite, touched map[string]bool) (*groupWrite, error) {
	for attempt := 0; ; attempt++ {
		if err := p.ctx.Err(); err != nil {
			return nil, err
		}
		msg, changes, err := p.run()
		if err != nil || len(changes) == 0 {
			return nil, err
		}
		if err := checkChanges(changes); err != nil {
			return nil, err
		}
		for _, c := range changes {
			if touched[c.path] {
				return nil, errLater
			}
		}
		msg, redacted := redactChanges(msg, changes)
		blobs, err := v.storeBlobs(changes)
		if err != nil {
			return nil, err
		}
		s, err := v.stage(changes, blobs)
		if errors.Is(err, errStale) && attempt < staleRetries {
			// Someone edited a file between our read and our write: read
			// it again and make the change anew on what is there now.
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, c := range changes {
			touched[c.path] = true
		}
		return &groupWrite{p: p, msg: msg, redacted: redacted, blobs: blobs, s: s}, nil
	}
}

// groupContext is the context of a group's lock wait and commit: it keeps
// the first write's values and ends when every write's context has ended,
// since until then someone waits for the commit.
func groupContext(group []*pendingWrite) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(group[0].ctx))
	left := int64(len(group))
	stops := make([]func() bool, len(group))
	for i, p := range group {
		stops[i] = context.AfterFunc(p.ctx, func() {
			if atomic.AddInt64(&left, -1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, s := range stops {
			s()
		}
		cancel()
	}
}

// groupMessage is the commit message of a group: a write alone keeps its
// own; several get a subject that counts them and one line each, the
// subject of its own message.
func groupMessage(ws []*groupWrite) string {
	if len(ws) == 1 {
		return ws[0].msg
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%d writes\n", groupPrefix, len(ws))
	for _, w := range ws {
		subject, _, _ := strings.Cut(w.msg, "\n")
		b.WriteString("\n" + subject)
	}
	return b.String()
}

// groupPrefix starts the subject of a group commit's message.
const groupPrefix = "ctx0: "

// groupSubject is the line of a group commit's message that names the
// entry at path p, for its history; "" when msg is not a group's or names
// it nowhere.
func groupSubject(msg, p string) string {
	subject, body, ok := strings.Cut(msg, "\n\n")
	if !ok || !strings.HasPrefix(subject, groupPrefix) || !strings.HasSuffix(subject, " writes") {
		return ""
	}
	name := strings.TrimSuffix(p, ".md")
	for _, line := range strings.Split(body, "\n") {
		if slices.Contains(strings.Fields(line), name) {
			return line
		}
	}
	return ""
}
