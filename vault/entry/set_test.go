package entry

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func set(key string, value any) func(*Entry) error {
	return func(e *Entry) error { return e.Set(key, value) }
}

func setYAML(key, text string) func(*Entry) error {
	return func(e *Entry) error { return e.SetYAML(key, text) }
}

func del(key string) func(*Entry) error {
	return func(e *Entry) error {
		if !e.Delete(key) {
			return errors.New("Delete returned false")
		}
		return nil
	}
}

// TestEdit checks edits against golden files in testdata/edit, named after
// the test case. Run with -update to rewrite them.
func TestEdit(t *testing.T) {
	tests := []struct {
		name string
		file string // in testdata/roundtrip
		edit func(*Entry) error
	}{
		{"set-title", "example.md", set(FieldTitle, "Sarah C. Chen")},
		{"set-flow-list", "example.md", set(FieldTags, []string{"investor", "advisor"})},
		{"set-time", "example.md", set(FieldUpdated, time.Date(2026, 3, 2, 11, 4, 5, 999, time.FixedZone("CET", 3600)))},
		{"set-bool", "example.md", set(FieldPinned, true)},
		{"set-new-field", "example.md", set("rating", 5)},
		{"set-new-list", "example.md", set("topics", []string{"ai", "true"})},
		{"set-string-like-bool", "example.md", set(FieldProject, "true")},
		{"set-string-like-date", "example.md", set(FieldSource, "2026-01-01")},
		{"set-multiline", "example.md", set(FieldType, "line one\nline two")},
		{"set-map", "example.md", set("meta", map[string]any{"owner": "bot0", "scores": []int{1, 2}})},
		{"set-yaml-list", "example.md", setYAML(FieldAliases, "[Sarah, S. C.]")},
		{"set-yaml-block-list", "example.md", setYAML(FieldAliases, "- Sarah\n- S. C.")},
		{"set-yaml-bool", "example.md", setYAML(FieldPinned, "true")},
		{"set-yaml-text", "example.md", setYAML(FieldTitle, "hello world")},
		{"set-yaml-null", "example.md", setYAML(FieldArchived, "")},
		{"delete-first", "example.md", del(FieldTitle)},
		{"delete-middle", "example.md", del(FieldPinned)},
		{"delete-last", "example.md", del(FieldArchived)},
		{"set-keeps-comments", "comments.md", set(FieldTitle, "S. Chen")},
		{"set-keeps-line-comment", "comments.md", set(FieldSource, "agent")},
		{"set-block-list", "comments.md", set(FieldTags, []string{"investor", "advisor"})},
		{"set-last-before-comments", "comments.md", set(FieldPinned, false)},
		{"set-new-after-comments", "comments.md", set("rating", 5)},
		{"delete-with-comments", "comments.md", del(FieldTags)},
		{"set-double-quoted", "quoted.md", set(FieldTitle, "Bob")},
		{"set-single-quoted", "quoted.md", set(FieldType, "person")},
		{"set-compact-list", "lists.md", set("compact", []string{"x", "y", "z"})},
		{"set-indented-list", "lists.md", set(FieldLinks, []string{"a"})},
		{"set-flow-list-with-quotes", "lists.md", set(FieldAliases, []string{"Sarah", "Chen, S."})},
		{"set-nested", "nested.md", set("meta", map[string]any{"owner": "x"})},
		{"set-literal", "nested.md", set("note", "one\ntwo\n")},
		{"set-before-kept-blank-lines", "nested.md", set("folded", "x")},
		{"set-kept-blank-lines", "nested.md", set("keep", "y")},
		{"set-crlf", "crlf.md", set(FieldTitle, "Still CRLF")},
		{"set-crlf-multiline", "crlf.md", set("note", "a\nb")},
		{"set-crlf-new", "crlf.md", set(FieldTags, []string{"c"})},
		{"set-without-frontmatter", "no-frontmatter.md", set(FieldTitle, "A note")},
		{"set-in-empty-frontmatter", "empty-frontmatter-body.md", set(FieldTitle, "A note")},
		{"set-in-comment-only", "comment-only.md", set(FieldTitle, "A note")},
		{"set-closing-at-eof", "closing-at-eof.md", set(FieldType, "note")},
		{"set-unicode", "unicode.md", set(FieldTitle, "Zoë")},
		{"set-indented", "indented.md", set(FieldTitle, "Still indented")},
		{"set-indented-new", "indented.md", set(FieldType, "note")},
		{"set-explicit-key", "unknown.md", set("explicit", "k")},
		{"set-anchored", "anchors.md", set("base", "gone")},
		{"delete-anchored", "anchors.md", del("base")},
		{"set-document-end", "document-end.md", set(FieldType, "note")},
		{"set-kept-blank-lines-again", "nested.md", set("keep", "kept\n\n")},
		{"set-flow-mapping", "flow-mapping.md", set(FieldTags, []string{"c"})},
		{"set-after-odd-line-breaks", "odd-line-breaks.md", set(FieldType, "note")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata/roundtrip", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			e := mustParse(t, string(data))
			if err := tt.edit(e); err != nil {
				t.Fatal(err)
			}
			got := e.Bytes()
			if _, err := Parse(got); err != nil {
				t.Fatalf("edited file does not parse: %v\n%s", err, got)
			}
			golden := filepath.Join("testdata/edit", tt.name+".md")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestSetTouchesOnlyItsLines sets each field of each fixture and checks
// that nothing but that field's lines changed.
func TestSetTouchesOnlyItsLines(t *testing.T) {
	// Fixtures whose layout defeats splicing: Set renders the whole
	// frontmatter.
	rerendered := map[string]bool{
		"anchors.md":      true, // setting base drops the anchor that copy and merged use
		"flow-mapping.md": true, // all fields on one line
	}
	for name, data := range fixtures(t) {
		e := mustParse(t, string(data))
		for _, key := range e.Keys() {
			t.Run(name+"/"+key, func(t *testing.T) {
				e := mustParse(t, string(data))
				start, end, ok := e.span(e.index(key))
				if !ok && !rerendered[name] {
					t.Fatalf("no span for %s", key)
				}
				before, prefix, suffix := e.Fields(), e.open+e.front[:start], e.front[end:]+e.close+e.body
				if err := e.Set(key, "new value"); err != nil {
					t.Fatal(err)
				}
				got := string(e.Bytes())
				if !rerendered[name] && (!strings.HasPrefix(got, prefix) || !strings.HasSuffix(got, suffix)) {
					t.Errorf("changed more than the lines of %s:\n%s", key, got)
				}
				back := mustParse(t, got)
				before[key] = "new value"
				if after := back.Fields(); !reflect.DeepEqual(after, before) {
					t.Errorf("fields read back as %v, want %v", after, before)
				}
				if !equal(back.Keys(), e.Keys()) {
					t.Errorf("keys read back as %q, want %q", back.Keys(), e.Keys())
				}
			})
		}
	}
}

// TestSetValues checks that values read back as they were set, whatever
// they look like.
func TestSetValues(t *testing.T) {
	tests := []struct {
		value any
		want  any // as Get returns it
	}{
		{"plain", "plain"},
		{"true", "true"},
		{"false", "false"},
		{"yes", "yes"},
		{"2026-01-01", "2026-01-01"},
		{"2026-01-28T10:00:00Z", "2026-01-28T10:00:00Z"},
		{"123", "123"},
		{"1e3", "1e3"},
		{"0x1F", "0x1F"},
		{"null", "null"},
		{"~", "~"},
		{"", ""},
		{": x", ": x"},
		{"a: b", "a: b"},
		{"- item", "- item"},
		{"#hash", "#hash"},
		{"text # comment", "text # comment"},
		{"[not, a, list]", "[not, a, list]"},
		{"{not: map}", "{not: map}"},
		{"*alias", "*alias"},
		{"&anchor", "&anchor"},
		{"!tag", "!tag"},
		{"'quoted'", "'quoted'"},
		{`"double"`, `"double"`},
		{" leading and trailing ", " leading and trailing "},
		{"line one\nline two", "line one\nline two"},
		{"trailing newline\n", "trailing newline\n"},
		{"kept\n\n", "kept\n\n"},
		{"---", "---"},
		{"...", "..."},
		{"tab\there", "tab\there"},
		{"cr\ronly", "cr\ronly"},
		{"crlf\r\nline", "crlf\r\nline"},
		{"line\u2028separator", "line\u2028separator"},
		{"next\u0085line", "next\u0085line"},
		{"\ufeffbom", "\ufeffbom"},
		{"\u00a0nbsp\u00a0", "\u00a0nbsp\u00a0"},
		{"bell\a", "bell\a"},
		{"\tindented\nlines", "\tindented\nlines"},
		{"Zoë 日本語 🎉", "Zoë 日本語 🎉"},
		{true, true},
		{42, 42},
		{-1.5, -1.5},
		{nil, nil},
		{[]string{"a", "true", "b c"}, []any{"a", "true", "b c"}},
		{[]string{}, []any{}},
		{map[string]any{"k": []int{1}}, map[string]any{"k": []any{1}}},
		{time.Date(2026, 1, 28, 11, 0, 0, 123, time.FixedZone("CET", 3600)), "2026-01-28T10:00:00Z"},
	}
	for _, file := range []string{"", "---\nx: old\nnext: 1\n---\n", "---\r\nx: [old]\r\n---\r\n", "---\nx: 'old'\n---\n"} {
		for _, tt := range tests {
			e := mustParse(t, file)
			if err := e.Set("x", tt.value); err != nil {
				t.Errorf("Set(%#v) in %q: %v", tt.value, file, err)
				continue
			}
			back := mustParse(t, string(e.Bytes()))
			if got, _ := back.Get("x"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Set(%#v) in %q: read back %#v, want %#v\n%s", tt.value, file, got, tt.want, e.Bytes())
			}
		}
	}
}

func TestSetErrors(t *testing.T) {
	e := mustParse(t, "---\ntitle: x\n---\n")
	if err := e.SetYAML("tags", "[a, b"); !errors.Is(err, ErrFrontmatter) {
		t.Errorf("SetYAML of bad YAML: error %v, want %v", err, ErrFrontmatter)
	}
	if err := e.SetYAML("tags", "a\n---\nb"); !errors.Is(err, ErrFrontmatter) {
		t.Errorf("SetYAML of two documents: error %v, want %v", err, ErrFrontmatter)
	}
	if err := e.SetYAML("count", "!!int many"); !errors.Is(err, ErrFrontmatter) {
		t.Errorf("SetYAML of undecodable YAML: error %v, want %v", err, ErrFrontmatter)
	}
	if err := e.Set("f", func() {}); err == nil {
		t.Error("Set of a func: no error")
	}
	if got := string(e.Bytes()); got != "---\ntitle: x\n---\n" {
		t.Errorf("failed edits changed the entry to %q", got)
	}
}

func TestDelete(t *testing.T) {
	e := mustParse(t, "---\ntitle: x\n---\nbody\n")
	if e.Delete("nope") {
		t.Error("Delete of a missing field returned true")
	}
	if !e.Delete("title") {
		t.Error("Delete of a field returned false")
	}
	if got, want := string(e.Bytes()), "---\n---\nbody\n"; got != want {
		t.Errorf("Bytes() = %q, want %q", got, want)
	}
	if New().Delete("title") {
		t.Error("Delete in a new entry returned true")
	}
}

func TestNew(t *testing.T) {
	e := New()
	if got := e.Bytes(); len(got) != 0 {
		t.Errorf("Bytes() = %q, want nothing", got)
	}
	e.SetBody("Body.\n")
	if err := e.Set(FieldTitle, "New"); err != nil {
		t.Fatal(err)
	}
	if err := e.Set(FieldTags, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if got, want := string(e.Bytes()), "---\ntitle: New\ntags: [a, b]\n---\nBody.\n"; got != want {
		t.Errorf("Bytes() = %q, want %q", got, want)
	}
	var zero Entry
	if err := zero.Set(FieldTitle, "Zero"); err != nil {
		t.Fatal(err)
	}
	if got, want := string(zero.Bytes()), "---\ntitle: Zero\n---\n"; got != want {
		t.Errorf("zero Entry: Bytes() = %q, want %q", got, want)
	}
}
