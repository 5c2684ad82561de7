package vault

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ctx0/ctx0/internal/proc"
)

// The queue beside the vault lock: group commit across processes. A
// process whose write finds the lock held by another puts the write,
// already checked and redacted, in queueDir and waits for the lock. The
// holder, before it decides its group, takes in every queued write,
// decides each on its own as it does its own writes, commits them in its
// group, and answers each with a result file before it lets go of the
// lock. A waiter that then gets the lock reads its answer and is done.
//
// A request is one file whose name says what state it is in, each state
// entered by a rename, so a crash leaves it in one of them:
//
//	<id>.req      queued; a holder claims it by renaming it to
//	<id>.claimed  which exactly one rename can do; then
//	<id>.res      the answer: the entry's name and commit, or the error.
//
// A holder answers or gives back (renames to .req again) every request it
// claimed before it lets go of the lock, so a waiter that holds the lock
// and finds its request claimed but unanswered knows the claimer died.
// Its write is then either in a commit since the waiter queued it (a
// holder names each queued write it commits in a "Ctx0-Write: <id>
// <path>" line of the message, and the lock's recovery has finished or
// undone that commit by now), or in none, and the waiter makes it itself:
// never lost, never made twice.
const queueDir = ".ctx0/state/queue"

// queuedTrailer starts the line of a commit message that names a queued
// write the commit holds: its id, then its paths.
const queuedTrailer = "Ctx0-Write: "

// queueHook is called at the steps of taking in queued writes ("claimed"
// after the holder claimed them, "committed" after the commit, before the
// answers), so a test can stop a holder there as a crash would.
var queueHook = func(step string) {}

// queuedRequest is a write as it waits in the queue: one of its fields.
type queuedRequest struct {
	Remember *rememberPlan `json:"remember,omitempty"`
	Add      *addPlan      `json:"add,omitempty"`
	// Untyped is a remember whose type, and the title that follows from
	// it, its holder tells from the text (rememberPlan.tell): what a
	// writer hands to a running taker, warm, rather than tell it itself.
	// A holder that knows no such field gives it back to its waiter.
	Untyped *rememberPlan `json:"untyped_remember,omitempty"`
}

// queuedResult is a holder's answer to a queued write.
type queuedResult struct {
	Name      string `json:"name,omitempty"`
	Duplicate bool   `json:"duplicate,omitempty"`
	Commit    Commit `json:"commit,omitzero"`
	Err       string `json:"error,omitempty"`
	Bad       bool   `json:"bad,omitempty"`    // Err is the request's own mistake
	Exists    bool   `json:"exists,omitempty"` // Err is ErrExists
}

// queuedWrite is a pendingWrite's side of the queue. A nil *queuedWrite is
// a write that never goes through it.
type queuedWrite struct {
	v   *Vault
	req queuedRequest
	r   *Remembered // the write's name (and a remember's Duplicate), as its fn or its answer says
	id  string      // "" until queued
	// remote marks a write taken in from another process's queue.
	remote bool
	// base is HEAD when this process queued the write: a commit that holds
	// it is found between HEAD and base.
	base plumbing.Hash
}

// ownQueued makes one of this process's writes able to wait in the queue.
func (v *Vault) ownQueued(req queuedRequest, r *Remembered) *queuedWrite {
	return &queuedWrite{v: v, req: req, r: r}
}

func (v *Vault) queuePath(id, state string) string {
	return filepath.Join(v.root, filepath.FromSlash(queueDir), id+"."+state)
}

// newQueueID names a request: its process (pid and start time, so a
// holder can tell a request whose waiter has died) and a random part.
func newQueueID() string {
	self := proc.Self()
	var b [8]byte
	rand.Read(b[:])
	return fmt.Sprintf("%d-%d-%s", self.PID, self.Start, hex.EncodeToString(b[:]))
}

// queueWaiter is the process that queued the request id.
func queueWaiter(id string) (proc.Holder, bool) {
	parts := strings.Split(id, "-")
	if len(parts) != 3 {
		return proc.Holder{}, false
	}
	pid, err1 := strconv.Atoi(parts[0])
	start, err2 := strconv.ParseUint(parts[1], 10, 64)
	if err1 != nil || err2 != nil {
		return proc.Holder{}, false
	}
	return proc.Holder{PID: pid, Start: start}, true
}

// writeQueueFile writes data to p through a temporary file and a rename,
// so a reader finds the whole file or none. Not fsynced: like the lock's
// journal it guards against a killed process, whose writes the kernel
// keeps.
func writeQueueFile(p string, data []byte) error {
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// lockGroup takes the vault lock for group. If another process holds it,
// the writes of group that can wait in the queue are put there first; once
// the lock is taken, those a holder answered meanwhile are finished
// (through finish) and leave the group. A group with writes left takes in
// the writes other processes queued. A vault that hands its writes off
// (HandOff) asks its taker to be that holder first, and needs the lock
// only for what the taker did not answer.
func (v *Vault) lockGroup(ctx context.Context, group []*pendingWrite, finish func(*pendingWrite, Commit, error)) (unlock func(), _ []*pendingWrite, err error) {
	if v.taker != nil {
		if group = v.handOff(ctx, group, finish); len(group) == 0 {
			return func() {}, nil, nil
		}
	}
	queued := stillQueued(group)
	if len(queued) == 0 {
		unlock, ok, err := v.takeLock(ctx, false)
		if err != nil {
			return nil, group, err
		}
		if ok {
			return unlock, v.takeQueued(ctx, group), nil
		}
		queued = v.enqueue(group)
	}
	unlock, err = v.lock(ctx)
	if err != nil {
		// Every caller has stopped waiting: withdraw the requests. One a
		// holder has claimed already is being made, as a write whose
		// caller stops waiting while it is decided; its answer is read
		// (and its files removed) once the holder lets go of the lock.
		claimed := false
		for _, q := range queued {
			if os.Remove(v.queuePath(q.id, "req")) != nil {
				claimed = true
			} else {
				q.id = ""
			}
		}
		if !claimed || ctx.Err() == nil {
			return nil, group, err
		}
		if unlock, err = v.lock(context.WithoutCancel(ctx)); err != nil {
			return nil, group, err
		}
	}
	kept := settled(group, (*queuedWrite).settle, finish)
	if len(kept) == 0 || ctx.Err() != nil {
		// Nothing of this process's to write (or nobody waits for it):
		// the lock goes to the next waiter at once.
		return unlock, nil, nil
	}
	return unlock, v.takeQueued(ctx, kept), nil
}

// stillQueued is the writes of group waiting in the queue.
func stillQueued(group []*pendingWrite) []*queuedWrite {
	var queued []*queuedWrite
	for _, p := range group {
		if p.q != nil && p.q.id != "" {
			queued = append(queued, p.q)
		}
	}
	return queued
}

// settled finishes the writes of group whose queued request settle says
// the outcome of, and returns the others: those never queued, and those
// settle leaves to make here (or, for answered, still queued).
func settled(group []*pendingWrite, settle func(*queuedWrite) (*queuedResult, error), finish func(*pendingWrite, Commit, error)) []*pendingWrite {
	kept := group[:0:0]
	for _, p := range group {
		if p.q == nil || p.q.id == "" {
			kept = append(kept, p)
			continue
		}
		res, err := settle(p.q)
		if res == nil && err == nil {
			kept = append(kept, p)
			continue
		}
		if !p.state.CompareAndSwap(pendingTaken, pendingStarted) {
			continue // its caller has gone
		}
		if err != nil {
			finish(p, Commit{}, err)
			continue
		}
		c, err := p.q.take(res)
		finish(p, c, err)
	}
	return kept
}

// QueueTaker is a long-running process that writes to the vault (a
// running index watcher, its index open), which a short-lived process asks
// to make its writes rather than make them itself (HandOff): the taker
// becomes the holder of the vault lock that takes in the queue beside it,
// so the writes keep every rule of queued writes, and their waiters read
// their answers without taking the lock in turn.
type QueueTaker interface {
	// TakeQueue reaches the taker, then calls queue, which puts this
	// process's writes in the queue and reports whether there are any,
	// and if there are, asks the taker to take the queue in. It returns
	// nil once the taker has answered each write it took and let go of
	// the lock; an error when no taker runs (before queue is called), or
	// it refused, died or did not answer in time.
	TakeQueue(ctx context.Context, queue func() bool) error
	// Running reports, cheaply and without reaching it, whether a taker
	// seems to run: a write it will likely take can then leave to it
	// what it does faster (see queuedRequest.Untyped).
	Running() bool
}

// HandOff makes this process hand its writes that can wait in the queue
// (remember, add) to t, while t runs: for a process that makes a write
// and exits. With t not running, or failing, each write is made as
// before; a write t took and did not answer is found in the commits or
// made here, under the lock, as any queued write whose holder died.
func (v *Vault) HandOff(t QueueTaker) { v.taker = t }

// handOff asks v's taker to make group's writes that can wait in the
// queue, and finishes those it answered. It returns the writes left: not
// queued (no taker runs) or still queued (it failed), for lockGroup.
func (v *Vault) handOff(ctx context.Context, group []*pendingWrite, finish func(*pendingWrite, Commit, error)) []*pendingWrite {
	var queued []*queuedWrite
	err := v.taker.TakeQueue(ctx, func() bool {
		queued = v.enqueue(group)
		return len(queued) > 0
	})
	if err != nil || len(queued) == 0 {
		return group
	}
	return settled(group, (*queuedWrite).answered, finish)
}

// MakeQueued makes the writes queued beside the vault lock, as their
// holder (with this process's own writes waiting, if any): what a taker
// does when a process hands it its writes (QueueTaker). It returns once
// every write it took in is answered and the lock let go. answered, if
// not nil, is called once, as soon as every write it took in is answered:
// when their commit is durable and staged, before the index hears of it
// and the lock is let go, so that the taker tells its writers then.
func (v *Vault) MakeQueued(ctx context.Context, answered func()) error {
	queueHook("asked")
	var once sync.Once
	tell := func() {
		if answered != nil {
			once.Do(answered)
		}
	}
	// A write that changes nothing: its group takes the lock, and with it
	// the queue, as any group does.
	p := &pendingWrite{ctx: ctx, fn: func() (string, []change, error) { return "", nil, nil }, done: make(chan struct{}), answered: tell}
	_, err := v.updateWrite(p)
	tell() // nothing was taken in, or it failed before any answer
	return err
}

// enqueue puts group's writes that can wait in the queue there, and
// returns them. A write that cannot be queued waits for the lock as
// before.
func (v *Vault) enqueue(group []*pendingWrite) []*queuedWrite {
	var queued []*queuedWrite
	for _, p := range group {
		q := p.q
		if q == nil || q.remote || p.state.Load() != pendingTaken {
			continue
		}
		data, err := json.Marshal(q.req)
		if err != nil {
			continue
		}
		head, err := v.head()
		if err != nil {
			continue
		}
		id := newQueueID()
		if err := os.MkdirAll(filepath.Join(v.root, filepath.FromSlash(queueDir)), 0o755); err != nil {
			return queued
		}
		if writeQueueFile(v.queuePath(id, "req"), data) != nil {
			continue // it waits for the lock as before
		}
		q.id, q.base = id, head.hash
		queued = append(queued, q)
	}
	return queued
}

// answered reads the holder's answer to this process's queued write, if
// there is one yet; nil, nil, the write still queued, if not. It needs no
// lock: an answer is renamed into place whole, and only its waiter reads
// it.
func (q *queuedWrite) answered() (*queuedResult, error) {
	v, id := q.v, q.id
	data, err := os.ReadFile(v.queuePath(id, "res"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	q.id = ""
	if err != nil {
		return nil, fmt.Errorf("read the answer to queued write %s: %w", id, err)
	}
	os.Remove(v.queuePath(id, "res"))
	os.Remove(v.queuePath(id, "claimed")) // if its holder died before removing it
	var res queuedResult
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("read the answer to queued write %s: %w", id, err)
	}
	return &res, nil
}

// settle tells, under the vault lock, what became of this process's
// queued write: the holder's answer; nil to make the write here, when no
// holder took it, or one took it and died before any commit held it.
func (q *queuedWrite) settle() (*queuedResult, error) {
	if res, err := q.answered(); res != nil || err != nil {
		return res, err
	}
	v, id := q.v, q.id
	q.id = ""
	if os.Remove(v.queuePath(id, "req")) == nil {
		return nil, nil // nobody took it
	}
	// Claimed, and its claimer let go of the lock without answering: it
	// died. Recovery has finished or undone its commit by now.
	c, found, err := v.findQueued(id, q.base)
	if err != nil {
		return nil, fmt.Errorf("look for queued write %s in the commits since it was queued: %w", id, err)
	}
	os.Remove(v.queuePath(id, "claimed"))
	if !found {
		return nil, nil
	}
	res := &queuedResult{Commit: c}
	if len(c.Paths) > 0 {
		res.Name = strings.TrimSuffix(c.Paths[0], ".md")
	}
	switch {
	case q.req.Remember != nil && len(q.req.Remember.Redacted) > 0:
		res.Commit.Redacted = q.req.Remember.Redacted
	case q.req.Untyped != nil && len(q.req.Untyped.Redacted) > 0:
		res.Commit.Redacted = q.req.Untyped.Redacted
	case q.req.Add != nil && len(q.req.Add.Redacted) > 0:
		res.Commit.Redacted = q.req.Add.Redacted
	}
	return res, nil
}

// findQueued looks for the commit that holds the queued write id, from
// HEAD back along first parents to base, the HEAD it was queued on.
func (v *Vault) findQueued(id string, base plumbing.Hash) (Commit, bool, error) {
	head, err := v.head()
	if err != nil {
		return Commit{}, false, err
	}
	// A bound for a HEAD that does not descend from base (a person reset
	// the branch meanwhile): only writers holding the lock commit here,
	// and they are few commits.
	const most = 10000
	h := head.hash
	for range most {
		if h.IsZero() || h == base {
			break
		}
		c, err := v.repo.CommitObject(h)
		if err != nil {
			return Commit{}, false, fmt.Errorf("read commit %s: %w", h, err)
		}
		for _, line := range strings.Split(c.Message, "\n") {
			if got, paths, ok := parseQueuedLine(line); ok && got == id {
				return Commit{Hash: h.String(), Message: c.Message, Paths: paths}, true, nil
			}
		}
		if len(c.ParentHashes) == 0 {
			break
		}
		h = c.ParentHashes[0]
	}
	return Commit{}, false, nil
}

// parseQueuedLine reads a line queuedTrailers wrote: the id of a queued
// write and its paths.
func parseQueuedLine(line string) (id string, paths []string, ok bool) {
	rest, ok := strings.CutPrefix(line, queuedTrailer)
	if !ok {
		return "", nil, false
	}
	f := strings.Fields(rest)
	if len(f) < 2 {
		return "", nil, false
	}
	return f[0], f[1:], true
}

// take is a holder's answer as this process's result: the name goes where
// the write's own would.
func (q *queuedWrite) take(res *queuedResult) (Commit, error) {
	if q.r != nil {
		*q.r = Remembered{Name: res.Name, Duplicate: res.Duplicate}
	}
	if res.Err == "" {
		return res.Commit, nil
	}
	var err error = &queuedError{msg: res.Err}
	if res.Exists {
		err = &queuedError{msg: res.Err, is: ErrExists}
	}
	if res.Bad {
		err = badRequest(err)
	}
	return res.Commit, err
}

// queuedError is a holder's error for a queued write, as its waiter
// returns it: the message, and the sentinel it wrapped, for callers that
// test for one.
type queuedError struct {
	msg string
	is  error
}

func (e *queuedError) Error() string { return e.msg }
func (e *queuedError) Unwrap() error { return e.is }

// takeQueued claims the writes queued by other processes and adds them to
// group, after its own. A request whose waiter has died is dropped
// unmade, as a write whose caller stops waiting is; answers nobody will
// read are removed.
func (v *Vault) takeQueued(ctx context.Context, group []*pendingWrite) []*pendingWrite {
	dir := filepath.Join(v.root, filepath.FromSlash(queueDir))
	ents, err := os.ReadDir(dir)
	if err != nil {
		return group
	}
	claimed := false
	for _, e := range ents {
		id, state, ok := strings.Cut(e.Name(), ".")
		if !ok {
			continue
		}
		waiter, ok := queueWaiter(id)
		if !ok {
			continue
		}
		if state != "req" {
			// An answer, or a claim by a holder that died, for a waiter
			// that died too: nobody will read it.
			if !waiter.Alive() {
				os.Remove(filepath.Join(dir, e.Name()))
			}
			continue
		}
		if !waiter.Alive() {
			os.Remove(filepath.Join(dir, e.Name()))
			continue
		}
		if os.Rename(v.queuePath(id, "req"), v.queuePath(id, "claimed")) != nil {
			continue // withdrawn by its waiter
		}
		claimed = true
		q := &queuedWrite{v: v, id: id, remote: true, r: &Remembered{}}
		p := &pendingWrite{ctx: context.WithoutCancel(ctx), done: make(chan struct{}), q: q}
		data, err := os.ReadFile(v.queuePath(id, "claimed"))
		if err == nil {
			err = json.Unmarshal(data, &q.req)
		}
		switch {
		case err != nil:
			q.answer(Commit{}, fmt.Errorf("read queued write %s: %w", id, err))
			continue
		case q.req.Remember != nil || q.req.Untyped != nil:
			// Checked by its waiter; checked again, as anything read from
			// a file is, for what decides where it goes. (The file's
			// content is checked on the write path, as every write's is.)
			var plan rememberPlan
			if q.req.Remember != nil {
				plan = *q.req.Remember
			} else {
				plan = *q.req.Untyped
				plan.Meta.Type = ""
				plan.tell()
			}
			if err := v.checkMeta(plan.Meta); err != nil || strings.TrimSpace(plan.Text) == "" {
				q.answer(Commit{}, cmp.Or(err, badRequest(errors.New("remember: nothing to remember: the text is empty"))))
				continue
			}
			p.fn = v.rememberWrite(p.ctx, plan, nil, q.r)
		case q.req.Add != nil:
			plan := *q.req.Add
			if norm, err := NormalizeName(plan.Name); err != nil || norm != plan.Name || !strings.Contains(norm, "/") {
				q.answer(Commit{}, badRequest(fmt.Errorf("add %q: not a name as its waiter makes one", plan.Name)))
				continue
			}
			if err := v.checkMeta(plan.Meta); err != nil {
				q.answer(Commit{}, err)
				continue
			}
			p.fn = v.addWrite(p.ctx, plan, q.r)
		default:
			// A kind of write a newer ctx0 queued: its waiter makes it.
			q.putBack()
			continue
		}
		group = append(group, p)
	}
	if claimed {
		queueHook("claimed")
	}
	return group
}

// answer writes the result of a write taken in from another process's
// queue, and reports whether p was one; the claim goes once the answer is
// there.
func (q *queuedWrite) answer(c Commit, err error) bool {
	if q == nil || !q.remote {
		return false
	}
	res := queuedResult{Name: q.r.Name, Duplicate: q.r.Duplicate, Commit: c}
	if err != nil {
		res.Err, res.Bad, res.Exists = err.Error(), IsBadRequest(err), errors.Is(err, ErrExists)
	}
	data, merr := json.Marshal(res)
	if merr == nil && writeQueueFile(q.v.queuePath(q.id, "res"), data) == nil {
		os.Remove(q.v.queuePath(q.id, "claimed"))
	}
	// Unanswered, the claim stays: its waiter looks for the write in the
	// commits, as after a crash.
	return true
}

// putBack gives a write taken in from another process's queue back to the
// queue, for the next holder (or its waiter) to make, and reports whether
// p was one: a holder never keeps a claim past its hold of the lock.
func (q *queuedWrite) putBack() bool {
	if q == nil || !q.remote {
		return false
	}
	os.Rename(q.v.queuePath(q.id, "claimed"), q.v.queuePath(q.id, "req"))
	return true
}

// queuedTrailers adds to a group's message one line for each write taken
// in from another process's queue, naming its request and its paths, by
// which its waiter finds it if this process dies before answering.
func queuedTrailers(msg string, ws []*groupWrite) string {
	var b strings.Builder
	for _, w := range ws {
		if q := w.p.q; q != nil && q.remote {
			b.WriteString("\n" + queuedTrailer + q.id + " " + strings.Join(w.s.paths(), " "))
		}
	}
	if b.Len() == 0 {
		return msg
	}
	return msg + "\n" + b.String()
}

// queuedCommitted calls queueHook once a commit holding writes of other
// processes is made.
func queuedCommitted(ws []*groupWrite) {
	for _, w := range ws {
		if w.p.q != nil && w.p.q.remote {
			queueHook("committed")
			return
		}
	}
}
