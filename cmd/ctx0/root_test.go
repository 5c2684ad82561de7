package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
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
		{[]string{"--vault", dir, "show"}, exitUsage, "ctx0: show takes one NAME (see ctx0 show --help)"},
		{[]string{"--version", "--bogus"}, exitUsage, "ctx0: unknown flag: --bogus (see ctx0 --help)"},
		{[]string{"--vault", dir, "list", "--bogus"}, exitUsage, "unknown flag: --bogus"},
		{[]string{"--vault", dir, "list", "--type", "bogus"}, exitUsage, `ctx0: list: --type: unknown type "bogus"`},
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

// TestJSONErrors: under --json an error is one JSON object on stderr, with
// the message the text form prints and the same exit code.
func TestJSONErrors(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	if code := run([]string{"init", dir}, strings.NewReader(""), io.Discard, io.Discard); code != exitOK {
		t.Fatalf("init: exit %d", code)
	}
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--vault", dir, "show", "--json"}, exitUsage},
		{[]string{"--vault", dir, "show", "nobody", "--json"}, exitFailure},
		{[]string{"--vault", dir, "list", "--bogus", "--json"}, exitUsage},
		{[]string{"--vault", dir, "log", "--json", "-n", "x"}, exitUsage},
		{[]string{"--vault", dir + "/missing", "list", "--json"}, exitFailure},
	}
	for _, tt := range tests {
		var text, stdout, stderr bytes.Buffer
		textArgs := slices.DeleteFunc(slices.Clone(tt.args), func(s string) bool { return s == "--json" })
		run(textArgs, strings.NewReader(""), io.Discard, &text)
		code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
		if code != tt.code {
			t.Errorf("ctx0 %s: exit %d, want %d", strings.Join(tt.args, " "), code, tt.code)
		}
		var got failure
		dec := json.NewDecoder(&stderr)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil || dec.More() {
			t.Errorf("ctx0 %s: stderr is not one JSON object: %v", strings.Join(tt.args, " "), err)
			continue
		}
		want := failure{Error: strings.TrimSuffix(text.String(), "\n"), Code: tt.code}
		if got != want {
			t.Errorf("ctx0 %s: stderr %+v, want %+v", strings.Join(tt.args, " "), got, want)
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

// TestUsageErrorsOnce: a usage error of any command exits 2 with one line
// that says "ctx0:" once and names the command.
// TestUnknownCommand: a word that names no command is a usage error (exit
// 2) printed as cobra words it, with its suggestion; words that lead to a
// command, cobra's help among them, are not.
func TestUnknownCommand(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--vault", t.TempDir(), "serach", "espresso"}, strings.NewReader(""), &stdout, &stderr); code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if got, want := stderr.String(), "ctx0: unknown command \"serach\" for \"ctx0\"\n\nDid you mean this?\n\tsearch\n\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"nosuch"}, true},
		{[]string{"--vault", "dir", "nosuch", "--json"}, true},
		{[]string{}, false},
		{[]string{"--vault", "dir"}, false},
		{[]string{"help", "nosuch"}, false},
		{[]string{"search", "nosuch"}, false},
		{[]string{"curator", "nosuch"}, false}, // curator's own usage error
	} {
		root := (&app{}).rootCmd()
		root.InitDefaultHelpCmd() // as Execute does before it looks
		if got := unknownCommand(root, tt.args); got != tt.want {
			t.Errorf("unknownCommand(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

func TestUsageErrorsOnce(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	var walk func(c *cobra.Command)
	var paths [][]string
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		// ctx0 hook takes any flag: an agent's newer hook must never fail.
		if !c.FParseErrWhitelist.UnknownFlags {
			paths = append(paths, strings.Fields(c.CommandPath())[1:])
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk((&app{}).rootCmd())
	if len(paths) < 30 {
		t.Fatalf("walked %d commands, want every one", len(paths))
	}
	for _, p := range paths {
		args := append(append([]string{}, p...), "--no-such-flag")
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		msg := stderr.String()
		want := "ctx0: unknown flag"
		if len(p) > 0 {
			want = "ctx0: " + strings.Join(p, " ") + ": unknown flag"
		}
		if code != exitUsage || !strings.HasPrefix(msg, want) || strings.Count(msg, "ctx0:") != 1 || strings.Count(msg, "\n") != 1 {
			t.Errorf("ctx0 %s: exit %d, stderr %q; want exit 2 and one line starting %q", strings.Join(args, " "), code, msg, want)
		}
	}
}

func TestBuildVersion(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"release", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: vcs("c3b4dd735973d493ef6b03650c2e0f3eddfb255f", "false")}, "v1.2.3"},
		{"pseudo-version from vcs", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261126112606-c3b4dd735973+dirty"}}, "v0.0.0-20261126112606-c3b4dd735973+dirty"},
		{"devel with a commit", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("c3b4dd735973d493ef6b03650c2e0f3eddfb255f", "false")}, "dev+c3b4dd735973"},
		{"devel with a modified tree", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("c3b4dd735973d493ef6b03650c2e0f3eddfb255f", "true")}, "dev+c3b4dd735973.dirty"},
		{"devel without vcs", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"test binary", debug.BuildInfo{}, "dev"},
	}
	for _, tt := range tests {
		if got := buildVersion(&tt.bi); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestBuildSource: the commit, its date and a modified tree, as Go records
// them in a build from a checkout, make the line ctx0 --version adds.
func TestBuildSource(t *testing.T) {
	tests := []struct {
		name     string
		settings []debug.BuildSetting
		want     string
	}{
		{"clean", []debug.BuildSetting{{Key: "vcs.revision", Value: "c3b4dd735973d493ef6b03650c2e0f3eddfb255f"}, {Key: "vcs.time", Value: "2026-11-26T11:26:06Z"}, {Key: "vcs.modified", Value: "false"}},
			"built from commit c3b4dd735973d493ef6b03650c2e0f3eddfb255f of 2026-11-26 11:26 UTC"},
		{"modified", []debug.BuildSetting{{Key: "vcs.revision", Value: "c3b4dd735973d493ef6b03650c2e0f3eddfb255f"}, {Key: "vcs.time", Value: "2026-11-26T11:26:06Z"}, {Key: "vcs.modified", Value: "true"}},
			"built from commit c3b4dd735973d493ef6b03650c2e0f3eddfb255f of 2026-11-26 11:26 UTC, with uncommitted changes"},
		{"no time", []debug.BuildSetting{{Key: "vcs.revision", Value: "c3b4dd7"}}, "built from commit c3b4dd7"},
		{"none", nil, ""},
	}
	for _, tt := range tests {
		s, ok := buildSource(&debug.BuildInfo{Settings: tt.settings})
		got := ""
		if ok {
			got = s.String()
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
