package gitindex

import (
	"bytes"
	"errors"
	"strconv"
)

// cacheTree is the "TREE" extension: for each directory, how many index
// entries it covers and the tree object they make, or entry count -1 when
// that is unknown. Each node is written as
//
//	name NUL entry_count SP subtree_count LF [hash if entry_count >= 0]
//
// followed by its subtrees, depth first.
type cacheTree struct {
	name    []byte
	raw     []byte // the node's bytes as read, reused while it is unchanged
	count   int    // entry count, -1 when invalid
	sub     []*cacheTree
	changed bool
}

var errBadTree = errors.New("corrupt cache tree")

const maxTreeDepth = 4096

func parseCacheTree(b []byte) (*cacheTree, error) {
	t, rest, err := parseTreeNode(b, 0)
	if err != nil {
		return nil, err
	}
	if len(t.name) != 0 || len(rest) != 0 {
		return nil, errBadTree
	}
	return t, nil
}

func parseTreeNode(b []byte, depth int) (*cacheTree, []byte, error) {
	if depth > maxTreeDepth {
		return nil, nil, errBadTree
	}
	nul := bytes.IndexByte(b, 0)
	if nul < 0 {
		return nil, nil, errBadTree
	}
	sp := bytes.IndexByte(b[nul+1:], ' ')
	if sp < 0 {
		return nil, nil, errBadTree
	}
	sp += nul + 1
	lf := bytes.IndexByte(b[sp+1:], '\n')
	if lf < 0 {
		return nil, nil, errBadTree
	}
	lf += sp + 1
	count, err := strconv.Atoi(string(b[nul+1 : sp]))
	if err != nil {
		return nil, nil, errBadTree
	}
	nsub, err := strconv.Atoi(string(b[sp+1 : lf]))
	if err != nil || nsub < 0 {
		return nil, nil, errBadTree
	}
	end := lf + 1
	if count >= 0 {
		end += hashLen
		if end > len(b) {
			return nil, nil, errBadTree
		}
	}
	t := &cacheTree{name: b[:nul], raw: b[:end], count: count}
	rest := b[end:]
	// Each node takes at least 5 bytes; that bounds the allocation.
	if nsub > len(rest)/5 {
		return nil, nil, errBadTree
	}
	t.sub = make([]*cacheTree, 0, nsub)
	for range nsub {
		var s *cacheTree
		s, rest, err = parseTreeNode(rest, depth+1)
		if err != nil {
			return nil, nil, err
		}
		t.sub = append(t.sub, s)
	}
	return t, rest, nil
}

// invalidate marks every directory along path as unknown, and forgets a
// subtree that path itself named (a directory replaced by a file, or
// removed): the same as git's cache_tree_invalidate_path.
func (t *cacheTree) invalidate(path []byte) {
	for {
		t.count = -1
		t.changed = true
		comp, rest, isDir := bytes.Cut(path, []byte{'/'})
		if !isDir {
			for i, s := range t.sub {
				if bytes.Equal(s.name, comp) {
					t.sub = append(t.sub[:i], t.sub[i+1:]...)
					break
				}
			}
			return
		}
		var next *cacheTree
		for _, s := range t.sub {
			if bytes.Equal(s.name, comp) {
				next = s
				break
			}
		}
		if next == nil {
			return
		}
		t, path = next, rest
	}
}

func (t *cacheTree) appendTo(b []byte) []byte {
	if t.changed {
		b = append(b, t.name...)
		b = append(b, 0)
		b = strconv.AppendInt(b, int64(t.count), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(len(t.sub)), 10)
		b = append(b, '\n')
		if t.count >= 0 {
			b = append(b, t.raw[len(t.raw)-hashLen:]...)
		}
	} else {
		b = append(b, t.raw...)
	}
	for _, s := range t.sub {
		b = s.appendTo(b)
	}
	return b
}
