package vault

import (
	"slices"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// warmTrees keeps the trees and commits this process wrote, decoded, for
// its later writes: a long-running holder (a watcher taking other
// processes' writes, the MCP server, the daemon) builds each write's trees
// on the ones its previous write made, and would otherwise read and decode
// them again from their files. Git objects never change, so an object kept
// by its hash is always right; which commit HEAD names may change under
// any write (a person's commit or checkout), and is read on every write.
// Only what the process wrote is kept, never what it read: a process that
// writes once keeps nothing it reads again.
type warmTrees struct {
	mu sync.Mutex
	// Two generations: once cur holds maxWarmTreeEntries tree entries it
	// becomes old, and old is dropped. A lookup that finds old's moves
	// back to cur.
	cur, old warmGen
	hits     int // trees found here (tests)
}

type warmGen struct {
	trees   map[plumbing.Hash][]object.TreeEntry
	commits map[plumbing.Hash]plumbing.Hash // commit -> its tree
	size    int                             // tree entries held
}

// maxWarmTreeEntries bounds a generation: about 4 MB of entries, the
// trees of a few writes on a folder of 10,000 entries.
const maxWarmTreeEntries = 1 << 16

// tree returns a copy of the entries of the tree h if this process wrote
// it; the caller may change the copy.
func (w *warmTrees) tree(h plumbing.Hash) ([]object.TreeEntry, bool) {
	es, ok := w.shared(h)
	return slices.Clone(es), ok
}

// shared returns the entries of the tree h if this process wrote it; the
// caller must not change them.
func (w *warmTrees) shared(h plumbing.Hash) ([]object.TreeEntry, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	es, ok := w.cur.trees[h]
	if !ok {
		if es, ok = w.old.trees[h]; !ok {
			return nil, false
		}
		w.putLocked(h, es)
	}
	w.hits++
	return es, true
}

// putTree keeps the entries of the tree h, which the caller no longer
// changes. A tree with a mode that reading it would make canonical (a
// file of mode 100664, written by another tool) is not kept: what is kept
// must be what reading the object gives.
func (w *warmTrees) putTree(h plumbing.Hash, es []object.TreeEntry) {
	for _, e := range es {
		if canonicalTreeMode(e.Mode) != e.Mode {
			return
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.putLocked(h, es)
}

func (w *warmTrees) putLocked(h plumbing.Hash, es []object.TreeEntry) {
	if w.cur.size+len(es) > maxWarmTreeEntries {
		w.old, w.cur = w.cur, warmGen{}
	}
	if w.cur.trees == nil {
		w.cur.trees = map[plumbing.Hash][]object.TreeEntry{}
		w.cur.commits = map[plumbing.Hash]plumbing.Hash{}
	}
	if _, ok := w.cur.trees[h]; !ok {
		w.cur.trees[h] = es
		w.cur.size += len(es)
	}
}

// commitTree returns the tree of the commit c if this process wrote it.
func (w *warmTrees) commitTree(c plumbing.Hash) (plumbing.Hash, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if t, ok := w.cur.commits[c]; ok {
		return t, true
	}
	t, ok := w.old.commits[c]
	return t, ok
}

// putCommit keeps the tree of the commit c.
func (w *warmTrees) putCommit(c, tree plumbing.Hash) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur.commits == nil {
		w.cur.trees = map[plumbing.Hash][]object.TreeEntry{}
		w.cur.commits = map[plumbing.Hash]plumbing.Hash{}
	}
	w.cur.commits[c] = tree
}

// readTree returns the entries of the tree h, which the caller may change.
func (v *Vault) readTree(h plumbing.Hash) ([]object.TreeEntry, error) {
	if es, ok := v.warm.tree(h); ok {
		return es, nil
	}
	return v.treeEntries(h)
}

// readTreeShared returns the entries of the tree h; the caller must not
// change them.
func (v *Vault) readTreeShared(h plumbing.Hash) ([]object.TreeEntry, error) {
	if es, ok := v.warm.shared(h); ok {
		return es, nil
	}
	return v.treeEntries(h)
}
