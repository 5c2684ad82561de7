package sessions

import (
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctx0/ctx0/internal/lazy"
	"github.com/ctx0/ctx0/transcript"

	"github.com/go-git/go-git/v5"
)

// ProjectOf names the project of work done in dir: the normalized remote
// URL of the git repository that holds dir, so that two checkouts of one
// repository are one project and two folders named app are not; else the
// folder.
func ProjectOf(dir string) string {
	if p := remoteOf(dir); p != "" || dir == "" {
		return p
	}
	return filepath.Clean(dir)
}

// project names the project a session worked on, as ProjectOf does, but
// prefers the repository the session itself recorded (Codex does) to the
// bare folder: the folder may be on another machine. Answers are cached
// for the life of the store.
func (s *Store) project(cwd, recorded string) string {
	key := cwd + "\x00" + recorded
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.projects[key]; ok {
		return p
	}
	p := remoteOf(cwd)
	if p == "" {
		p = NormalizeRemote(recorded)
	}
	if p == "" {
		p = ProjectOf(cwd)
	}
	s.projects[key] = p
	return p
}

// WorkFolder is the folder the work of tools sat in, for a session that
// records no folder of its own (Gemini CLI's legacy files): the deepest
// folder that holds every file the session read or wrote, named by an
// absolute path, that it did not refuse or fail at. The agent's and the
// machine's own files (those in a dot-folder of a home, ~/.gemini/…) are
// no part of the work. "" when there are none, or when what holds them
// all is no project: the root, a top folder (/tmp), or a home itself.
func WorkFolder(tools []transcript.Tool) string {
	common := ""
	for _, t := range tools {
		if (t.Kind != transcript.Read && t.Kind != transcript.Write) || t.Outcome != "" {
			continue
		}
		p := strings.ReplaceAll(strings.TrimSpace(t.Target), "\\", "/")
		if !strings.HasPrefix(p, "/") && !drivePath().MatchString(p) {
			continue
		}
		p = path.Clean(p)
		if homeDotted().MatchString(p) {
			continue
		}
		dir := path.Dir(p)
		if common == "" {
			common = dir
			continue
		}
		for common != dir && !strings.HasPrefix(dir, strings.TrimSuffix(common, "/")+"/") {
			up := path.Dir(common)
			if up == common {
				break
			}
			common = up
		}
	}
	parts := strings.FieldsFunc(strings.TrimPrefix(common, "/"), func(r rune) bool { return r == '/' })
	if len(parts) < 2 || homeFolder().MatchString(common) {
		return ""
	}
	return common
}

var (
	// drivePath opens a Windows path with its drive: C:/…
	drivePath = lazy.Regexp(`^[A-Za-z]:/`)
	// homeFolder is a home folder itself, where people keep everything.
	homeFolder = lazy.Regexp(`^(?:/(?:Users|home)/[^/]+|/root|/var/root|[A-Za-z]:/Users/[^/]+)/?$`)
	// homeDotted is a path in a dot-folder or dot-file of a home: an
	// agent's settings and skills (~/.gemini, ~/.cursor), a shell's rc.
	homeDotted = lazy.Regexp(`^(?:/(?:Users|home)/[^/]+|/root|/var/root|[A-Za-z]:/Users/[^/]+)/\.`)
)

// remoteOf is the normalized URL of the origin remote (else the first
// remote by name) of the git repository that holds dir, or "". It reads
// .git/config; it never runs git.
func remoteOf(dir string) string {
	if dir == "" {
		return ""
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return ""
	}
	cfg, err := repo.Config()
	if err != nil || len(cfg.Remotes) == 0 {
		return ""
	}
	r, ok := cfg.Remotes["origin"]
	if !ok {
		names := make([]string, 0, len(cfg.Remotes))
		for n := range cfg.Remotes {
			names = append(names, n)
		}
		sort.Strings(names)
		r = cfg.Remotes[names[0]]
	}
	if len(r.URLs) == 0 {
		return ""
	}
	return NormalizeRemote(r.URLs[0])
}

// NormalizeRemote reduces a git remote URL to host/path, the same for
// every way of writing it: git@github.com:o/r.git,
// https://user:token@GitHub.com/o/r and ssh://git@github.com:22/o/r/ all
// become github.com/o/r. A local path stays a path.
func NormalizeRemote(raw string) string {
	s := strings.TrimSpace(raw)
	if s == "" {
		return ""
	}
	var host, path string
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.Host != "" {
		host, path = u.Hostname(), u.Path
	} else if at := strings.Index(s, "@"); !strings.Contains(s, "://") && strings.Contains(s, ":") && !filepath.IsAbs(s) {
		// scp-like: [user@]host:path
		hp := s[at+1:]
		host, path, _ = strings.Cut(hp, ":")
	} else {
		return strings.TrimSuffix(filepath.ToSlash(filepath.Clean(strings.TrimPrefix(s, "file://"))), ".git")
	}
	path = strings.Trim(path, "/")
	path = strings.TrimSuffix(path, ".git")
	return strings.ToLower(host) + "/" + path
}
