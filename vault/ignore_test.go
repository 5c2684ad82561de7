package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// TestExcludesFile: the person's excludes file is found as git finds it:
// core.excludesFile from the XDG config, ~/.gitconfig, $GIT_CONFIG_GLOBAL
// or the repository's config, the last one set winning, ~ expanded, else
// $XDG_CONFIG_HOME/git/ignore, else ~/.config/git/ignore.
func TestExcludesFile(t *testing.T) {
	home := t.TempDir()
	xdg := filepath.Join(home, "xdg")
	gitDir := filepath.Join(home, "repo", ".git")
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		xdg    string            // $XDG_CONFIG_HOME, "" unset
		global string            // $GIT_CONFIG_GLOBAL, "" unset
		files  map[string]string // config files, relative to home
		want   string            // relative to home
	}{
		{name: "default under ~/.config", want: ".config/git/ignore"},
		{name: "default under XDG_CONFIG_HOME", xdg: xdg, want: "xdg/git/ignore"},
		{name: "~/.gitconfig, ~ expanded", files: map[string]string{".gitconfig": "[core]\n\texcludesFile = ~/my-ignore\n"}, want: "my-ignore"},
		{name: "XDG config", xdg: xdg, files: map[string]string{"xdg/git/config": "[core]\n\texcludesfile = " + filepath.Join(home, "x-ignore") + "\n"}, want: "x-ignore"},
		{
			name: "~/.gitconfig wins over the XDG config",
			xdg:  xdg,
			files: map[string]string{
				"xdg/git/config": "[core]\n\texcludesfile = " + filepath.Join(home, "x-ignore") + "\n",
				".gitconfig":     "[core]\n\texcludesfile = " + filepath.Join(home, "g-ignore") + "\n",
			},
			want: "g-ignore",
		},
		{
			name: "the repository's config wins",
			files: map[string]string{
				".gitconfig":       "[core]\n\texcludesfile = " + filepath.Join(home, "g-ignore") + "\n",
				"repo/.git/config": "[core]\n\texcludesfile = " + filepath.Join(home, "r-ignore") + "\n",
			},
			want: "r-ignore",
		},
		{
			name:   "GIT_CONFIG_GLOBAL replaces ~/.gitconfig",
			global: filepath.Join(home, "other.gitconfig"),
			files: map[string]string{
				".gitconfig":      "[core]\n\texcludesfile = " + filepath.Join(home, "g-ignore") + "\n",
				"other.gitconfig": "[core]\n\texcludesfile = " + filepath.Join(home, "o-ignore") + "\n",
			},
			want: "o-ignore",
		},
		{name: "a config without core", files: map[string]string{".gitconfig": "[user]\n\tname = Sam\n"}, want: ".config/git/ignore"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []string{".gitconfig", "xdg", "repo", "other.gitconfig"} {
				os.RemoveAll(filepath.Join(home, p))
			}
			for p, s := range tt.files {
				write(filepath.Join(home, p), s)
			}
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", tt.xdg)
			t.Setenv("GIT_CONFIG_GLOBAL", tt.global)
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			if got, want := excludesFile(gitDir), filepath.Join(home, tt.want); got != want {
				t.Errorf("excludesFile = %s, want %s", got, want)
			}
		})
	}
}

// TestReadExcludesFile: comments and blank lines are skipped, a missing
// file is no patterns, and the patterns match as git's do.
func TestReadExcludesFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ignore")
	if ps, err := readExcludesFile(p); err != nil || ps != nil {
		t.Fatalf("missing file: %v, %v", ps, err)
	}
	if err := os.WriteFile(p, []byte("# secrets\n\n.env\n.env.*\r\n*.key\n!keep.key\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ps, err := readExcludesFile(p)
	if err != nil || len(ps) != 4 {
		t.Fatalf("readExcludesFile = %d patterns, %v", len(ps), err)
	}
	m := gitignore.NewMatcher(ps)
	for path, want := range map[string]bool{".env": true, "projects/api/.env.local": true, "knowledge/deploy.key": true, "keep.key": false, "knowledge/env.md": false} {
		if got := m.Match(strings.Split(path, "/"), false); got != want {
			t.Errorf("Match(%s) = %v, want %v", path, got, want)
		}
	}
}
