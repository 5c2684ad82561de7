// Package templates holds the files ctx0 writes from: the skeleton of a new
// vault and the body of a new entry of each type.
package templates

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/ctx0/ctx0"
	"github.com/ctx0/ctx0/vault/entry"
)

//go:embed all:vault types
var files embed.FS

// File is one file of a new vault.
type File struct {
	Path string // slash-separated, relative to the vault root
	Data []byte
}

// Vault lists the files a new vault starts with. Files named "_x" in the
// embedded tree are written as ".x", so that this repository's own git
// does not read them as its .gitignore and .gitattributes.
func Vault() []File {
	out := []File{{Path: "CONTEXT.md", Data: []byte(ctx0.VaultGuide)}}
	fs.WalkDir(files, "vault", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "vault/")
		parts := strings.Split(rel, "/")
		for i, s := range parts {
			if strings.HasPrefix(s, "_") {
				parts[i] = "." + s[1:]
			}
		}
		out = append(out, File{Path: path.Join(parts...), Data: data})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Body is the starting body of a new entry of type typ; types without a
// template start empty.
func Body(typ string) string {
	data, _ := files.ReadFile("types/" + typ + ".md")
	return string(data)
}

// Unfilled reports whether body is still, apart from blank space, the
// body of one of the entries templates make: a new vault's me.md, or the
// starting body of an entry type. Such an entry says nothing yet, so
// nothing is to be learned, summarized or shown from its text.
func Unfilled(body string) bool {
	key := strings.Join(strings.Fields(body), " ")
	_, ok := unfilled()[key]
	return ok
}

// unfilled holds the template bodies, whitespace-collapsed.
var unfilled = sync.OnceValue(func() map[string]struct{} {
	set := map[string]struct{}{}
	add := func(body string) {
		if key := strings.Join(strings.Fields(body), " "); key != "" {
			set[key] = struct{}{}
		}
	}
	for _, f := range Vault() {
		if path.Ext(f.Path) != ".md" || f.Path == "CONTEXT.md" {
			continue
		}
		if e, err := entry.Parse(f.Data); err == nil {
			add(e.Body())
		}
	}
	types, _ := fs.ReadDir(files, "types")
	for _, d := range types {
		add(Body(strings.TrimSuffix(d.Name(), ".md")))
	}
	return set
})
