package mcp

import (
	"path"
	"strings"
	"testing"
)

// FuzzParsePath: a /memories path either is refused or names a clean path
// inside the vault, with no hidden part, that the same path cleaned as a
// file system would gives too; it is never the vault's machinery.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{
		"/memories", "/memories/", "/memories/a_b.txt", "/memories/nested/../x.txt", "/memories/../x",
		"/memories/a/../../x", "memories/rel.txt", "/memoriesX/y", "/memories//a///b/", "/memories/./.git/config",
		"/memories/a/./b/..", `/memories/..\..\x.md`, "/memories/.ctx0", "", "/memories/../memories/x",
		"/memories/../memories_backup/x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		tg, err := parsePath("path", p)
		if err != nil {
			return
		}
		if tg.given != p {
			t.Fatalf("%q: given %q", p, tg.given)
		}
		if p != memRoot && !strings.HasPrefix(p, memRoot+"/") {
			t.Fatalf("%q: accepted a path outside /memories as %q", p, tg.rel)
		}
		if tg.rel == "" {
			if c := path.Clean(p); c != memRoot {
				t.Fatalf("%q: the root, but cleans to %q", p, c)
			}
			return
		}
		if c := path.Clean(tg.rel); c != tg.rel || strings.HasPrefix(c, "/") {
			t.Fatalf("%q: rel %q is not clean", p, tg.rel)
		}
		for _, seg := range strings.Split(tg.rel, "/") {
			if seg == "" || seg == ".." || strings.HasPrefix(seg, ".") {
				t.Fatalf("%q: rel %q has the part %q", p, tg.rel, seg)
			}
		}
		if c := path.Clean(p); c != memRoot+"/"+tg.rel {
			t.Fatalf("%q: rel %q, but the path cleans to %q", p, tg.rel, c)
		}
	})
}
