package merge

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ctx0/ctx0/vault/entry"
)

// value merges three versions of a field's value; nil stands for a field
// that is absent. path names the field in conflicts.
func (m *merger) value(path string, b, o, t *yaml.Node) *yaml.Node {
	cb, co, ct := m.canon(b), m.canon(o), m.canon(t)
	switch {
	case co == ct, cb == ct:
		return o
	case cb == co:
		return t
	}
	b, o, t = deref(b), deref(o), deref(t)
	switch {
	case isMap(o) && isMap(t):
		if !isMap(b) {
			b = nil
		}
		return m.mapping(path, b, o, t)
	case is(o, yaml.SequenceNode) && is(t, yaml.SequenceNode):
		if !is(b, yaml.SequenceNode) {
			b = nil
		}
		return m.sequence(b, o, t)
	}
	// The last edit's time, and the first creation's, are no conflict.
	if ot, tt, ok := times(o, t); ok && (path == entry.FieldUpdated || path == entry.FieldCreated) {
		theirs := tt.After(ot)
		if path == entry.FieldCreated {
			theirs = tt.Before(ot)
		}
		if theirs || tt.Equal(ot) && m.opt.Winner == Theirs {
			return t
		}
		return o
	}
	kept := m.opt.Winner
	if kept == Ours && o == nil || kept == Theirs && t == nil {
		// A deletion does not beat an edit: the edited value stays, as an
		// entry edited on one side and deleted on the other does.
		kept = kept.other()
	}
	m.conflicts = append(m.conflicts, Conflict{Field: path, Base: render(b), Ours: render(o), Theirs: render(t), Kept: kept})
	if kept == Ours {
		return o
	}
	return t
}

// mapping merges maps key by key: ours' keys in ours' order, then keys
// only theirs has, in theirs' order. path is the map's, "" for the
// frontmatter itself.
func (m *merger) mapping(path string, b, o, t *yaml.Node) *yaml.Node {
	bv, ov, tv := pairs(b), pairs(o), pairs(t)
	out := *o
	out.Content = nil
	add := func(k *yaml.Node) {
		key := deref(k).Value
		p := key
		if path != "" {
			p = path + "." + key
		}
		if v := m.value(p, bv[key], ov[key], tv[key]); v != nil {
			out.Content = append(out.Content, k, v)
		}
	}
	for i := 0; i < len(o.Content); i += 2 {
		add(o.Content[i])
	}
	for i := 0; i < len(t.Content); i += 2 {
		if k := t.Content[i]; ov[deref(k).Value] == nil {
			add(k)
		}
	}
	return &out
}

// sequence merges lists as a union: ours' items in ours' order, less
// those theirs removed and ours left alone, with the items theirs added
// (and ours did not remove) placed after the item they follow in theirs.
// Items are compared by value; an item changed on one side counts as
// removed and added.
func (m *merger) sequence(b, o, t *yaml.Node) *yaml.Node {
	inBase, inTheirs := m.set(b), m.set(t)
	var kept []*yaml.Node
	at := make(map[string]int) // kept items by value: their first place in kept
	for _, x := range o.Content {
		c := m.canon(x)
		if inBase[c] && !inTheirs[c] {
			continue
		}
		if _, ok := at[c]; !ok {
			at[c] = len(kept)
		}
		kept = append(kept, x)
	}
	inOurs := m.set(o)
	after := make(map[int][]*yaml.Node) // added items, by the place in kept they follow; -1 is the start
	prev := -1
	for _, x := range t.Content {
		c := m.canon(x)
		if i, ok := at[c]; ok {
			prev = i
			continue
		}
		if !inOurs[c] && !inBase[c] {
			after[prev] = append(after[prev], x)
		}
	}
	out := *o
	out.Content = append([]*yaml.Node(nil), after[-1]...)
	for i, x := range kept {
		out.Content = append(out.Content, x)
		out.Content = append(out.Content, after[i]...)
	}
	return &out
}

// set returns the items of a sequence by value.
func (m *merger) set(seq *yaml.Node) map[string]bool {
	s := make(map[string]bool)
	if seq != nil {
		for _, x := range seq.Content {
			s[m.canon(x)] = true
		}
	}
	return s
}

// canon renders the value of n in a canonical form, so that values
// written differently ('x' and x, [a] and a block list) compare equal;
// "" for nil. Renderings are kept, as merges compare the same nodes often.
func (m *merger) canon(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	if c, ok := m.canons[n]; ok {
		return c
	}
	var v any
	c := "\x00" + render(n) // a value that does not decode stays what it says
	if n.Decode(&v) == nil {
		if out, err := marshal(v); err == nil {
			c = out
		}
	}
	if m.canons == nil {
		m.canons = make(map[*yaml.Node]string)
	}
	m.canons[n] = c
	return c
}

// marshal renders v in YAML. yaml.v3 panics, rather than fail, on some
// values.
func marshal(v any) (s string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	out, err := yaml.Marshal(v)
	return string(out), err
}

// render writes n as YAML for a conflict report; "" for nil.
func render(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	out, err := marshal(plain(n, false))
	if err != nil {
		return n.Value
	}
	return strings.TrimSuffix(out, "\n")
}

// plain copies n with aliases replaced by what they point to and anchors
// dropped, so that it can be written where the anchors are not. A copy
// that is not to be written back (!asWritten), but shown in a report,
// also loses its comments and the quotes of its strings.
func plain(n *yaml.Node, asWritten bool) *yaml.Node {
	n = deref(n)
	c := *n
	c.Anchor = ""
	if !asWritten {
		c.HeadComment, c.LineComment, c.FootComment = "", "", ""
		if c.Kind == yaml.ScalarNode {
			c.Style = 0
		}
	}
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = plain(x, asWritten)
	}
	return &c
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func is(n *yaml.Node, kind yaml.Kind) bool {
	return n != nil && n.Kind == kind
}

// isMap reports whether n is a mapping that merges key by key: its keys
// are scalars, and none is YAML's merge key "<<", whose meaning depends
// on what it points to.
func isMap(n *yaml.Node) bool {
	if !is(n, yaml.MappingNode) {
		return false
	}
	for i := 0; i < len(n.Content); i += 2 {
		if k := deref(n.Content[i]); k.Kind != yaml.ScalarNode || k.Value == "<<" {
			return false
		}
	}
	return true
}

// pairs returns the values of a mapping by key.
func pairs(n *yaml.Node) map[string]*yaml.Node {
	p := make(map[string]*yaml.Node)
	if n != nil {
		for i := 0; i < len(n.Content); i += 2 {
			p[deref(n.Content[i]).Value] = n.Content[i+1]
		}
	}
	return p
}

// times reads both values as timestamps, written as entry writes and reads
// them: RFC 3339, or a date.
func times(o, t *yaml.Node) (time.Time, time.Time, bool) {
	ot, ok1 := timeOf(o)
	tt, ok2 := timeOf(t)
	return ot, tt, ok1 && ok2
}

func timeOf(n *yaml.Node) (time.Time, bool) {
	if !is(n, yaml.ScalarNode) {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339, n.Value); err == nil {
		return t, true
	}
	t, err := time.Parse(time.DateOnly, n.Value)
	return t, err == nil
}
