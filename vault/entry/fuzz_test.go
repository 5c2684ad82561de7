package entry

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParse(f *testing.F) {
	f.Add([]byte("---\ntitle: x\n---\nbody\n"))
	f.Add([]byte(""))
	for _, p := range fixturePaths(f) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrBinary) &&
				!errors.Is(err, ErrInvalidUTF8) && !errors.Is(err, ErrFrontmatter) {
				t.Fatalf("Parse() error %v wraps none of the package's errors", err)
			}
			return
		}
		if got := e.Bytes(); !bytes.Equal(got, data) {
			t.Fatalf("Bytes() = %q, want %q", got, data)
		}
		checkEdit(t, data, func(e *Entry) { must(t, e.Set(FieldTitle, "fuzz: value")) }, FieldTitle, "fuzz: value")
		checkEdit(t, data, func(e *Entry) { must(t, e.Set(FieldTags, []string{"a", "true"})) }, FieldTags, []any{"a", "true"})
		// Any text is a body, even one that looks like frontmatter.
		e.SetBody(string(data))
		back := mustParse(t, string(e.Bytes()))
		if back.Body() != string(data) || !reflect.DeepEqual(back.Fields(), e.Fields()) {
			t.Fatalf("after SetBody, %q read back as body %q", e.Bytes(), back.Body())
		}
		if keys := e.Keys(); len(keys) > 0 {
			checkEdit(t, data, func(e *Entry) {
				if !e.Delete(keys[0]) {
					t.Fatalf("Delete(%q) = false", keys[0])
				}
			}, keys[0], deleted{})
		}
	})
}

func FuzzSet(f *testing.F) {
	f.Add([]byte("---\ntitle: x\n---\nbody\n"), "title", "y")
	f.Add([]byte(""), "tags", "[a, b]")
	for _, p := range fixturePaths(f) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "title", "- x\n- y")
	}
	f.Fuzz(func(t *testing.T, data []byte, key, value string) {
		if _, err := Parse(data); err != nil {
			return
		}
		// yaml.v3 has no encoding for keys that are not UTF-8, and some keys
		// with line breaks it writes in ways it cannot read back. Set must
		// then fail and leave the entry alone.
		if !utf8.ValidString(key) || strings.ContainsAny(key, "\r\n\u0085\u2028\u2029") {
			e := mustParse(t, string(data))
			if err := e.Set(key, value); err != nil {
				if !bytes.Equal(e.Bytes(), data) {
					t.Fatalf("failed Set changed the entry to %q", e.Bytes())
				}
				return
			}
		}
		checkEdit(t, data, func(e *Entry) { must(t, e.Set(key, value)) }, key, value)
		before := mustParse(t, string(data))
		if err := before.SetYAML(key, value); err == nil {
			want, _ := before.Get(key)
			checkEdit(t, data, func(e *Entry) { must(t, e.SetYAML(key, value)) }, key, want)
		}
	})
}

// deleted is the value checkEdit expects of a deleted field.
type deleted struct{}

// checkEdit parses data, edits it, and checks that the edited entry reads
// back with key set to want (or deleted), every other field and the body
// unchanged.
func checkEdit(t *testing.T, data []byte, edit func(*Entry), key string, want any) {
	t.Helper()
	e := mustParse(t, string(data))
	fields, keys, body := e.Fields(), e.Keys(), e.Body()
	edit(e)
	back, err := Parse(e.Bytes())
	if err != nil {
		t.Fatalf("edited entry does not parse: %v\n%q", err, e.Bytes())
	}
	if want == (deleted{}) {
		delete(fields, key)
		keys = slices.DeleteFunc(keys, func(k string) bool { return k == key })
	} else {
		fields[key] = want
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	}
	if got := back.Fields(); !reflect.DeepEqual(got, fields) {
		t.Fatalf("fields read back as %#v, want %#v\n%q", got, fields, e.Bytes())
	}
	if got := back.Keys(); !slices.Equal(got, keys) {
		t.Fatalf("keys read back as %q, want %q\n%q", got, keys, e.Bytes())
	}
	if back.Body() != body {
		t.Fatalf("body read back as %q, want %q", back.Body(), body)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func FuzzLinks(f *testing.F) {
	f.Add([]byte(""))
	for _, tt := range linkTests {
		f.Add([]byte(tt.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, l := range Links(body) {
			if l.Start < 0 || l.End > len(body) || string(body[l.Start:l.End]) != l.Target {
				t.Fatalf("link %+v does not point at its target", l)
			}
		}
		same := RewriteLinks(body, func(l Link) (string, bool) { return l.Target, true })
		if !bytes.Equal(same, body) {
			t.Fatalf("RewriteLinks to the same targets = %q, want %q", same, body)
		}
	})
}

func fixturePaths(tb testing.TB) []string {
	paths, err := filepath.Glob("testdata/roundtrip/*.md")
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no fixtures: %v", err)
	}
	return paths
}
