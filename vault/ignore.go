package vault

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreMatcher matches what git ignores in the vault, as git status does:
// the person's own excludes file (core.excludesFile, by default
// ~/.config/git/ignore) first, then .git/info/exclude and the .gitignore
// files at every level, the later ones taking precedence. ctx0 commits no
// file git would not add: a .env a person's global excludes keep out of
// every repository stays out of the vault's.
func (v *Vault) ignoreMatcher() (gitignore.Matcher, error) {
	patterns, err := readExcludesFile(excludesFile(v.gitDir))
	if err != nil {
		return nil, err
	}
	repo, err := gitignore.ReadPatterns(osfs.New(v.root), nil)
	if err != nil {
		return nil, fmt.Errorf("read .gitignore: %w", err)
	}
	return gitignore.NewMatcher(append(patterns, repo...)), nil
}

// excludesFile is the path of the person's excludes file as git finds it:
// core.excludesFile from the system, global and repository configuration,
// the last one set winning, else $XDG_CONFIG_HOME/git/ignore (or
// ~/.config/git/ignore). go-git's LoadGlobalPatterns reads ~/.gitconfig
// only and knows no default, so it would miss the commonest setup.
func excludesFile(gitDir string) string {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var configs []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		configs = append(configs, "/etc/gitconfig")
	}
	switch g := os.Getenv("GIT_CONFIG_GLOBAL"); {
	case g != "":
		configs = append(configs, g)
	default:
		if xdg != "" {
			configs = append(configs, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			configs = append(configs, filepath.Join(home, ".gitconfig"))
		}
	}
	configs = append(configs, filepath.Join(gitDir, "config"))
	file := ""
	for _, p := range configs {
		if f := configExcludesFile(p); f != "" {
			file = f
		}
	}
	if file == "" {
		if xdg == "" {
			return ""
		}
		return filepath.Join(xdg, "git", "ignore")
	}
	if rest, ok := strings.CutPrefix(file, "~/"); ok && home != "" {
		file = filepath.Join(home, rest)
	}
	return file
}

// configExcludesFile is core.excludesFile in the git configuration file
// p; "" when p is missing, unreadable or does not set it.
func configExcludesFile(p string) string {
	data, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	c := gitconfig.New()
	if err := gitconfig.NewDecoder(bytes.NewReader(data)).Decode(c); err != nil {
		return ""
	}
	return c.Section("core").Options.Get("excludesfile")
}

// readExcludesFile reads the patterns of an excludes file; none when the
// file does not exist.
func readExcludesFile(p string) ([]gitignore.Pattern, error) {
	if p == "" {
		return nil, nil
	}
	data, err := os.ReadFile(p)
	if os.IsNotExist(err) || os.IsPermission(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read excludes file %s: %w", p, err)
	}
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, nil))
	}
	return ps, nil
}
