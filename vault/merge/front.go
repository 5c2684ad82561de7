package merge

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ctx0/ctx0/vault/entry"
)

// front merges the frontmatter of three versions and returns an entry
// that holds it, with no body.
//
// The fields' values are merged one by one (see value). Their layout
// comes, where possible, from a line merge of the frontmatter text: it
// keeps both sides' comments, and the place and style of what each side
// changed. Fields whose value the line merge got wrong (where both sides
// changed the same lines, say) are then set to the merged value, which
// rewrites only their lines. If the line merge does not even parse, ours'
// frontmatter is the starting point instead.
func (m *merger) front(b, o, t *entry.Entry) *entry.Entry {
	hb, ho, ht := header(b), header(o), header(t)
	switch {
	case ho == ht, hb == ht:
		return headerEntry(ho)
	case hb == ho:
		return headerEntry(ht)
	}
	mo := mapOf(o)
	want := m.mapping("", mapOf(b), mo, mapOf(t))
	hw, hl := sides(m, ho, ht)
	split := func(s string) []string { return terminated(splitLines(s), m.eol) }
	var merged strings.Builder
	for _, c := range diff3(split(hb), split(hw), split(hl)) {
		lines := c.lines
		if c.conflict {
			lines = c.first
		}
		for _, l := range lines {
			merged.WriteString(l)
		}
	}
	h := merged.String()
	if m.open(hb, ho, ht) {
		h = unterminate(h, m.eol)
	}
	for _, h := range []string{h, ho} {
		if e, ok := m.fit(h, want); ok {
			return e
		}
	}
	// Only a value that entry cannot write back faithfully leads here.
	// Ours' frontmatter stays, and each field it does not have as merged
	// is reported.
	bv, ov, tv := pairs(mapOf(b)), pairs(mo), pairs(mapOf(t))
	for i := 0; i < len(want.Content); i += 2 {
		key := deref(want.Content[i]).Value
		if m.canon(want.Content[i+1]) != m.canon(ov[key]) {
			m.conflicts = append(m.conflicts, Conflict{Field: key, Base: render(bv[key]), Ours: render(ov[key]), Theirs: render(tv[key]), Kept: Ours})
		}
	}
	return headerEntry(ho)
}

// fit returns the frontmatter h with its fields set to want, or false if
// h is not frontmatter, or cannot be made to hold exactly want.
func (m *merger) fit(h string, want *yaml.Node) (*entry.Entry, bool) {
	e, err := entry.Parse([]byte(h))
	if err != nil || e.Body() != "" {
		return nil, false
	}
	wanted := pairs(want)
	for _, k := range e.Keys() {
		if wanted[k] == nil {
			e.Delete(k)
		}
	}
	have := pairs(mapOf(e))
	for i := 0; i < len(want.Content); i += 2 {
		key, v := deref(want.Content[i]).Value, want.Content[i+1]
		if m.canon(have[key]) == m.canon(v) {
			continue
		}
		if err := e.Set(key, plain(v, true)); err != nil {
			return nil, false
		}
	}
	got := pairs(mapOf(e))
	if len(got) != len(wanted) {
		return nil, false
	}
	for k, v := range wanted {
		if m.canon(got[k]) != m.canon(v) {
			return nil, false
		}
	}
	return e, true
}

// header returns the frontmatter of e with its delimiter lines, as written.
func header(e *entry.Entry) string {
	all := e.Bytes()
	return string(all[:len(all)-len(e.Body())])
}

// headerEntry returns the entry whose file is the header h of a parsed
// entry: its frontmatter, and no body.
func headerEntry(h string) *entry.Entry {
	e, err := entry.Parse([]byte(h))
	if err != nil {
		return entry.New() // h was part of a parsed entry, so this does not happen
	}
	return e
}

// mapOf returns the frontmatter of e as a YAML mapping, empty if it has
// none. The package entry keeps its nodes to itself, but the merge needs
// them: to compare values, to merge maps in their order, and to write back
// values the way they were written.
func mapOf(e *entry.Entry) *yaml.Node {
	empty := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	h := header(e)
	// The opening line ends with a line break, or the entry would not
	// have parsed; the closing line is the last one.
	rest := h[strings.IndexByte(h, '\n')+1:]
	i := strings.LastIndexByte(strings.TrimSuffix(rest, "\n"), '\n')
	if i < 0 {
		return empty
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte(rest[:i+1]), &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return empty
	}
	return doc.Content[0]
}
