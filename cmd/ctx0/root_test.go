package main

import (
	"bytes"
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
