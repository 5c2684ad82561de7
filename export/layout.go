package export

import (
	"fmt"
	"path"
	"strings"
	"unicode"

	"github.com/ctx0/ctx0/vault"
)

// The files an export generates, which no entry may take.
const (
	guideFile = "CONTEXT.md"       // at the root
	indexFile = "_index.md"        // in every folder
	statsFile = ".ctx0/stats.json" // at the root; marks the folder as an export
)

// place gives every exported entry its file in the export: its path in the
// vault or, flattened, its slug, or its whole name with hyphens for slashes
// where slugs clash. A file that would take a generated file's place, or
// clash with another when case is ignored (as macOS and Windows do), gets a
// numbered suffix. Earlier versions go under .versions/, in a folder named
// after the entry's file.
func (s *set) place(flatten bool) {
	s.flatten = flatten
	slugs := map[string]int{}
	for _, d := range s.docs {
		slugs[vault.Slug(s.shownName(d))]++
	}
	taken := map[string]bool{strings.ToLower(guideFile): true}
	for _, d := range s.docs {
		base := s.shownName(d)
		if flatten {
			if base = vault.Slug(base); slugs[base] > 1 {
				base = strings.ReplaceAll(s.shownName(d), "/", "-")
			}
		}
		d.file = unique(base, taken)
		for i := range d.versions {
			ver := &d.versions[i]
			stamp := ver.When.UTC().Format("20060102T150405Z") + "-" + ver.Hash[:8]
			ver.file = path.Join(versionsDir, strings.TrimSuffix(d.file, ".md"), stamp+".md")
		}
	}
}

// shownName is the name an entry is shown by in the export: its own, or,
// in a redacted export, its name with the secrets it carries redacted.
func (s *set) shownName(d *doc) string {
	if s.redactNames {
		return vault.RedactName(d.name)
	}
	return d.name
}

// unique returns base.md, or base-2.md, base-3.md… if that is taken or is
// a generated file's name, and takes it.
func unique(base string, taken map[string]bool) string {
	for i := 1; ; i++ {
		f := base + ".md"
		if i > 1 {
			f = fmt.Sprintf("%s-%d.md", base, i)
		}
		if key := strings.ToLower(f); !taken[key] && path.Base(f) != indexFile {
			taken[key] = true
			return f
		}
	}
}

// folderOf is the folder of a file of the export, "" for the root.
func folderOf(file string) string {
	if d := path.Dir(file); d != "." {
		return d
	}
	return ""
}

// relative is the link from a file in folder dir to file, both relative to
// the export's root, escaped for a markdown link's destination.
func relative(dir, file string) string {
	var from, to []string
	if dir != "" {
		from = strings.Split(dir, "/")
	}
	to = strings.Split(file, "/")
	i := 0
	for i < len(from) && i < len(to)-1 && from[i] == to[i] {
		i++
	}
	parts := make([]string, 0, len(from)-i+len(to)-i)
	for range from[i:] {
		parts = append(parts, "..")
	}
	for _, p := range to[i:] {
		parts = append(parts, escapeDestination(p))
	}
	return strings.Join(parts, "/")
}

// escapeDestination percent-encodes what would end or confuse a markdown
// link's destination. Names that ctx0 made hold none of it; files named by
// hand may.
func escapeDestination(s string) string {
	if !strings.ContainsAny(s, " %()<>#?[]\\\"'\t") {
		return s
	}
	var b strings.Builder
	for _, c := range []byte(s) {
		if strings.IndexByte(" %()<>#?[]\\\"'\t", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// anchor is the fragment that GitHub and most markdown viewers give a
// heading: lower case, spaces as hyphens, other punctuation dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ' || r == '-':
			b.WriteByte('-')
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
