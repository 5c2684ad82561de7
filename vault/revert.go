package vault

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ErrNothingToRevert is returned by Revert when the branch already holds
// none of what the change did: it was undone before, or never merged.
var ErrNothingToRevert = errors.New("nothing to undo")

// RevertOptions says which change Revert undoes.
type RevertOptions struct {
	// Commit is the change to undo: a revision, as TreeAt takes it.
	Commit string
	// Parent is what Commit changed from; "" means its first parent. A run
	// is undone from its base to its result, whether it was merged by a
	// fast-forward or by a merge commit.
	Parent string
	// Paths, if any, limits the undo to these files (slash-separated,
	// relative to the vault): one entry of a run, say.
	Paths []string
	// Label names the change in the commit message ("run ID"); the short
	// hash of Commit when empty.
	Label string
}

// Reverted says what Revert did.
type Reverted struct {
	Commit
	// Conflicts counts the true conflicts kept aside (see Conflicts): a
	// field changed again since the change, where the undo and the newer
	// value disagree.
	Conflicts int `json:"conflicts"`
}

// Revert undoes a change with a new commit on the current branch, as git
// revert does and never by rewriting history: what the change did (Parent
// to Commit) is merged backwards into the branch, entries field by field.
// A field edited since keeps its newer value, and a true conflict is kept
// aside for ctx0 conflicts, as in any merge. Edits other tools left
// uncommitted are committed first, so they are merged as a side rather
// than overwritten. The changed paths go through the write path (work tree
// and .git/index), and the catalog hears of them.
func (v *Vault) Revert(ctx context.Context, o RevertOptions) (Reverted, error) {
	c, err := v.commitAt(ctx, o.Commit)
	if err != nil {
		return Reverted{}, fmt.Errorf("undo %s: %w", o.Commit, err)
	}
	label := o.Label
	if label == "" {
		label = "commit " + c.Hash.String()[:10]
	}
	var p *object.Commit
	switch {
	case o.Parent != "":
		if p, err = v.commitAt(ctx, o.Parent); err != nil {
			return Reverted{}, fmt.Errorf("undo %s: %w", label, err)
		}
	case c.NumParents() == 0:
		return Reverted{}, fmt.Errorf("undo %s: it is the first commit of the vault", label)
	default:
		if p, err = c.Parent(0); err != nil {
			return Reverted{}, fmt.Errorf("undo %s: read its parent: %w", label, err)
		}
	}
	for _, f := range o.Paths {
		if err := CheckPath(v.root, f); err != nil {
			return Reverted{}, fmt.Errorf("undo %s: %w", label, err)
		}
	}
	unlock, err := v.lock(ctx)
	if err != nil {
		return Reverted{}, err
	}
	defer unlock()
	if _, _, err := v.commitExternalLocked(ctx); err != nil {
		return Reverted{}, fmt.Errorf("undo %s: %w", label, err)
	}
	head, err := v.head()
	if err != nil {
		return Reverted{}, err
	}
	if !head.ref.IsBranch() || head.hash.IsZero() {
		return Reverted{}, fmt.Errorf("undo %s: HEAD is not on a branch with commits; check one out first", label)
	}
	oc, err := object.GetCommit(v.repo.Storer, head.hash)
	if err != nil {
		return Reverted{}, fmt.Errorf("read HEAD: %w", err)
	}
	theirsTree := p.TreeHash
	if len(o.Paths) > 0 {
		// Only the named files go back: the change's own tree with those
		// files as they were before it.
		if theirsTree, err = v.pathsFrom(ctx, c, p, o.Paths); err != nil {
			return Reverted{}, fmt.Errorf("undo %s: %w", label, err)
		}
	}
	trees := make([]*object.Tree, 3)
	for i, h := range []plumbing.Hash{c.TreeHash, oc.TreeHash, theirsTree} {
		if trees[i], err = object.GetTree(v.repo.Storer, h); err != nil {
			return Reverted{}, fmt.Errorf("undo %s: read tree %s: %w", label, h, err)
		}
	}
	oursLabel := head.ref.Short() + " " + head.hash.String()[:10]
	tm, err := v.mergeTrees(ctx, trees[0], trees[1], trees[2], [2]string{oursLabel, "undo of " + label})
	if err != nil {
		return Reverted{}, fmt.Errorf("undo %s: %w", label, err)
	}
	if len(tm.edits) == 0 && len(tm.conflicts) == 0 {
		return Reverted{}, fmt.Errorf("undo %s: %w: the branch holds none of its changes", label, ErrNothingToRevert)
	}
	msg := fmt.Sprintf("revert %s\n\nThis undoes %s (%s..%s).", label, label, p.Hash.String()[:10], c.Hash.String()[:10])
	if len(o.Paths) > 0 {
		msg += "\nOnly: " + fmt.Sprint(o.Paths)
	}
	commit, conflicts, err := v.commitTreeMerge(ctx, head, oc.TreeHash, tm, c.Hash, msg, func(h plumbing.Hash) []plumbing.Hash {
		return []plumbing.Hash{h}
	})
	if err != nil {
		return Reverted{}, fmt.Errorf("undo %s: %w", label, err)
	}
	if o, ok := v.catalog.(Observer); ok {
		if err := o.Changed(ctx, commit.Paths); err != nil {
			return Reverted{commit, conflicts}, err
		}
	}
	return Reverted{commit, conflicts}, nil
}

// pathsFrom is the tree of c with paths as they are in p (absent where p
// lacks them).
func (v *Vault) pathsFrom(ctx context.Context, c, p *object.Commit, paths []string) (plumbing.Hash, error) {
	edits := make(map[string]plumbing.Hash, len(paths))
	for _, f := range slices.Compact(slices.Sorted(slices.Values(paths))) {
		h, err := blobAt(p, f)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		edits[f] = h
	}
	return v.writeTree(ctx, c.TreeHash, edits)
}

// commitTreeMerge commits what tm merged onto head (whose tree is ourTree):
// its edits and a record of each true conflict (theirs names the commit the
// other side came from), with the parents parents(head) gives. It fails if
// the branch moved since head was read.
func (v *Vault) commitTreeMerge(ctx context.Context, head headState, ourTree plumbing.Hash, tm *treeMerge, theirs plumbing.Hash, msg string, parents func(plumbing.Hash) []plumbing.Hash) (Commit, int, error) {
	records, err := conflictFiles(tm.conflicts, head.hash.String(), theirs.String(), v.now())
	if err != nil {
		return Commit{}, 0, err
	}
	changes := make([]change, 0, len(tm.edits)+len(records))
	for p, h := range tm.edits {
		if h.IsZero() {
			changes = append(changes, change{path: p})
		} else {
			changes = append(changes, change{path: p, data: tm.data[p]})
		}
	}
	for _, r := range records {
		h, err := v.storeBlob(r.data)
		if err != nil {
			return Commit{}, 0, err
		}
		tm.edits[r.path] = h
		changes = append(changes, r)
	}
	if len(records) > 0 {
		msg += fmt.Sprintf("\n\n%d conflict(s) kept aside; see ctx0 conflicts.", len(records))
	}
	c, err := v.commitFiles(ctx, msg, changes, tm.edits, func(h headState) (plumbing.Hash, error) {
		if h.hash != head.hash {
			return plumbing.ZeroHash, errors.New("the branch moved meanwhile; run it again")
		}
		tree, err := v.writeTree(ctx, ourTree, tm.edits)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		return v.newCommit(tree, parents(head.hash), msg)
	})
	return c, len(records), err
}
