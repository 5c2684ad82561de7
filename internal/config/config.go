// Package config holds a YAML settings file read once and split into its
// top-level sections, which the packages that own them decode strictly: a
// key that no setting has is an error naming the file, the line and the
// key, never silently ignored.
//
// A file shared through a remote may have been written by a newer ctx0, so
// what this version cannot know is never fatal: a section none of its
// parts reads is a warning (unless its name is one letter or two from a
// known one: a typo), and a file whose version: is newer than Version has
// every setting this version lacks ignored, with one warning.
package config

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Version is the version of the settings files this ctx0 writes and
// reads in full: the version: key of a file. A file without one is of
// this version.
const Version = 1

// VaultFile is where a vault keeps its settings file, relative to its
// root (slash-separated): every package that names the file in a message
// names this one.
const VaultFile = ".ctx0/config.yaml"

// VersionKey is the top-level key that holds a file's version; it is no
// section.
const VersionKey = "version"

// File is a settings file: a YAML mapping of sections. A nil *File is an
// empty one.
type File struct {
	path     string
	data     []byte
	top      *yaml.Node            // the top mapping; nil for an empty file
	sections map[string]*yaml.Node // section name: its value
	version  int                   // the file's version:, or Version
	// withheld are the keys of a section left out of what Decode gives
	// (see Without); an empty list withholds the whole section.
	withheld map[string][]string
}

// Read reads the file at path; a missing file is an empty one.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		data, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return Parse(path, data)
}

// Parse splits data, the file at path (which errors name), into its
// sections.
func Parse(path string, data []byte) (*File, error) {
	f := &File{path: path, data: data, sections: map[string]*yaml.Node{}, version: Version}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse config %s: %s", path, oneLine(err))
	}
	if len(doc.Content) == 0 {
		return f, nil
	}
	top := doc.Content[0]
	if top.Kind == yaml.ScalarNode && top.Tag == "!!null" {
		return f, nil
	}
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: want a mapping of sections (such as llm: or sync:)", path, top.Line)
	}
	f.top = top
	for i := 0; i+1 < len(top.Content); i += 2 {
		f.sections[top.Content[i].Value] = top.Content[i+1]
	}
	if n := f.sections[VersionKey]; n != nil {
		var ver int
		if err := n.Decode(&ver); err != nil || ver < 1 {
			return nil, fmt.Errorf("%s:%d: version: want a whole number from 1, such as version: %d", path, n.Line, Version)
		}
		f.version = ver
		delete(f.sections, VersionKey)
	}
	return f, nil
}

// Newer reports whether the file was written by a newer ctx0 (its
// version: is above Version): the settings this version lacks are then
// ignored rather than refused.
func (f *File) Newer() bool { return f != nil && f.version > Version }

// Path is the file's path, as errors name it.
func (f *File) Path() string {
	if f == nil {
		return ""
	}
	return f.path
}

// Check sorts the sections that are none of known: a name one letter or
// two from a known one is a typo, an error that lists the known ones,
// unless the file is Newer; any other is a warning, kept in the file and
// ignored, as a section a newer ctx0 reads.
func (f *File) Check(known ...string) (warnings []string, err error) {
	if f == nil || f.top == nil {
		return nil, nil
	}
	if f.Newer() {
		warnings = append(warnings, fmt.Sprintf("%s: written by a newer ctx0 (version %d; this one reads %d): the settings this version does not know are ignored", f.path, f.version, Version))
	}
	for i := 0; i < len(f.top.Content); i += 2 {
		k := f.top.Content[i]
		if k.Value == VersionKey || slices.Contains(known, k.Value) {
			continue
		}
		near := func(s string) bool { return distance(s, k.Value) <= 2 }
		if !f.Newer() && (slices.ContainsFunc(known, near) || near(VersionKey)) {
			sorted := slices.Sorted(slices.Values(known))
			return warnings, fmt.Errorf("%s:%d: unknown section %q; the sections are %s", f.path, k.Line, k.Value, strings.Join(sorted, ", "))
		}
		warnings = append(warnings, fmt.Sprintf("%s:%d: unknown section %q, perhaps from a newer ctx0: ignored", f.path, k.Line, k.Value))
	}
	return warnings, nil
}

// distance is the edit distance between a and b (insertions, deletions
// and substitutions of bytes).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Section is the value of section name, or nil when the file has none or
// leaves it empty; without the keys Without withheld.
func (f *File) Section(name string) *yaml.Node {
	n := f.raw(name)
	if n == nil {
		return nil
	}
	if keys, ok := f.withheld[name]; ok {
		return withhold(n, keys)
	}
	return n
}

// raw is the value of section name as the file has it.
func (f *File) raw(name string) *yaml.Node {
	if f == nil {
		return nil
	}
	v := f.sections[name]
	if v == nil || v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil
	}
	return v
}

// withhold is mapping n without keys (all of it when keys is empty),
// or nil. Merge keys (<<) go too: they could bring a withheld key back.
func withhold(n *yaml.Node, keys []string) *yaml.Node {
	if len(keys) == 0 || n.Kind != yaml.MappingNode {
		return nil
	}
	c := *n
	c.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k == "<<" || slices.Contains(keys, k) {
			continue
		}
		c.Content = append(c.Content, n.Content[i], n.Content[i+1])
	}
	return &c
}

// Without is f with keys of section left out of Section and Decode, as if
// the file did not set them (the whole section when keys is empty);
// Value still sees them. f is not changed.
func (f *File) Without(section string, keys ...string) *File {
	if f == nil {
		return nil
	}
	c := *f
	c.withheld = maps.Clone(f.withheld)
	if c.withheld == nil {
		c.withheld = map[string][]string{}
	}
	if old, ok := c.withheld[section]; ok && (len(old) == 0 || len(keys) == 0) {
		keys = nil
	} else {
		keys = append(slices.Clone(old), keys...)
	}
	c.withheld[section] = keys
	return &c
}

// Value is key of section as the file sets it, decoded (mappings as
// map[string]any), aliases and merge keys resolved; ok is false when the
// file does not set it. A section that is no mapping of keys is an error.
func (f *File) Value(section, key string) (v any, ok bool, err error) {
	n := f.raw(section)
	if n == nil {
		return nil, false, nil
	}
	var m map[string]any
	if err := n.Decode(&m); err != nil {
		return nil, false, fmt.Errorf("%s:%d: %s: %s", f.path, n.Line, section, oneLine(err))
	}
	v, ok = m[key]
	return v, ok, nil
}

// Decode decodes section name into v, over what v already holds (the
// defaults), refusing keys v has no field for (unless the file is Newer).
// A missing or empty section leaves v as it is.
func (f *File) Decode(name string, v any) error {
	n := f.raw(name)
	if n == nil {
		return nil
	}
	keys, withheld := f.withheld[name]
	if withheld {
		// The whole section is checked, so that a typo is reported
		// whether or not its key is withheld, but what v gets is the
		// section without those keys.
		// Into a value of its own (not a copy of v: a map in it would be
		// shared), which gets the same errors.
		scratch := reflect.New(reflect.TypeOf(v).Elem())
		if err := f.decode(name, n, scratch.Interface()); err != nil {
			return err
		}
		if w := withhold(n, keys); w != nil {
			if err := w.Decode(v); err != nil {
				return fmt.Errorf("%s:%d: %s: %s", f.path, n.Line, name, oneLine(err))
			}
		}
		return nil
	}
	return f.decode(name, n, v)
}

// decode decodes n, the value of section name, into v.
func (f *File) decode(name string, n *yaml.Node, v any) error {
	src, ok := f.source(n)
	if !ok {
		// A section written in flow style on the file's one line, as in
		// {sync: {auto: true}}, has no text of its own to decode; its
		// errors name the section's line.
		b, err := yaml.Marshal(n)
		if err != nil {
			return fmt.Errorf("%s:%d: %s: %s", f.path, n.Line, name, oneLine(err))
		}
		src = string(b)
	}
	dec := yaml.NewDecoder(strings.NewReader(src))
	dec.KnownFields(!f.Newer())
	err := dec.Decode(v)
	if err == nil || errors.Is(err, io.EOF) {
		return nil
	}
	return f.explain(name, n, ok, err)
}

// source is the text of the value n, placed at its own line and column,
// so that the decoder's line numbers are the file's; false when n shares
// its lines with another section.
func (f *File) source(n *yaml.Node) (string, bool) {
	if f.top.Style&yaml.FlowStyle != 0 {
		return "", false
	}
	start, ok := offset(f.data, n.Line, n.Column)
	if !ok {
		return "", false
	}
	end := len(f.data)
	for i := 0; i < len(f.top.Content); i += 2 {
		if k := f.top.Content[i]; k.Line > n.Line {
			if e, ok := offset(f.data, k.Line, 1); ok && e < end {
				end = e
			}
		}
	}
	if end < start {
		return "", false
	}
	return strings.Repeat("\n", n.Line-1) + strings.Repeat(" ", n.Column-1) + string(f.data[start:end]), true
}

// offset is the byte offset of line and column (both from 1, the column
// counted in characters) in data.
func offset(data []byte, line, column int) (int, bool) {
	i := 0
	for l := 1; l < line; l++ {
		j := strings.IndexByte(string(data[i:]), '\n')
		if j < 0 {
			return 0, false
		}
		i += j + 1
	}
	for c := 1; c < column; c++ {
		if i >= len(data) || data[i] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(data[i:])
		i += size
	}
	return i, true
}

var (
	unknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type .*$`)
	atLine       = regexp.MustCompile(`^line (\d+): (.*)$`)
)

// explain turns the decoder's error for section name (value n) into one
// line per problem, each naming the file and line: an unknown key as
//
//	.ctx0/config.yaml:12: unknown key "indx" in sync
func (f *File) explain(name string, n *yaml.Node, placed bool, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("%s:%d: %s: %s", f.path, n.Line, name, oneLine(err))
	}
	msgs := make([]string, 0, len(te.Errors))
	for _, e := range te.Errors {
		// Without the section's own text, the decoder's lines are not the
		// file's: the section's line stands for them.
		line, what := fmt.Sprint(n.Line), e
		if m := atLine.FindStringSubmatch(e); m != nil {
			what = m[2]
			if placed {
				line = m[1]
			}
		}
		if m := unknownField.FindStringSubmatch(e); m != nil {
			msgs = append(msgs, fmt.Sprintf("%s:%s: unknown key %q in %s", f.path, line, m[2], name))
			continue
		}
		msgs = append(msgs, fmt.Sprintf("%s:%s: %s: %s", f.path, line, name, what))
	}
	return errors.New(strings.Join(msgs, "; "))
}

// oneLine is a yaml error on one line.
func oneLine(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return strings.Join(te.Errors, "; ")
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}
