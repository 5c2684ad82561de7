package entry

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Keys returns the names of the fields, in file order.
func (e *Entry) Keys() []string {
	pairs := e.pairs()
	keys := make([]string, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		keys = append(keys, pairs[i].Value)
	}
	return keys
}

// Get returns the value of a field as yaml.v3 decodes it into an any,
// except that timestamps stay the strings they were written as and maps
// have string keys: string, bool, int, float64, nil, []any, map[string]any.
func (e *Entry) Get(key string) (any, bool) {
	i := e.index(key)
	if i < 0 {
		return nil, false
	}
	// Parse has decoded every value once, so this cannot fail.
	v, err := decode(e.pairs()[i+1])
	return v, err == nil
}

// Fields returns all fields as Get returns them, ready for encoding/json
// (but for the floats .nan and .inf, which JSON has no numbers for).
func (e *Entry) Fields() map[string]any {
	pairs := e.pairs()
	fields := make(map[string]any, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		if v, err := decode(pairs[i+1]); err == nil {
			fields[pairs[i].Value] = v
		}
	}
	return fields
}

// Set sets a field to value, which is encoded by yaml.v3 except for a
// time.Time, which is written in UTC to the second (2026-01-28T10:00:00Z).
// A list of plain values is written in flow style ([a, b]) unless the field
// already holds a list written in block style.
//
// An existing field keeps its place and comments, and only its lines
// change; a new field is added at the end. In the rare frontmatter whose
// layout defeats this, such as a flow mapping or an anchor used by another
// field, the whole frontmatter is rendered afresh: same content, new layout.
func (e *Entry) Set(key string, value any) error {
	if t, ok := value.(time.Time); ok {
		value = t.UTC().Truncate(time.Second)
	}
	v, err := toNode(value)
	if err != nil {
		return fmt.Errorf("entry: set %s: %w", key, err)
	}
	if v.Kind == yaml.SequenceNode && !slices.ContainsFunc(v.Content, isCollection) {
		v.Style |= yaml.FlowStyle
	}
	return e.set(key, v)
}

// toNode encodes value. yaml.v3 panics, rather than fail, on values it has
// no encoding for, such as funcs and channels.
func toNode(value any) (n *yaml.Node, err error) {
	if s, ok := value.(string); ok && strings.HasPrefix(s, "\t") && strings.Contains(s, "\n") && utf8.ValidString(s) {
		// yaml.v3 would write a literal block that it cannot read back.
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}, nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	n = new(yaml.Node)
	return n, n.Encode(value)
}

// SetYAML sets a field to the value that text reads as in YAML, such as
// "true", "[a, b]" or "hello world". Empty text is null.
func (e *Entry) SetYAML(key, text string) error {
	doc, err := parseDoc(text)
	if err != nil {
		return fmt.Errorf("%w: value of %s: %w", ErrFrontmatter, key, err)
	}
	v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	if doc != nil {
		v = doc.Content[0]
	}
	if _, err := decode(v); err != nil {
		return fmt.Errorf("%w: value of %s: %w", ErrFrontmatter, key, err)
	}
	return e.set(key, v)
}

// Delete removes a field and its lines, as Set changes them, and reports
// whether the field was there.
func (e *Entry) Delete(key string) bool {
	i := e.index(key)
	if i < 0 {
		return false
	}
	pairs := slices.Delete(slices.Clone(e.pairs()), i, i+2)
	start, end, ok := e.span(i)
	return e.update(pairs, e.front[:start]+e.front[end:], ok) == nil
}

func (e *Entry) set(key string, v *yaml.Node) error {
	pairs := slices.Clone(e.pairs())
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	compact := false
	i := e.index(key)
	if i < 0 {
		pairs = append(pairs, k, v)
	} else {
		// The key's comment lines lie outside its span and stay in place;
		// what it has on its line goes with the new value.
		c := *pairs[i]
		c.HeadComment, c.FootComment = "", ""
		k = &c
		old := pairs[i+1]
		restyle(v, old)
		// Sequences whose dashes line up with the key, as in
		//	tags:
		//	- a
		// are written that way again.
		compact = old.Kind == yaml.SequenceNode && old.Style&yaml.FlowStyle == 0 &&
			len(old.Content) > 0 && old.Content[0].Column-2 <= k.Column
		pairs[i], pairs[i+1] = k, v
	}
	text, err := encode(pair(k, v), compact, e.indent(), e.eol())
	if err != nil {
		return fmt.Errorf("entry: set %s: %w", key, err)
	}
	spliced, ok := e.front+text, true
	if i >= 0 {
		var start, end int
		start, end, ok = e.span(i)
		spliced = e.front[:start] + text + e.front[end:]
	}
	if err := e.update(pairs, spliced, ok); err != nil {
		return fmt.Errorf("entry: set %s: %w", key, err)
	}
	return nil
}

// restyle makes v look like old, the value it replaces: same flow or block
// layout for a collection, same quotes for a string, same comment at the
// end of the line.
func restyle(v, old *yaml.Node) {
	switch {
	case v.Kind != yaml.ScalarNode && v.Kind == old.Kind:
		v.Style = v.Style&^yaml.FlowStyle | old.Style&yaml.FlowStyle
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" &&
		v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0:
		if q := old.Style & (yaml.SingleQuotedStyle | yaml.DoubleQuotedStyle); q != 0 {
			v.Style = q
		}
	}
	if v.LineComment == "" {
		v.LineComment = old.LineComment
	}
}

// update replaces the frontmatter with spliced, the old text with one
// field's lines changed, if it reads back as pairs. The splice rests on
// line-based guesses that some YAML defeats (flow mappings, block scalars
// that keep trailing blank lines, '...' markers, anchors used elsewhere);
// then the whole mapping is rendered afresh, which keeps the content but not
// the layout.
func (e *Entry) update(pairs []*yaml.Node, spliced string, spliceable bool) error {
	want, err := fields(pairs)
	if err != nil {
		return err
	}
	if spliceable && e.try(spliced, want) {
		return nil
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Content: pairs}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{m}}
	if e.doc != nil {
		m.Style = e.doc.Content[0].Style
		doc.HeadComment, doc.FootComment = e.doc.HeadComment, e.doc.FootComment
	}
	rendered, err := encode(renderable(doc), false, "", e.eol())
	if err != nil {
		return err
	}
	if !e.try(rendered, want) {
		return errors.New("rendered frontmatter does not read back the same")
	}
	return nil
}

// try makes front the frontmatter if its fields are want.
func (e *Entry) try(front string, want []field) bool {
	if !framed(front) {
		return false
	}
	doc, err := parseFront(front)
	if err != nil {
		return false
	}
	got, err := fields(pairsOf(doc))
	if err != nil || !slices.Equal(got, want) {
		return false
	}
	if e.open == "" {
		e.open, e.close = "---"+e.eol(), "---"+e.eol()
	}
	e.front, e.doc = front, doc
	return true
}

// framed reports whether front fits between the delimiter lines: whole
// lines, none a delimiter. A splice can break that where yaml.v3 sees line
// breaks that split does not, such as a CR alone.
func framed(front string) bool {
	for front != "" {
		line := firstLine(front)
		if isDelimiter(line) || !strings.HasSuffix(line, "\n") {
			return false
		}
		front = front[len(line):]
	}
	return true
}

// span returns the byte range in e.front of the field at pairs[i]: from its
// key's line to the end of its value. Blank lines and comment lines at the
// end that are not indented past the key belong to what follows.
func (e *Entry) span(i int) (start, end int, ok bool) {
	pairs := e.pairs()
	starts := lineStarts(e.front)
	// Lines of e.front are counted from 0; parseFront counts lines of the
	// file, where the opening '---' is line 1.
	first, last := pairs[i].Line-2, len(starts)-1
	if i+2 < len(pairs) {
		last = pairs[i+2].Line - 2
	}
	if first < 0 || first >= last || last >= len(starts) {
		return 0, 0, false // as in a flow mapping, {a: 1, b: 2}
	}
	indent := e.indent()
	for last-1 > first && isTrailer(e.front[starts[last-1]:starts[last]], indent) {
		last--
	}
	return starts[first], starts[last], true
}

// isTrailer reports whether line is blank, or a comment indented no deeper
// than the mapping's keys.
func isTrailer(line, indent string) bool {
	s := strings.TrimLeft(line, " \t")
	blank := strings.TrimSpace(s) == ""
	return blank || s[0] == '#' && len(line)-len(s) <= len(indent)
}

// lineStarts returns the offset of each line of s, which ends with a line
// break, and then len(s). It breaks lines where yaml.v3 does, which is also
// at CR, NEL, LS and PS.
func lineStarts(s string) []int {
	starts := []int{0}
	for i := 0; i < len(s); {
		n := 0
		switch {
		case strings.HasPrefix(s[i:], "\r\n"), strings.HasPrefix(s[i:], "\u0085"):
			n = 2
		case s[i] == '\n', s[i] == '\r':
			n = 1
		case strings.HasPrefix(s[i:], "\u2028"), strings.HasPrefix(s[i:], "\u2029"):
			n = 3
		}
		if n == 0 {
			i++
			continue
		}
		i += n
		starts = append(starts, i)
	}
	return starts
}

// indent is the indentation of the mapping's keys; nearly always none.
func (e *Entry) indent() string {
	pairs := e.pairs()
	if len(pairs) == 0 {
		return ""
	}
	return strings.Repeat(" ", pairs[0].Column-1)
}

func (e *Entry) index(key string) int {
	pairs := e.pairs()
	for i := 0; i < len(pairs); i += 2 {
		if pairs[i].Value == key {
			return i
		}
	}
	return -1
}

func (e *Entry) pairs() []*yaml.Node {
	return pairsOf(e.doc)
}

// pairsOf returns the keys and values of the mapping in doc, interleaved.
func pairsOf(doc *yaml.Node) []*yaml.Node {
	if doc == nil {
		return nil
	}
	return doc.Content[0].Content
}

func pair(k, v *yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{k, v}}
}

func isCollection(n *yaml.Node) bool {
	return n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode
}

// parseFront parses frontmatter text. It returns nil if there are no
// fields, only blank lines and comments.
func parseFront(front string) (*yaml.Node, error) {
	// The extra line stands for the opening '---', so that yaml.v3 counts
	// lines the way the file does, in its errors and in nodes.
	doc, err := parseDoc("\n" + front)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFrontmatter, err)
	}
	if doc == nil {
		return nil, nil
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: line %d: not a mapping of fields", ErrFrontmatter, m.Line)
	}
	seen := make(map[string]bool, len(m.Content)/2)
	for i := 0; i < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!null" {
			return nil, fmt.Errorf("%w: line %d: field name is null or not a scalar", ErrFrontmatter, k.Line)
		}
		if seen[k.Value] {
			return nil, fmt.Errorf("%w: line %d: duplicate field %s", ErrFrontmatter, k.Line, k.Value)
		}
		seen[k.Value] = true
		// Values that yaml.v3 parses but cannot decode, such as
		// "!!int x", are refused now rather than hidden from Get.
		if _, err := decode(m.Content[i+1]); err != nil {
			return nil, fmt.Errorf("%w: line %d: field %s: %w", ErrFrontmatter, k.Line, k.Value, err)
		}
	}
	return doc, nil
}

// parseDoc parses text that must hold at most one YAML document. It returns
// nil if the text is empty but for comments.
func parseDoc(text string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(strings.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err == io.EOF {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	switch err := dec.Decode(new(yaml.Node)); err {
	case io.EOF:
		return &doc, nil
	case nil:
		return nil, errors.New("more than one YAML document")
	default:
		return nil, err
	}
}

// encode renders n in the layout of hand-written frontmatter: 2-space
// indentation and no line wrapping, with compact sequences if asked, every
// line indented by indent, and eol line breaks.
func encode(n *yaml.Node, compact bool, indent, eol string) (string, error) {
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if compact {
		enc.CompactSeqIndent()
	}
	if err := enc.Encode(n); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	lines := strings.SplitAfter(b.String(), "\n")
	for i, l := range lines {
		if l != "\n" && l != "" {
			lines[i] = indent + l
		}
	}
	return strings.ReplaceAll(strings.Join(lines, ""), "\n", eol), nil
}

// renderable copies n for yaml.v3 to render faithfully. Aliases are
// replaced by what they point to, and anchors dropped, as an anchor may
// have been in a value that is replaced or deleted; this costs no more than
// decoding n, which Parse has done. Nulls written as nothing are spelled
// out: yaml.v3 would turn such a null in a key into an empty string.
func renderable(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		return renderable(n.Alias)
	}
	c := *n
	c.Anchor = ""
	if c.Kind == yaml.ScalarNode && c.Value == "" && c.ShortTag() == "!!null" {
		c.Value = "null"
	}
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = renderable(x)
	}
	return &c
}

// field is a field's name and its value in a canonical rendering, so that
// a rewritten frontmatter can be checked to read back as intended.
type field struct{ name, value string }

func fields(pairs []*yaml.Node) ([]field, error) {
	fs := make([]field, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		v, err := decode(pairs[i+1])
		if err != nil {
			return nil, err
		}
		b, err := yaml.Marshal(v)
		if err != nil {
			return nil, err
		}
		fs = append(fs, field{pairs[i].Value, string(b)})
	}
	return fs, nil
}

// decode converts n to plain Go values. Timestamps stay the strings they
// were written as (yaml.v3 would make them time.Time), and maps get string
// keys, so that values survive a trip through encoding/json.
func decode(n *yaml.Node) (any, error) {
	var v any
	if err := untime(n, make(map[*yaml.Node]*yaml.Node)).Decode(&v); err != nil {
		return nil, err
	}
	return stringKeys(v), nil
}

// untime copies n with timestamps tagged as strings. Aliases are copied as
// aliases, of copies made once, so that yaml.v3 still sees (and limits)
// how often they are expanded.
func untime(n *yaml.Node, copies map[*yaml.Node]*yaml.Node) *yaml.Node {
	if c, ok := copies[n]; ok {
		return c
	}
	c := *n
	copies[n] = &c
	if c.Kind == yaml.ScalarNode && c.ShortTag() == "!!timestamp" {
		c.Tag = "!!str"
	}
	if c.Alias != nil {
		c.Alias = untime(c.Alias, copies)
	}
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = untime(x, copies)
	}
	return &c
}

func stringKeys(v any) any {
	switch v := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[fmt.Sprint(k)] = stringKeys(x)
		}
		return m
	case map[string]any:
		for k, x := range v {
			v[k] = stringKeys(x)
		}
	case []any:
		for i, x := range v {
			v[i] = stringKeys(x)
		}
	}
	return v
}

// MapText replaces each text of the entry with f of it: the body, and every
// string value in the frontmatter, inside lists and maps too (keys,
// numbers, booleans and dates are not text and stay). Only the fields whose
// text changes are rewritten, as Set rewrites them. It reports whether
// anything changed.
func (e *Entry) MapText(f func(string) string) (bool, error) {
	changed := false
	if b := f(e.body); b != e.body {
		e.SetBody(b)
		changed = true
	}
	pairs := e.pairs()
	for i := 0; i+1 < len(pairs); i += 2 {
		v, ok := mapStrings(pairs[i+1], f, pairs[i].Value)
		if !ok {
			continue
		}
		if err := e.set(pairs[i].Value, v); err != nil {
			return changed, err
		}
		changed = true
		pairs = e.pairs()
	}
	return changed, nil
}

// mapStrings returns a copy of n with f applied to its string scalars, and
// whether any changed; n itself is left alone. A string that is the value
// of key is given to f as "key: value", so that f sees what the text said
// (password: hunter22), and keeps what f makes of the value. Aliases are
// not followed: their anchor is mapped where it stands.
func mapStrings(n *yaml.Node, f func(string) string, key string) (*yaml.Node, bool) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() != "!!str" {
			return n, false
		}
		s, ok := "", false
		if key != "" {
			kv := f(key + ": " + n.Value)
			s, ok = strings.CutPrefix(kv, key+": ")
		}
		if !ok {
			s = f(n.Value)
		}
		if s == n.Value {
			return n, false
		}
		c := *n
		c.Value = s
		if c.Style&yaml.TaggedStyle == 0 {
			c.Tag = "!!str"
		}
		return &c, true
	case yaml.SequenceNode, yaml.MappingNode:
		var content []*yaml.Node
		for i, item := range n.Content {
			key := ""
			if n.Kind == yaml.MappingNode {
				if i%2 == 0 {
					continue // a key
				}
				key = n.Content[i-1].Value
			}
			m, ok := mapStrings(item, f, key)
			if !ok {
				continue
			}
			if content == nil {
				content = slices.Clone(n.Content)
			}
			content[i] = m
		}
		if content == nil {
			return n, false
		}
		c := *n
		c.Content = content
		return &c, true
	}
	return n, false
}
