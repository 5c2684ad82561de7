package vault

import (
	"context"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/utils/merkletrie"

	"github.com/ctx0/ctx0/vault/entry"
	"github.com/ctx0/ctx0/vault/merge"
)

// treeMerge is the result of merging two commits' trees.
type treeMerge struct {
	// edits turn ours' tree into the merged one: path → blob, zero hash to
	// delete.
	edits map[string]plumbing.Hash
	// data holds the content of every edited blob, for the work tree.
	data      map[string][]byte
	conflicts []PathConflict
}

// PathConflict is a merge conflict in one file.
type PathConflict struct {
	Path string
	merge.Conflict
}

// sideChange is what one side did to a base path: moved it to path (the same
// path when only edited; "" when deleted) with content hash.
type sideChange struct {
	path string
	hash plumbing.Hash
}

// mergeTrees merges theirs into ours, path by path, from their merge base.
// Entries merge field by field (vault/merge); other files take the side that
// changed, or keep both as name.conflict-theirs.ext when both did. A file
// changed on one side and deleted on the other is kept; a rename on one side
// and an edit on the other both survive; an entry both sides renamed, to
// different names, takes the first name (see settleRenames).
func (v *Vault) mergeTrees(ctx context.Context, base, ours, theirs *object.Tree, labels [2]string) (*treeMerge, error) {
	oc, oAdded, err := sideChanges(ctx, base, ours)
	if err != nil {
		return nil, err
	}
	tc, tAdded, err := sideChanges(ctx, base, theirs)
	if err != nil {
		return nil, err
	}
	deleted, err := v.settleRenames(oc, oAdded, tc, tAdded)
	if err != nil {
		return nil, err
	}
	m := &treeMerge{edits: map[string]plumbing.Hash{}, data: map[string][]byte{}}
	baseFiles, ourFiles := newTreeFiles(base), newTreeFiles(ours)
	final := map[string]plumbing.Hash{} // destination → merged blob
	// ours' version of a path it may have added (rewritten by settleRenames)
	ourHash := func(p string) plumbing.Hash {
		if h, ok := oAdded[p]; ok {
			return h
		}
		return ourFiles.hash(p)
	}
	put := func(p string, b, o, t plumbing.Hash) error {
		if prev, ok := final[p]; ok { // two paths landed on one name: merge them as both-added
			b, o = plumbing.ZeroHash, prev
		}
		h, err := v.mergeBlobs(ctx, m, p, b, o, t, labels)
		if err != nil {
			return err
		}
		final[p] = h
		return nil
	}
	touched := map[string]bool{}
	for p := range oc {
		touched[p] = true
	}
	for p := range tc {
		touched[p] = true
	}
	for p := range touched {
		b := baseFiles.hash(p)
		o, ok := oc[p]
		if !ok {
			o = sideChange{p, b}
		}
		t, ok := tc[p]
		if !ok {
			t = sideChange{p, b}
		}
		switch {
		case o.path == "" && t.path == "":
		case o.path == "":
			// Ours deleted it. If theirs changed or moved it, the change
			// survives; otherwise the deletion stands.
			if t.path != p || t.hash != b {
				if err := put(t.path, plumbing.ZeroHash, ourHash(t.path), t.hash); err != nil {
					return nil, err
				}
			}
		case t.path == "":
			if o.path == p && o.hash == b {
				deleted = append(deleted, p)
			}
		default:
			dest := o.path
			if o.path == p {
				dest = t.path
			}
			if dest != o.path {
				deleted = append(deleted, o.path)
			}
			if err := put(dest, b, o.hash, t.hash); err != nil {
				return nil, err
			}
		}
	}
	for p, h := range tAdded {
		if err := put(p, plumbing.ZeroHash, ourHash(p), h); err != nil {
			return nil, err
		}
	}
	for p, h := range oAdded {
		if _, ok := final[p]; !ok && h != ourFiles.hash(p) {
			final[p] = h // rewritten by settleRenames
		}
	}
	for _, p := range deleted {
		if _, kept := final[p]; !kept {
			m.edits[p] = plumbing.ZeroHash
		}
	}
	for p, h := range final {
		if ourFiles.hash(p) != h {
			m.edits[p] = h
		}
	}
	for p, h := range m.edits {
		if _, ok := m.data[p]; !ok && !h.IsZero() {
			if m.data[p], err = v.blob(h); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// settleRenames gives one name to each entry that both sides renamed, to
// different names: the lexically first of the two. A merge runs on
// whichever machine syncs (after a push race, on both), so the choice must
// not depend on which side is ours; the first name is the same everywhere,
// and every clone converges on it. The side whose name loses is rewritten
// as if it had renamed the entry to the winner: its name becomes an alias
// of the entry, so it still resolves, and the links it rewrote or added to
// it lead to the winner, so they do not conflict with the other side's.
// It returns ours' paths left empty (ours' losing name), to delete.
func (v *Vault) settleRenames(oc map[string]sideChange, oAdded map[string]plumbing.Hash, tc map[string]sideChange, tAdded map[string]plumbing.Hash) ([]string, error) {
	var gone []string
	for p, o := range oc {
		t, ok := tc[p]
		if !ok || o.path == "" || t.path == "" || o.path == p || t.path == p || o.path == t.path {
			continue
		}
		on, ok1 := nameOf(o.path)
		tn, ok2 := nameOf(t.path)
		if !ok1 || !ok2 {
			continue
		}
		if on < tn {
			if err := v.renameSide(tc, tAdded, p, tn, on); err != nil {
				return nil, err
			}
			continue
		}
		if err := v.renameSide(oc, oAdded, p, on, tn); err != nil {
			return nil, err
		}
		gone = append(gone, o.path)
	}
	return gone, nil
}

// renameSide rewrites one side's changes (by base path) and additions so
// that the entry it moved from base path p to loser goes to winner
// instead, with loser among its aliases, and its links to loser lead to
// winner.
func (v *Vault) renameSide(changes map[string]sideChange, added map[string]plumbing.Hash, p, loser, winner string) error {
	relink := func(at string, h plumbing.Hash, moved bool) (plumbing.Hash, error) {
		data, err := v.blob(h)
		if err != nil {
			return h, err
		}
		e, err := entry.Parse(data)
		if err != nil {
			return h, nil // not an entry to rewrite; merged as it is
		}
		from, _ := nameOf(at)
		if moved {
			from = winner
		}
		changed, err := RelinkEntry(e, from, loser, winner)
		if err != nil {
			return h, err
		}
		if moved {
			aliased, err := keepOldName(e, loser)
			if err != nil {
				return h, err
			}
			changed = changed || aliased
		}
		if !changed {
			return h, nil
		}
		return v.storeBlob(e.Bytes())
	}
	for k, c := range changes {
		if c.path == "" {
			continue
		}
		moved := k == p
		h, err := relink(c.path, c.hash, moved)
		if err != nil {
			return err
		}
		if moved {
			c.path = entryPath(winner)
		}
		changes[k] = sideChange{path: c.path, hash: h}
	}
	for at, h := range added {
		nh, err := relink(at, h, false)
		if err != nil {
			return err
		}
		added[at] = nh
	}
	return nil
}

// mergeBlobs merges the three versions of one file and returns the merged
// blob, stored.
func (v *Vault) mergeBlobs(ctx context.Context, m *treeMerge, p string, b, o, t plumbing.Hash, labels [2]string) (plumbing.Hash, error) {
	switch {
	case o == t, b == t, t.IsZero():
		return o, nil
	case b == o, o.IsZero():
		return t, nil
	}
	bd, err := v.blob(b)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	od, err := v.blob(o)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	td, err := v.blob(t)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, isEntry := nameOf(p); !isEntry {
		// Not an entry: no way to merge its content, so keep both.
		side := conflictPath(p, "theirs")
		h, err := v.storeBlob(td)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		m.edits[side], m.data[side] = h, td
		m.conflicts = append(m.conflicts, PathConflict{Path: p, Conflict: merge.Conflict{
			Hunk: "whole file: theirs kept as " + side, Kept: merge.Ours}})
		return o, nil
	}
	out, cs, err := v.MergeEntry(p, bd, od, td, labels)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	m.conflicts = append(m.conflicts, cs...)
	h, err := v.storeBlob(out)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	m.data[p] = out
	return h, ctx.Err()
}

// MergeEntry merges three versions of the entry file at path p (base may be
// nil) with its type's strategy; labels name ours and theirs in conflict
// blocks.
func (v *Vault) MergeEntry(p string, base, ours, theirs []byte, labels [2]string) ([]byte, []PathConflict, error) {
	out, cs, err := merge.Entry(base, ours, theirs, merge.Options{Strategy: v.strategyFor(ours, theirs), OursLabel: labels[0], TheirsLabel: labels[1]})
	if err != nil {
		return nil, nil, fmt.Errorf("merge %s: %w", p, err)
	}
	pcs := make([]PathConflict, len(cs))
	for i, c := range cs {
		pcs[i] = PathConflict{Path: p, Conflict: c}
	}
	return out, pcs, nil
}

// strategyFor is the body merge strategy of an entry's type, read from
// ours (or theirs when ours does not parse).
func (v *Vault) strategyFor(versions ...[]byte) merge.Strategy {
	for _, d := range versions {
		if e, err := entry.Parse(d); err == nil {
			if t, ok := v.Config().Type(e.Type()); ok {
				return merge.Strategy(t.Merge)
			}
			return merge.FieldMerge
		}
	}
	return merge.FieldMerge
}

// conflictPath is "notes/a.conflict-theirs.txt" for "notes/a.txt".
func conflictPath(p, side string) string {
	ext := path.Ext(p)
	return strings.TrimSuffix(p, ext) + ".conflict-" + side + ext
}

func (v *Vault) blob(h plumbing.Hash) ([]byte, error) {
	if h.IsZero() {
		return nil, nil
	}
	b, err := object.GetBlob(v.repo.Storer, h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	r, err := b.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	defer r.Close()
	return io.ReadAll(r)
}

// sideChanges lists what one side did relative to base: changes keyed by
// base path (rename, edit, delete), and files added.
func sideChanges(ctx context.Context, base, side *object.Tree) (map[string]sideChange, map[string]plumbing.Hash, error) {
	changes, err := object.DiffTreeWithOptions(ctx, base, side, &object.DiffTreeOptions{DetectRenames: true, RenameScore: 50})
	if err != nil {
		return nil, nil, fmt.Errorf("diff trees: %w", err)
	}
	byBase := map[string]sideChange{}
	added := map[string]plumbing.Hash{}
	for _, c := range changes {
		action, err := c.Action()
		if err != nil {
			return nil, nil, err
		}
		switch action {
		case merkletrie.Insert:
			added[c.To.Name] = c.To.TreeEntry.Hash
		case merkletrie.Delete:
			byBase[c.From.Name] = sideChange{}
		case merkletrie.Modify:
			byBase[c.From.Name] = sideChange{path: c.To.Name, hash: c.To.TreeEntry.Hash}
		}
	}
	return byBase, added, nil
}

// treeFiles finds files in one tree, keeping every folder it opened: a merge
// asks about many paths in the same few folders, and go-git's FindEntry
// would decode each folder's tree again for every path.
type treeFiles struct {
	root *object.Tree
	dirs map[string]*object.Tree // "" is the root; nil: no such folder
}

func newTreeFiles(t *object.Tree) *treeFiles {
	return &treeFiles{root: t, dirs: map[string]*object.Tree{"": t}}
}

func (tf *treeFiles) dir(d string) *object.Tree {
	if t, ok := tf.dirs[d]; ok {
		return t
	}
	parent, name := path.Split(d)
	var t *object.Tree
	if pt := tf.dir(strings.TrimSuffix(parent, "/")); pt != nil {
		for _, e := range pt.Entries {
			if e.Name == name && e.Mode == filemode.Dir {
				t, _ = pt.Tree(name)
				break
			}
		}
	}
	tf.dirs[d] = t
	return t
}

// hash is the blob of p, zero when absent.
func (tf *treeFiles) hash(p string) plumbing.Hash {
	if tf == nil || tf.root == nil {
		return plumbing.ZeroHash
	}
	d, name := path.Split(p)
	t := tf.dir(strings.TrimSuffix(d, "/"))
	if t == nil {
		return plumbing.ZeroHash
	}
	for _, e := range t.Entries {
		if e.Name == name {
			if e.Mode.IsFile() {
				return e.Hash
			}
			break
		}
	}
	return plumbing.ZeroHash
}

// leftOut is a file or folder takeableTree left out of a tree, and why.
type leftOut struct {
	hash plumbing.Hash
	err  error
}

// takeableTree returns t without what ctx0 cannot take into the vault
// (checkTakeable: machine-local state, submodules, symbolic links, paths
// git refuses), and what it left out, by path; a folder left out whole
// (.git, .ctx0/state) is one path. Subtrees already seen under the same
// path come from memo, so the three trees of a merge cost little more
// than one. It only reads and writes objects: nothing on disk changes.
func (v *Vault) takeableTree(ctx context.Context, t *object.Tree, memo map[string]takeable) (*object.Tree, map[string]leftOut, error) {
	out := map[string]leftOut{}
	h, err := v.takeableSub(ctx, "", t.Hash, memo, out)
	if err != nil {
		return nil, nil, err
	}
	if h == t.Hash {
		return t, out, nil
	}
	if h.IsZero() {
		return &object.Tree{}, out, nil
	}
	nt, err := object.GetTree(v.repo.Storer, h)
	if err != nil {
		return nil, nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	return nt, out, nil
}

// takeable is takeableSub's result for one folder.
type takeable struct {
	hash plumbing.Hash
	left map[string]leftOut
}

func (v *Vault) takeableSub(ctx context.Context, dir string, h plumbing.Hash, memo map[string]takeable, out map[string]leftOut) (plumbing.Hash, error) {
	key := dir + "\x00" + h.String()
	if r, ok := memo[key]; ok {
		for p, l := range r.left {
			out[p] = l
		}
		return r.hash, nil
	}
	if err := ctx.Err(); err != nil {
		return plumbing.ZeroHash, err
	}
	t, err := object.GetTree(v.repo.Storer, h)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read tree %s of %q: %w", h, dir, err)
	}
	left := map[string]leftOut{}
	kept := make([]object.TreeEntry, 0, len(t.Entries))
	changed := false
	for _, e := range t.Entries {
		p := e.Name
		if dir != "" {
			p = dir + "/" + e.Name
		}
		if strings.Contains(e.Name, "/") || e.Name == "" {
			left[p] = leftOut{e.Hash, fmt.Errorf("%w: git refuses the name %q", errNotTakeable, e.Name)}
			changed = true
			continue
		}
		mode := e.Mode
		if mode == filemode.Dir {
			mode = filemode.Regular // the folder's own path is checked here; its files below
		}
		if err := checkTakeable(p, mode); err != nil {
			left[p] = leftOut{e.Hash, err}
			changed = true
			continue
		}
		if e.Mode == filemode.Dir {
			sub, err := v.takeableSub(ctx, p, e.Hash, memo, left)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if sub != e.Hash {
				changed = true
				if sub.IsZero() {
					continue
				}
				e.Hash = sub
			}
		}
		kept = append(kept, e)
	}
	nh := h
	switch {
	case !changed:
	case len(kept) == 0:
		nh = plumbing.ZeroHash
	default:
		if nh, err = v.storeTree(kept); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	memo[key] = takeable{nh, left}
	for p, l := range left {
		out[p] = l
	}
	return nh, nil
}

// setAsideEdits takes out of m the edits ctx0 cannot write into this work
// tree over ours (the tree the merge goes onto): a path the path guard
// refuses here, and a file where ours keeps a folder of that name or a
// folder where ours keeps a file (two clones that made foo.md and
// foo.md/bar.md), which no tree or file system can hold both of. It
// returns them with why, by path.
func (v *Vault) setAsideEdits(ours *object.Tree, m *treeMerge) map[string]leftOut {
	out := map[string]leftOut{}
	of := newTreeFiles(ours)
	isFile := func(p string) bool {
		if h, ok := m.edits[p]; ok {
			return !h.IsZero()
		}
		return !of.hash(p).IsZero()
	}
	paths := make([]string, 0, len(m.edits))
	for p, h := range m.edits {
		if !h.IsZero() {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	twins := newCaseTwins(of, m.edits)
	for _, p := range paths {
		var err error
		if cerr := CheckPath(v.root, p); cerr != nil {
			err = fmt.Errorf("%w: %v", errNotTakeable, cerr)
		}
		for d := path.Dir(p); err == nil && d != "."; d = path.Dir(d) {
			if isFile(d) {
				err = fmt.Errorf("%w: %s is a file here, so %s cannot be a folder", errNotTakeable, d, d)
			}
		}
		if err == nil && of.dir(p) != nil {
			err = fmt.Errorf("%w: %s is a folder here, so it cannot be a file", errNotTakeable, p)
		}
		if err == nil {
			if other := twins.of(p); other != "" {
				err = fmt.Errorf("%w: %s is here, and a file system that ignores case cannot hold both", errNotTakeable, other)
			}
		}
		if err != nil {
			out[p] = leftOut{m.edits[p], err}
			delete(m.edits, p)
			delete(m.data, p)
		}
	}
	return out
}

// caseTwins finds, for a path, another name in its folder, in ours or
// added by the edits and not removed by them, that differs from it only in
// case (knowledge/Foo.md beside knowledge/foo.md): one file on macOS and
// Windows, where writing one replaces the other.
type caseTwins struct {
	ours  *treeFiles
	edits map[string]plumbing.Hash
	added map[string][]string            // lower-cased path → paths the edits add
	dirs  map[string]map[string][]string // folder → lower-cased name → ours' names
}

func newCaseTwins(ours *treeFiles, edits map[string]plumbing.Hash) *caseTwins {
	c := &caseTwins{ours: ours, edits: edits, added: map[string][]string{}, dirs: map[string]map[string][]string{}}
	for q, h := range edits {
		if !h.IsZero() {
			c.added[strings.ToLower(q)] = append(c.added[strings.ToLower(q)], q)
		}
	}
	return c
}

// of returns p's twin, "" when it has none. Of two paths the edits add,
// the one that sorts first has no twin, so one of them is kept.
func (c *caseTwins) of(p string) string {
	twin := func(q string) bool {
		if q == p {
			return false
		}
		h, edited := c.edits[q]
		return !edited || !h.IsZero()
	}
	low := strings.ToLower(p)
	for _, q := range c.added[low] {
		if h := c.edits[q]; q < p && !h.IsZero() { // still added: not set aside
			return q
		}
	}
	dir, name := path.Split(p)
	names, ok := c.dirs[dir]
	if !ok {
		names = map[string][]string{}
		if t := c.ours.dir(strings.TrimSuffix(dir, "/")); t != nil {
			for _, e := range t.Entries {
				l := strings.ToLower(e.Name)
				names[l] = append(names[l], e.Name)
			}
		}
		c.dirs[dir] = names
	}
	for _, n := range names[strings.ToLower(name)] {
		if twin(dir + n) {
			return dir + n
		}
	}
	return ""
}
