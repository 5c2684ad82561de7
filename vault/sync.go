package vault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"
	"github.com/go-git/go-git/v5/utils/merkletrie"
)

// ErrUnrelated is returned when a remote's branch shares no commit with the
// vault's.
var ErrUnrelated = errors.New("unrelated histories")

// ErrRewritten is returned, with SyncOptions.RefuseRewrite, when a remote's
// branch no longer contains what it held at the last fetch: someone
// force-pushed or rewrote it.
var ErrRewritten = errors.New("the remote branch was rewritten")

// Remote is a configured git remote.
type Remote struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Remotes lists the vault's remotes.
func (v *Vault) Remotes() ([]Remote, error) {
	cfg, err := v.repo.Config()
	if err != nil {
		return nil, fmt.Errorf("read git config: %w", err)
	}
	out := []Remote{}
	for name, r := range cfg.Remotes {
		url := ""
		if len(r.URLs) > 0 {
			url = r.URLs[0]
		}
		out = append(out, Remote{Name: name, URL: url})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// AddRemote adds a remote: a local path, file://, git://, ssh:// (or
// user@host:path) or https:// URL.
func (v *Vault) AddRemote(name, url string) error {
	if _, err := transport.NewEndpoint(url); err != nil || strings.TrimSpace(url) == "" {
		return fmt.Errorf("remote %s: %q is not a git URL or path", name, url)
	}
	if _, err := v.repo.CreateRemote(&config.RemoteConfig{Name: name, URLs: []string{url}}); err != nil {
		return fmt.Errorf("add remote %s: %w", name, err)
	}
	return nil
}

// RemoveRemote removes a remote and its remote-tracking branches.
func (v *Vault) RemoveRemote(name string) error {
	if err := v.repo.DeleteRemote(name); err != nil {
		return fmt.Errorf("remove remote %s: %w", name, err)
	}
	return nil
}

// SyncOptions says what a sync does.
type SyncOptions struct {
	Remote   string // default origin, or the only remote
	PullOnly bool
	PushOnly bool
	// RefuseRewrite refuses to merge a remote branch that no longer
	// contains the commit it held at the last fetch (a force-push or a
	// rewritten history): merging it back would bring back what someone
	// deliberately removed, so the unattended syncs (--watch, automatic
	// sync) leave that to a person.
	RefuseRewrite bool
	// FetchTimeout, when set, bounds the fetch (not the merge, which is
	// local): a session's start must not wait on a slow network.
	FetchTimeout time.Duration
}

// SyncResult says what a sync did.
type SyncResult struct {
	Remote    string  `json:"remote"`
	Branch    string  `json:"branch"`
	External  *Commit `json:"external_edits,omitempty"` // the commit of edits made with other tools
	Merge     string  `json:"merge"`                    // up-to-date, fast-forward, merged, skipped
	Commit    string  `json:"commit,omitempty"`         // the branch after the merge
	Changed   int     `json:"changed"`                  // files the merge changed here
	Conflicts int     `json:"conflicts"`                // true conflicts kept aside (see ctx0 conflicts)
	Pushed    bool    `json:"pushed"`
	// Sent says the push sent something: false when the remote already
	// had the branch as it is here.
	Sent bool `json:"sent"`
	// Created says the remote had no such branch: this sync's push made it.
	Created  bool `json:"created,omitempty"`
	Attempts int  `json:"attempts"`
	// SetAside lists the remote's changes the merge could not take
	// (see SetAsides); everything else was merged.
	SetAside []SetAside `json:"set_aside,omitempty"`
	// Nested lists the folders left out of the external edits because
	// each is a git repository of its own, which ctx0 never commits.
	Nested []string `json:"nested_repositories,omitempty"`
	// Withheld are files edited with other tools that hold a secret: not
	// committed, so never pushed.
	Withheld []Withheld `json:"withheld,omitempty"`
}

// maxSyncAttempts bounds the fetch-merge-push cycle when another pusher
// keeps winning the race.
const maxSyncAttempts = 5

// Sync brings the vault and a remote together: it commits edits made with
// other tools, fetches, merges the remote branch field by field, and pushes.
// When the push loses a race with another pusher, the cycle runs again. An
// unreachable remote, unrelated histories or a refused push leave the
// vault's branch and files as they were.
func (v *Vault) Sync(ctx context.Context, o SyncOptions) (SyncResult, error) {
	res, err := v.sync(ctx, o)
	rec := SyncRecord{Time: v.now(), Result: res}
	if err != nil {
		rec.Error = err.Error()
	}
	// The record is for status: failing to keep it fails no sync. A
	// removed vault gets none (its folder is not made again).
	if data, jerr := json.Marshal(rec); jerr == nil && v.gone() == nil {
		p := filepath.Join(v.root, filepath.FromSlash(lastSyncFile))
		if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
			_ = writeFileAtomic(p, data)
		}
	}
	return res, err
}

// lastSyncFile keeps what the last sync did, for ctx0 status.
const lastSyncFile = ".ctx0/state/last-sync.json"

// SyncRecord is what a sync did and when.
type SyncRecord struct {
	Time   time.Time  `json:"time"`
	Result SyncResult `json:"result"`
	Error  string     `json:"error,omitempty"`
}

// LastSync is what the vault at root's last sync did; nil when it has
// never synced.
func LastSync(root string) (*SyncRecord, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(lastSyncFile)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the last sync: %w", err)
	}
	var rec SyncRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("read the last sync %s: %w", lastSyncFile, err)
	}
	return &rec, nil
}

func (v *Vault) sync(ctx context.Context, o SyncOptions) (SyncResult, error) {
	res := SyncResult{Merge: "skipped"}
	remote, err := v.pickRemote(o.Remote)
	if err != nil {
		return res, err
	}
	res.Remote = remote.Name
	head, err := v.head()
	if err != nil {
		return res, err
	}
	if !head.ref.IsBranch() {
		return res, fmt.Errorf("sync %s: HEAD is detached; check out a branch first", remote.Name)
	}
	res.Branch = head.ref.Short()
	auth, err := authFor(remote.URL)
	if err != nil {
		return res, err
	}
	tracking := plumbing.NewRemoteReferenceName(remote.Name, res.Branch)
	var raced error // the last push refused as a race, said when giving up
	for res.Attempts = 1; res.Attempts <= maxSyncAttempts; res.Attempts++ {
		// Another process's sync may have fetched since this one last
		// read the repository (see reloadPacks).
		v.reloadPacks()
		if !o.PushOnly {
			fctx, cancel := ctx, context.CancelFunc(func() {})
			if o.FetchTimeout > 0 {
				fctx, cancel = context.WithTimeout(ctx, o.FetchTimeout)
			}
			err := v.fetchChecked(fctx, remote, res.Branch, tracking, auth, o.RefuseRewrite)
			cancel()
			if err != nil && ctx.Err() == nil && errors.Is(fctx.Err(), context.DeadlineExceeded) {
				return res, fmt.Errorf("sync %s: fetch %s: no answer within %v", remote.Name, remote.URL, o.FetchTimeout)
			}
			if err != nil {
				return res, err
			}
		}
		before, err := v.syncLocal(ctx, &res, o, tracking)
		if err != nil {
			return res, err
		}
		if o.PullOnly {
			return res, nil
		}
		res.Sent, err = v.push(ctx, remote, head.ref, auth)
		if err == nil {
			res.Pushed = true
			return res, nil
		}
		if !isPushRace(err) || o.PushOnly {
			// Leave the branch and files as they were before the merge.
			if rerr := v.resetAfterFailedPush(ctx, before, res.Commit); rerr != nil {
				return res, fmt.Errorf("%w (and restoring the vault: %v)", err, rerr)
			}
			if o.PushOnly && isPushRace(err) {
				return res, fmt.Errorf("%w; the remote has changes this vault lacks: run ctx0 sync without --push-only", err)
			}
			return res, err
		}
		raced = err
	}
	// The last refusal says why: a remote that moves on each time, or a
	// ref lock no push can take (a git process on the remote killed while
	// it held it), which a person must remove there.
	return res, fmt.Errorf("sync %s: the remote kept changing; gave up after %d attempts: %w", remote.Name, maxSyncAttempts, raced)
}

// syncLocal commits external edits and merges the fetched branch, under the
// vault lock. It returns the branch's commit before the merge.
func (v *Vault) syncLocal(ctx context.Context, res *SyncResult, o SyncOptions, tracking plumbing.ReferenceName) (plumbing.Hash, error) {
	unlock, err := v.lock(ctx)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer unlock()
	v.held.syncing = true
	ext, left, err := v.commitExternalLocked(ctx)
	res.Nested, res.Withheld = left.nested, left.withheld
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if ext != nil {
		res.External = ext
	}
	head, err := v.head()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	res.Commit = head.hash.String()
	if o.PushOnly {
		return head.hash, nil
	}
	ref, err := v.repo.Storer.Reference(tracking)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		res.Merge = "up-to-date" // the remote has no such branch yet; the push creates it
		res.Created = true
		return head.hash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read %s: %w", tracking, err)
	}
	mr, err := v.mergeLocked(ctx, "sync", ref.Hash(), tracking.Short())
	if err != nil {
		return plumbing.ZeroHash, err
	}
	res.Merge, res.Changed, res.Conflicts = mr.kind, mr.changed, mr.conflicts
	res.SetAside = append(res.SetAside, mr.setAside...)
	if !mr.commit.IsZero() {
		res.Commit = mr.commit.String()
	}
	return head.hash, nil
}

func (v *Vault) pickRemote(name string) (Remote, error) {
	rs, err := v.Remotes()
	if err != nil {
		return Remote{}, err
	}
	if name == "" {
		switch {
		case len(rs) == 0:
			return Remote{}, errors.New("sync: no remote; add one with `ctx0 remote add origin URL`")
		case len(rs) == 1:
			return rs[0], nil
		}
		name = "origin"
	}
	for _, r := range rs {
		if r.Name == name {
			return r, nil
		}
	}
	return Remote{}, fmt.Errorf("sync: no remote named %q (see ctx0 remote list)", name)
}

// fetch fetches branch into tracking; h is the fetch lock's journal.
func (v *Vault) fetch(ctx context.Context, h *held, r Remote, branch string, tracking plumbing.ReferenceName, auth transport.AuthMethod) error {
	spec := config.RefSpec(fmt.Sprintf("+refs/heads/%s:%s", branch, tracking))
	remote, err := v.remote(ctx, h, r.Name)
	if err != nil {
		return fmt.Errorf("sync %s: %w", r.Name, err)
	}
	err = remote.FetchContext(ctx, &git.FetchOptions{RemoteName: r.Name, RefSpecs: []config.RefSpec{spec}, Auth: auth})
	switch {
	case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate), errors.Is(err, transport.ErrEmptyRemoteRepository):
		return nil
	case errors.Is(err, git.NoMatchingRefSpecError{}):
		return nil // the remote lacks this branch; the push creates it
	}
	return fmt.Errorf("sync %s: fetch %s: %w", r.Name, r.URL, err)
}

// fetchChecked fetches, and with refuseRewrite refuses a remote branch that
// does not contain what it held before: the remote-tracking branch is put
// back, so every later sync refuses it too until a person decides.
func (v *Vault) fetchChecked(ctx context.Context, r Remote, branch string, tracking plumbing.ReferenceName, auth transport.AuthMethod, refuseRewrite bool) error {
	unlock, h, _, err := v.lockFetch(ctx)
	if err != nil {
		return fmt.Errorf("sync %s: %w", r.Name, err)
	}
	defer unlock()
	old, err := v.repo.Storer.Reference(tracking)
	if !refuseRewrite || err != nil {
		return v.fetch(ctx, h, r, branch, tracking, auth)
	}
	if err := v.fetch(ctx, h, r, branch, tracking, auth); err != nil {
		return err
	}
	now, err := v.repo.Storer.Reference(tracking)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		now = nil // the branch is gone from the remote
	} else if err != nil {
		return fmt.Errorf("read %s: %w", tracking, err)
	}
	if now != nil && now.Hash() == old.Hash() {
		return nil
	}
	kept := false
	if now != nil {
		// A commit that cannot be read is a damaged repository, not a
		// rewritten remote: say so, and leave the refusal to rewrites.
		oc, err := object.GetCommit(v.repo.Storer, old.Hash())
		if err != nil {
			return fmt.Errorf("sync %s: read %s's last fetch %s: %w (ctx0 doctor checks the repository)", r.Name, tracking.Short(), old.Hash().String()[:10], err)
		}
		nc, err := object.GetCommit(v.repo.Storer, now.Hash())
		if err != nil {
			return fmt.Errorf("sync %s: read the fetched %s %s: %w (ctx0 doctor checks the repository)", r.Name, tracking.Short(), now.Hash().String()[:10], err)
		}
		if kept, err = oc.IsAncestor(nc); err != nil {
			return fmt.Errorf("sync %s: compare %s with its last fetch: %w", r.Name, tracking.Short(), err)
		}
	}
	if kept {
		return nil
	}
	rs, err := v.refStore(ctx, h)
	if err == nil {
		err = rs.SetReference(old)
	}
	if err != nil {
		return fmt.Errorf("restore %s: %w", tracking, err)
	}
	newHash := "deleted"
	if now != nil {
		newHash = "now " + now.Hash().String()[:10]
	}
	return fmt.Errorf("sync %s: %w: %s no longer contains %s (%s); nothing merged, local work kept; after checking, run ctx0 sync by hand",
		r.Name, ErrRewritten, tracking.Short(), old.Hash().String()[:10], newHash)
}

func (v *Vault) push(ctx context.Context, r Remote, branch plumbing.ReferenceName, auth transport.AuthMethod) (sent bool, err error) {
	spec := config.RefSpec(fmt.Sprintf("%s:%s", branch, branch))
	// A push moves the remote-tracking branch as a fetch does: under the
	// fetch lock, so that a killed push's ref lock is cleared as a killed
	// fetch's is.
	unlock, h, _, err := v.lockFetch(ctx)
	if err != nil {
		return false, fmt.Errorf("sync %s: %w", r.Name, err)
	}
	defer unlock()
	remote, err := v.remote(ctx, h, r.Name)
	if err != nil {
		return false, fmt.Errorf("sync %s: %w", r.Name, err)
	}
	err = remote.PushContext(ctx, &git.PushOptions{RemoteName: r.Name, RefSpecs: []config.RefSpec{spec}, Auth: auth})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, git.NoErrAlreadyUpToDate):
		return false, nil
	}
	return false, fmt.Errorf("sync %s: push to %s: %w", r.Name, r.URL, err)
}

// isPushRace tells a push refused because the remote moved on (fetch, merge
// and try again) from one refused for good. It reads the message because
// go-git has no type for either: its own fast-forward check and the
// remote's report of a refused ref both come as plain errors.
func isPushRace(err error) bool {
	s := err.Error()
	for _, race := range []string{"non-fast-forward", "fetch first", "stale info", "failed to update ref", "cannot lock ref"} {
		if strings.Contains(s, race) {
			return true
		}
	}
	return false
}

// resetAfterFailedPush moves the branch back from the merge to before, with
// the files, when a push is refused for good.
func (v *Vault) resetAfterFailedPush(ctx context.Context, before plumbing.Hash, merged string) error {
	if merged == "" || merged == before.String() {
		return nil
	}
	unlock, err := v.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	v.held.syncing = true
	_, err = v.moveLocked(ctx, "sync: push refused; back to "+before.String()[:10], plumbing.NewHash(merged), before)
	return err
}

// mergeResult says what mergeLocked did.
type mergeResult struct {
	kind      string // up-to-date, fast-forward, merged
	commit    plumbing.Hash
	changed   int
	conflicts int
	setAside  []SetAside
}

// mergeLocked merges commit theirs into the current branch: nothing when
// it is already contained, a fast-forward when the branch is behind, else a
// merge commit with two parents whose tree merges entries field by field.
// The work tree and .git/index follow. The commit messages start with
// verb ("sync", "run"). Call it under the vault lock with the work tree
// committed.
func (v *Vault) mergeLocked(ctx context.Context, verb string, theirs plumbing.Hash, label string) (mergeResult, error) {
	head, err := v.head()
	if err != nil {
		return mergeResult{}, err
	}
	if head.hash == theirs {
		return mergeResult{kind: "up-to-date"}, nil
	}
	tc, err := object.GetCommit(v.repo.Storer, theirs)
	if err != nil {
		return mergeResult{}, fmt.Errorf("read %s: %w", label, err)
	}
	if head.hash.IsZero() {
		n, err := v.moveLocked(ctx, verb+": fast-forward to "+label, plumbing.ZeroHash, theirs)
		return mergeResult{kind: "fast-forward", commit: theirs, changed: n}, err
	}
	oc, err := object.GetCommit(v.repo.Storer, head.hash)
	if err != nil {
		return mergeResult{}, fmt.Errorf("read HEAD: %w", err)
	}
	bases, err := oc.MergeBase(tc)
	if err != nil {
		return mergeResult{}, fmt.Errorf("find merge base with %s: %w", label, err)
	}
	if len(bases) == 0 {
		return mergeResult{}, fmt.Errorf("merge %s: %w: it shares no commit with this vault (clone it instead: ctx0 clone URL)", label, ErrUnrelated)
	}
	if bases[0].Hash == theirs {
		return mergeResult{kind: "up-to-date"}, nil
	}
	// Each side is merged as ctx0 can take it (takeableTree); what theirs
	// brings that it cannot take is set aside, and the rest merged. A
	// fast-forward would take theirs' tree whole, so one that brings
	// anything to set aside is a merge with ours as the base.
	raw := make([]*object.Tree, 3)
	for i, c := range []*object.Commit{bases[0], oc, tc} {
		if raw[i], err = c.Tree(); err != nil {
			return mergeResult{}, fmt.Errorf("read tree of %s: %w", c.Hash, err)
		}
	}
	trees := make([]*object.Tree, 3)
	left := make([]map[string]leftOut, 3)
	memo := map[string]takeable{}
	for i, t := range raw {
		if trees[i], left[i], err = v.takeableTree(ctx, t, memo); err != nil {
			return mergeResult{}, err
		}
	}
	// Only what theirs brings anew is set aside; what the base already
	// held was set aside (or kept) by the merge that took the base.
	for p, l := range left[2] {
		if b, ok := left[0][p]; ok && b.hash == l.hash {
			delete(left[2], p)
		}
	}
	if bases[0].Hash == head.hash {
		blocked, err := v.blockedHere(ctx, trees[1], trees[2])
		if err != nil {
			return mergeResult{}, err
		}
		if len(left[2]) == 0 && !blocked {
			n, err := v.moveLocked(ctx, verb+": fast-forward to "+label, head.hash, theirs)
			return mergeResult{kind: "fast-forward", commit: theirs, changed: n}, err
		}
		trees[0] = trees[1]
	}
	short := func(h plumbing.Hash) string { return h.String()[:10] }
	oursLabel := head.ref.Short() + " " + short(head.hash)
	tm, err := v.mergeTrees(ctx, trees[0], trees[1], trees[2], [2]string{oursLabel, label + " " + short(theirs)})
	if err != nil {
		return mergeResult{}, err
	}
	for p, l := range v.setAsideEdits(raw[1], tm) {
		left[2][p] = l
	}
	var asides []SetAside
	for p, l := range left[2] {
		asides = append(asides, newSetAside(p, l.err, label, theirs.String(), v.now()))
	}
	sort.Slice(asides, func(i, j int) bool { return asides[i].Path < asides[j].Path })
	msg := fmt.Sprintf("%s: merge %s into %s", verb, label, head.ref.Short())
	if len(asides) > 0 {
		msg += fmt.Sprintf("\n\n%d change(s) of %s not taken:", len(asides), label)
		for _, a := range asides {
			msg += "\n  " + a.Path + ": " + a.Reason
		}
	}
	c, conflicts, err := v.commitTreeMerge(ctx, head, oc.TreeHash, tm, theirs, msg, func(h plumbing.Hash) []plumbing.Hash {
		return []plumbing.Hash{h, theirs}
	})
	if err != nil {
		return mergeResult{}, fmt.Errorf("merge %s: %w", label, err)
	}
	if err := v.recordSetAside(asides); err != nil {
		return mergeResult{}, err
	}
	return mergeResult{kind: "merged", commit: plumbing.NewHash(c.Hash), changed: len(tm.edits), conflicts: conflicts, setAside: asides}, nil
}

// blockedHere tells whether a path that differs from ours to theirs is
// one the path guard refuses in this work tree (a folder here that is a
// link): a fast-forward would stop there, a merge sets it aside.
func (v *Vault) blockedHere(ctx context.Context, ours, theirs *object.Tree) (bool, error) {
	diff, err := object.DiffTreeWithOptions(ctx, ours, theirs, nil)
	if err != nil {
		return false, fmt.Errorf("diff trees: %w", err)
	}
	for _, d := range diff {
		if d.To.Name != "" && CheckPath(v.root, d.To.Name) != nil {
			return true, nil
		}
	}
	return false, nil
}

// moveLocked moves the branch from commit from to commit to (a
// fast-forward, or back after a refused push), and the work tree and
// .git/index with it. It returns how many files changed.
func (v *Vault) moveLocked(ctx context.Context, msg string, from, to plumbing.Hash) (int, error) {
	var fromTree *object.Tree
	if !from.IsZero() {
		c, err := object.GetCommit(v.repo.Storer, from)
		if err != nil {
			return 0, fmt.Errorf("read %s: %w", from, err)
		}
		if fromTree, err = c.Tree(); err != nil {
			return 0, fmt.Errorf("read tree of %s: %w", from, err)
		}
	}
	tc, err := object.GetCommit(v.repo.Storer, to)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", to, err)
	}
	toTree, err := tc.Tree()
	if err != nil {
		return 0, fmt.Errorf("read tree of %s: %w", to, err)
	}
	if fromTree == nil {
		fromTree = &object.Tree{}
	}
	diff, err := object.DiffTreeWithOptions(ctx, fromTree, toTree, nil)
	if err != nil {
		return 0, fmt.Errorf("diff %s..%s: %w", from, to, err)
	}
	blobs := map[string]plumbing.Hash{}
	var changes []change
	for _, d := range diff {
		action, err := d.Action()
		if err != nil {
			return 0, err
		}
		if action == merkletrie.Delete {
			changes = append(changes, change{path: d.From.Name})
			blobs[d.From.Name] = plumbing.ZeroHash
			continue
		}
		data, err := v.blob(d.To.TreeEntry.Hash)
		if err != nil {
			return 0, err
		}
		if d.From.Name != "" && d.From.Name != d.To.Name {
			changes = append(changes, change{path: d.From.Name})
		}
		changes = append(changes, change{path: d.To.Name, data: data})
		blobs[d.To.Name] = d.To.TreeEntry.Hash
	}
	_, err = v.commitFiles(ctx, msg, changes, blobs, func(h headState) (plumbing.Hash, error) {
		if h.hash != from {
			return plumbing.ZeroHash, fmt.Errorf("the branch moved meanwhile; run it again")
		}
		return to, nil
	})
	return len(changes), err
}

// Clone makes a second machine's copy of a vault: it clones url into dir
// and registers ctx0's merge driver. The remote must be a ctx0 vault.
func Clone(ctx context.Context, url, dir string, opts ...Option) (*Vault, error) {
	if _, err := os.Stat(dir); err == nil {
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			return nil, fmt.Errorf("clone %s: %s exists and is not empty", url, dir)
		}
	}
	auth, err := authFor(url)
	if err != nil {
		return nil, err
	}
	branch, err := remoteBranch(ctx, url, auth)
	if err != nil {
		return nil, err
	}
	rs, err := newRepoStore(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("clone %s: %w", url, err)
	}
	// Its refs, and the branch checkoutTakeable sets, go through lock files.
	repo, err := git.CloneContext(ctx, rs, osfs.New(dir), &git.CloneOptions{URL: url, Auth: auth, ReferenceName: branch, NoCheckout: true})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("clone %s: %w", url, err)
	}
	left, err := checkoutTakeable(ctx, repo, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("clone %s: %w", url, err)
	}
	v, err := Open(ctx, dir, opts...)
	if err != nil {
		return nil, err
	}
	if err := v.ensureGitConfig(); err != nil {
		return v, err
	}
	if len(left) == 0 {
		return v, nil
	}
	return v, v.leaveOutOfClone(ctx, left, "origin/"+branch.Short())
}

// checkoutTakeable checks out the cloned repo's HEAD into dir as ctx0 can
// take it (takeableTree): what the remote holds that ctx0 cannot take
// (machine-local state, a submodule, a link, a path git refuses) is not
// written. It returns what it left out; then the branch still holds it,
// for leaveOutOfClone to commit its removal.
func checkoutTakeable(ctx context.Context, repo *git.Repository, dir string) (map[string]leftOut, error) {
	head, err := repo.Head()
	if err != nil {
		return nil, fmt.Errorf("read HEAD: %w", err)
	}
	hc, err := repo.CommitObject(head.Hash())
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", head.Name().Short(), err)
	}
	tree, err := hc.Tree()
	if err != nil {
		return nil, fmt.Errorf("read the tree of %s: %w", head.Name().Short(), err)
	}
	if e, err := findRaw(repo.Storer, tree, ".ctx0"); err != nil || e.Mode != filemode.Dir {
		return nil, fmt.Errorf("%w: it has no .ctx0/ folder", ErrNotVault)
	}
	raw := &Vault{root: dir, gitDir: filepath.Join(dir, ".git"), repo: repo}
	clean, left, err := raw.takeableTree(ctx, tree, map[string]takeable{})
	if err != nil {
		return nil, err
	}
	target := head.Hash()
	if len(left) > 0 {
		// go-git checks out commits only: one of the tree to write,
		// left dangling once the branch is back on the remote's commit.
		sig := object.Signature{Name: "ctx0", Email: "ctx0@localhost", When: time.Now()}
		c := &object.Commit{Author: sig, Committer: sig, Message: "ctx0 clone: the files ctx0 can take\n", TreeHash: clean.Hash, ParentHashes: []plumbing.Hash{head.Hash()}}
		obj := repo.Storer.NewEncodedObject()
		if err := c.Encode(obj); err != nil {
			return nil, fmt.Errorf("encode commit: %w", err)
		}
		if target, err = raw.storeObject(obj); err != nil {
			return nil, err
		}
	}
	w, err := repo.Worktree()
	if err != nil {
		return nil, err
	}
	if err := w.Reset(&git.ResetOptions{Commit: target, Mode: git.HardReset}); err != nil {
		return nil, fmt.Errorf("check out %s: %w", head.Name().Short(), err)
	}
	if target != head.Hash() {
		if err := repo.Storer.SetReference(plumbing.NewHashReference(head.Name(), head.Hash())); err != nil {
			return nil, fmt.Errorf("check out %s: %w", head.Name().Short(), err)
		}
	}
	return left, nil
}

// leaveOutOfClone commits, on a new clone, the removal of what
// checkoutTakeable did not write, and records each as set aside from
// label.
func (v *Vault) leaveOutOfClone(ctx context.Context, left map[string]leftOut, label string) error {
	unlock, err := v.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	head, err := v.head()
	if err != nil {
		return err
	}
	hc, err := object.GetCommit(v.repo.Storer, head.hash)
	if err != nil {
		return fmt.Errorf("read HEAD: %w", err)
	}
	tree, err := hc.Tree()
	if err != nil {
		return fmt.Errorf("read HEAD's tree: %w", err)
	}
	changes, paths, err := v.untrackChanges(ctx, tree, left)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("clone: %d path(s) of %s not taken:", len(paths), label)
	var asides []SetAside
	for _, p := range paths {
		a := newSetAside(p, left[p].err, label, head.hash.String(), v.now())
		asides = append(asides, a)
		msg += "\n  " + p + ": " + a.Reason
	}
	if _, err := v.applyLocked(ctx, msg, changes); err != nil {
		return err
	}
	return v.recordSetAside(asides)
}

// remoteBranch picks the branch to clone: the one the remote's HEAD names
// if it exists (a bare repository's HEAD may name a branch never pushed),
// else main, else master, else the first.
func remoteBranch(ctx context.Context, url string, auth transport.AuthMethod) (plumbing.ReferenceName, error) {
	r := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{url}})
	refs, err := r.ListContext(ctx, &git.ListOptions{Auth: auth})
	if err != nil {
		return "", fmt.Errorf("clone %s: %w", url, err)
	}
	branches := map[plumbing.ReferenceName]bool{}
	var head plumbing.ReferenceName
	var first plumbing.ReferenceName
	for _, ref := range refs {
		switch {
		case ref.Name() == plumbing.HEAD && ref.Type() == plumbing.SymbolicReference:
			head = ref.Target()
		case ref.Name().IsBranch():
			branches[ref.Name()] = true
			if first == "" || ref.Name() < first {
				first = ref.Name()
			}
		}
	}
	for _, b := range []plumbing.ReferenceName{head, plumbing.NewBranchReferenceName("main"), plumbing.NewBranchReferenceName("master"), first} {
		if branches[b] {
			return b, nil
		}
	}
	return "", fmt.Errorf("clone %s: the remote has no branches", url)
}
