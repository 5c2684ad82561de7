package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitCodes: 0 success, 1 failure, 2 bad usage, one line on stderr.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	tests := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--help"}, exitOK, ""},
		{[]string{"init", dir}, exitOK, ""},
		{[]string{"--vault", dir, "list"}, exitOK, ""},
		{[]string{"--vault", dir, "show", "nobody"}, exitFailure, `ctx0: no such entry "nobody"`},
		{[]string{"--vault", dir, "show"}, exitUsage, "ctx0: ctx0 show takes one NAME"},
		{[]string{"--vault", dir, "list", "--bogus"}, exitUsage, "unknown flag: --bogus"},
		{[]string{"--vault", dir, "log", "-n", "x"}, exitUsage, `invalid argument "x"`},
		{[]string{"--vault", dir, "nosuch"}, exitUsage, `unknown command "nosuch"`},
		{[]string{"--vault", dir + "/missing", "list"}, exitFailure, "not a ctx0 vault"},
		{[]string{"--vault", dir, "add", "../x"}, exitFailure, "would leave the vault"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
		if code != tt.code {
			t.Errorf("ctx0 %s: exit %d, want %d (stderr %q)", strings.Join(tt.args, " "), code, tt.code, stderr.String())
		}
		if tt.err != "" {
			if !strings.Contains(stderr.String(), tt.err) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("ctx0 %s: stderr %q, want one line containing %q", strings.Join(tt.args, " "), stderr.String(), tt.err)
			}
		}
	}
}

// TestHelpHasExamples: every command's --help shows an example.
func TestHelpHasExamples(t *testing.T) {
	a := &app{}
	for _, c := range a.rootCmd().Commands() {
		if c.Name() == "help" || c.Name() == "completion" || c.Hidden {
			continue
		}
		if c.Example == "" {
			t.Errorf("ctx0 %s --help has no example", c.Name())
		}
	}
}

// TestBadFiles: malformed YAML, invalid UTF-8, a binary file and a huge file
// each get one line naming the file, exit 1, and stay as they were.
func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	if code := run([]string{"init", dir}, strings.NewReader(""), io.Discard, io.Discard); code != exitOK {
		t.Fatalf("init: exit %d", code)
	}
	bad := map[string][]byte{
		"knowledge/yaml.md":   []byte("---\ntitle: [unclosed\n---\nbody\n"),
		"knowledge/utf8.md":   []byte("---\ntitle: ok\n---\nbad \xff\xfe bytes\n"),
		"knowledge/binary.md": []byte("---\ntitle: ok\n---\nnul \x00 byte\n"),
		"knowledge/huge.md":   append([]byte("---\ntitle: huge\n---\n"), bytes.Repeat([]byte("x"), 2<<20)...),
	}
	for p, data := range bad {
		if err := os.WriteFile(filepath.Join(dir, p), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, data := range bad {
		name := strings.TrimSuffix(p, ".md")
		for _, args := range [][]string{{"show", name}, {"set", name, "pinned", "true"}, {"alias", name, "x" + name}} {
			var stderr bytes.Buffer
			code := run(append([]string{"--vault", dir}, args...), strings.NewReader(""), io.Discard, &stderr)
			if code != exitFailure || !strings.Contains(stderr.String(), p) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("ctx0 %s: exit %d, stderr %q; want exit 1 and one line naming %s", strings.Join(args, " "), code, stderr.String(), p)
			}
		}
		if got, _ := os.ReadFile(filepath.Join(dir, p)); !bytes.Equal(got, data) {
			t.Errorf("%s was modified", p)
		}
	}
}
