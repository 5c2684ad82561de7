package extractor

import (
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"

	"github.com/ctx0/ctx0/librarian/ingest"
)

// ProjectOf names the project worked on in dir as transcript ingestion
// names a conversation's: the normalized URL of the origin remote (else
// the first remote by name) of the git repository that holds dir, so that
// two checkouts of one repository are one project; else the folder. It
// reads .git/config; it never runs git.
func ProjectOf(dir string) string {
	if dir == "" {
		return ""
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return filepath.Clean(dir)
	}
	cfg, err := repo.Config()
	if err != nil || len(cfg.Remotes) == 0 {
		return filepath.Clean(dir)
	}
	names := make([]string, 0, len(cfg.Remotes))
	for n := range cfg.Remotes {
		names = append(names, n)
	}
	sort.Strings(names)
	r, ok := cfg.Remotes["origin"]
	if !ok {
		r = cfg.Remotes[names[0]]
	}
	if len(r.URLs) == 0 {
		return filepath.Clean(dir)
	}
	return ingest.NormalizeRemote(r.URLs[0])
}

// sameProject reports whether an entry's project field names the project
// p: the same name ignoring case, or p's last segment ("bot0" names
// github.com/me/bot0 and /home/me/code/bot0), which is how people write a
// project in frontmatter.
func sameProject(p, field string) bool {
	p, field = strings.ToLower(strings.TrimSpace(p)), strings.ToLower(strings.TrimSpace(field))
	return p != "" && (field == p || field == path.Base(filepath.ToSlash(p)))
}

// projectNames are the values of an entry's project field that name p, as
// sameProject decides, with "" for entries of no project: what the context
// block loads.
func projectNames(p string) []string {
	if p == "" {
		return []string{""}
	}
	base := path.Base(filepath.ToSlash(p))
	out := []string{"", p, strings.ToLower(p)}
	if base != p {
		out = append(out, base, strings.ToLower(base))
	}
	return out
}
