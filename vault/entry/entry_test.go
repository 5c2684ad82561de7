package entry

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// fixtures returns the files in testdata/roundtrip by name.
func fixtures(t *testing.T) map[string][]byte {
	t.Helper()
	paths := fixturePaths(t)
	files := make(map[string][]byte, len(paths))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = data
	}
	return files
}

func TestRoundTrip(t *testing.T) {
	for name, data := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			e, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Bytes(); !bytes.Equal(got, data) {
				t.Errorf("Bytes() = %q, want %q", got, data)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name, file string
		keys       []string
		body       string
	}{
		{"none", "# Title\n", nil, "# Title\n"},
		{"empty file", "", nil, ""},
		{"empty frontmatter", "---\n---\nbody\n", nil, "body\n"},
		{"fields", "---\na: 1\nb: 2\n---\nbody\n", []string{"a", "b"}, "body\n"},
		{"crlf", "---\r\na: 1\r\n---\r\nbody\r\n", []string{"a"}, "body\r\n"},
		{"closing line ends file", "---\na: 1\n---", []string{"a"}, ""},
		{"blank line before", "\n---\na: 1\n---\n", nil, "\n---\na: 1\n---\n"},
		{"indented delimiter", " ---\na: 1\n---\n", nil, " ---\na: 1\n---\n"},
		{"not a delimiter", "----\na: 1\n", nil, "----\na: 1\n"},
		{"dashes in body", "---\na: 1\n---\n---\nx\n---\n", []string{"a"}, "---\nx\n---\n"},
		{"indented dashes in block scalar", "---\na: |\n  ---\n---\nbody", []string{"a"}, "body"},
		{"byte order mark", "\uFEFF---\na: 1\n---\nbody", []string{"a"}, "body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse([]byte(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Keys(); !equal(got, tt.keys) {
				t.Errorf("Keys() = %q, want %q", got, tt.keys)
			}
			if got := e.Body(); got != tt.body {
				t.Errorf("Body() = %q, want %q", got, tt.body)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		err  error
		msg  string // in the error message
	}{
		{"too large", "---\n---\n" + strings.Repeat("x", MaxSize), ErrTooLarge, "1048584 bytes"},
		{"NUL byte", "---\ntitle: a\x00b\n---\n", ErrBinary, "offset 12"},
		{"invalid UTF-8", "body \xff\xfe", ErrInvalidUTF8, "offset 5"},
		{"unterminated", "---\ntitle: x\nbody\n", ErrFrontmatter, "no closing '---' line"},
		{"only an opening line", "---", ErrFrontmatter, "no closing '---' line"},
		// yaml.v3 reports the line of the problem for errors of its
		// scanner, and the line before the construct it was in for errors
		// of its parser.
		{"syntax", "---\ntitle: x\ntype: a: b\n---\n", ErrFrontmatter, "yaml: line 3: mapping values are not allowed"},
		{"bad indentation", "---\ntitle: x\ntype: y\n  bad: y\n---\n", ErrFrontmatter, "yaml: line 4:"},
		{"unclosed list", "---\ntitle: x\ntags: [a, b\n---\n", ErrFrontmatter, "yaml: line 2: did not find expected ',' or ']'"},
		{"sequence", "---\n- a\n- b\n---\n", ErrFrontmatter, "line 2: not a mapping"},
		{"scalar", "---\njust text\n---\n", ErrFrontmatter, "line 2: not a mapping"},
		{"null", "---\n~\n---\n", ErrFrontmatter, "not a mapping"},
		{"duplicate", "---\ntitle: a\ntype: b\ntitle: c\n---\n", ErrFrontmatter, "line 4: duplicate field title"},
		{"complex key", "---\n? [a, b]\n: c\n---\n", ErrFrontmatter, "line 2: field name is null or not a scalar"},
		{"null key", "---\n~: x\n---\n", ErrFrontmatter, "line 2: field name is null or not a scalar"},
		{"empty key", "---\n&a : x\n---\n", ErrFrontmatter, "line 2: field name is null or not a scalar"},
		{"undecodable", "---\ntitle: x\ncount: !!int many\n---\n", ErrFrontmatter, "line 3: field count"},
		{"two documents", "---\ntitle: x\n--- # second\n---\n", ErrFrontmatter, "more than one YAML document"},
		{"unknown alias", "---\na: *nope\n---\n", ErrFrontmatter, "unknown anchor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.file))
			if !errors.Is(err, tt.err) {
				t.Fatalf("Parse() error = %v, want %v", err, tt.err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Parse() error = %q, want it to contain %q", err, tt.msg)
			}
		})
	}
}

func TestSetBody(t *testing.T) {
	tests := []struct {
		name, file, body, want string
	}{
		{"keeps frontmatter", "---\n# c\ntitle:   x\n---\nold\n", "new\n", "---\n# c\ntitle:   x\n---\nnew\n"},
		{"crlf", "---\r\na: 1\r\n---\r\nold\r\n", "new\r\n", "---\r\na: 1\r\n---\r\nnew\r\n"},
		{"closing line ended the file", "---\na: 1\n---", "body", "---\na: 1\n---\nbody"},
		{"closing line ended a crlf file", "---\r\na: 1\r\n---", "body", "---\r\na: 1\r\n---\r\nbody"},
		{"empty", "---\na: 1\n---\nold\n", "", "---\na: 1\n---\n"},
		{"no frontmatter", "old\n", "new\n", "new\n"},
		{"body that looks like frontmatter", "old\n", "---\na: 1\n---\n", "---\n---\n---\na: 1\n---\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustParse(t, tt.file)
			e.SetBody(tt.body)
			got := e.Bytes()
			if string(got) != tt.want {
				t.Errorf("Bytes() = %q, want %q", got, tt.want)
			}
			back := mustParse(t, string(got))
			if back.Body() != tt.body {
				t.Errorf("body read back as %q, want %q", back.Body(), tt.body)
			}
		})
	}
}

func mustParse(t *testing.T, file string) *Entry {
	t.Helper()
	e, err := Parse([]byte(file))
	if err != nil {
		t.Fatalf("Parse(%q): %v", file, err)
	}
	return e
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
