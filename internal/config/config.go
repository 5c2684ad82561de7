// Package config holds a YAML settings file read once and split into its
// top-level sections, which the packages that own them decode strictly: a
// key that no setting has is an error naming the file, the line and the
// key, never silently ignored.
package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// File is a settings file: a YAML mapping of sections. A nil *File is an
// empty one.
type File struct {
	path     string
	data     []byte
	top      *yaml.Node            // the top mapping; nil for an empty file
	sections map[string]*yaml.Node // section name: its value
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
	f := &File{path: path, data: data, sections: map[string]*yaml.Node{}}
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
	return f, nil
}

// Path is the file's path, as errors name it.
func (f *File) Path() string {
	if f == nil {
		return ""
	}
	return f.path
}

// Check reports the first section that is none of known, and lists them.
func (f *File) Check(known ...string) error {
	if f == nil || f.top == nil {
		return nil
	}
	for i := 0; i < len(f.top.Content); i += 2 {
		k := f.top.Content[i]
		if !slices.Contains(known, k.Value) {
			sorted := slices.Sorted(slices.Values(known))
			return fmt.Errorf("%s:%d: unknown section %q; the sections are %s", f.path, k.Line, k.Value, strings.Join(sorted, ", "))
		}
	}
	return nil
}

// Section is the value of section name, or nil when the file has none or
// leaves it empty.
func (f *File) Section(name string) *yaml.Node {
	if f == nil {
		return nil
	}
	v := f.sections[name]
	if v == nil || v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil
	}
	return v
}

// Decode decodes section name into v, over what v already holds (the
// defaults), refusing keys v has no field for. A missing or empty section
// leaves v as it is.
func (f *File) Decode(name string, v any) error {
	n := f.Section(name)
	if n == nil {
		return nil
	}
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
	dec.KnownFields(true)
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
