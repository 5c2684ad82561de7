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

// mentionsProject reports whether text names the project p: a link to its
// entry, or its name or last segment as a word.
func mentionsProject(text, p string) bool {
	text = strings.ToLower(text)
	if slug := vault.ProjectSlug(p); slug != "" && strings.Contains(text, "[[projects/"+slug) {
		return true
	}
	for _, n := range projectNames(p) {
		if n == "" {
			continue
		}
		n = strings.ToLower(n)
		for i := strings.Index(text, n); i >= 0; {
			end := i + len(n)
			if (i == 0 || !isWordByte(text[i-1])) && (end == len(text) || !isWordByte(text[end])) {
				return true
			}
			next := strings.Index(text[i+1:], n)
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return false
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 0x80
}
