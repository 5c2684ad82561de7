package extractor

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx0/ctx0/vault"
)

// sameProject reports whether an entry's project field names the project
// p: the same name ignoring case, or p's last segment ("bot0" names
// github.com/me/bot0 and /home/me/code/bot0), which is how people write a
// project in frontmatter, or the name of p's entry ("web-app" names
// github.com/me/web.app), which is how the librarian writes it.
func sameProject(p, field string) bool {
	p, field = strings.ToLower(strings.TrimSpace(p)), strings.ToLower(strings.TrimSpace(field))
	return p != "" && (field == p || field == path.Base(filepath.ToSlash(p)) || field == vault.ProjectSlug(p))
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
	if slug := vault.ProjectSlug(p); slug != "" && !slices.Contains(out, slug) {
		out = append(out, slug)
	}
	return out
}
