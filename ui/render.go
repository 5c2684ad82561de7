package ui

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"go.abhg.dev/goldmark/wikilink"
)

// assets are the page's templates and its static files (a style sheet
// and a little script); nothing is fetched from elsewhere.
//
//go:embed assets/static assets/templates
var embedded embed.FS

// assets serves /static/ from the embedded files only.
var assets = func() fs.FS {
	sub, err := fs.Sub(embedded, "assets")
	if err != nil {
		panic(err)
	}
	return sub
}()

var funcs = template.FuncMap{
	"short": func(h string) string { return h[:min(10, len(h))] },
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.Local().Format("2006-01-02 15:04")
	},
	"entryURL": entryURL,
	"join":     strings.Join,
	"undoRun": func(token, id, path string) undoButton {
		return undoButton{Token: token, Run: id, Path: path, Label: label(path, "Undo run")}
	},
	"undoCommit": func(token, hash, path string) undoButton {
		return undoButton{Token: token, Commit: hash, Path: path, Label: label(path, "Undo")}
	},
	"lines": func(patch string) []string { return strings.Split(strings.TrimSuffix(patch, "\n"), "\n") },
	"lineClass": func(line string) string {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"), strings.HasPrefix(line, "diff "):
			return "head"
		case strings.HasPrefix(line, "+"):
			return "add"
		case strings.HasPrefix(line, "-"):
			return "del"
		case strings.HasPrefix(line, "@@"):
			return "hunk"
		}
		return ""
	},
}

// undoButton is the form that undoes a run or a commit, or one file of it.
type undoButton struct {
	Token, Run, Commit, Path, Label, Confirm string
}

func label(path, whole string) string {
	if path != "" {
		return "Undo this file"
	}
	return whole
}

// pages are the templates, each a page on the shared layout, parsed on
// first use: every ctx0 command links this package, and parsing them at
// start-up was a millisecond and a half of each command's start.
var pages = sync.OnceValue(func() map[string]*template.Template {
	m := map[string]*template.Template{}
	for _, name := range []string{"browse", "entry", "ask", "review", "change", "conversation", "conflicts", "health", "error"} {
		m[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(embedded,
			"assets/templates/layout.html", "assets/templates/"+name+".html"))
	}
	return m
})

// entryLinks resolves [[wikilinks]] to the page of the entry they name;
// the entry page resolves the name as ctx0 show does (name, slug, title
// or alias).
type entryLinks struct{}

func (entryLinks) ResolveWikilink(n *wikilink.Node) ([]byte, error) {
	if len(n.Target) == 0 {
		return nil, nil // a link to a heading of the same entry
	}
	return []byte(entryURL(string(n.Target))), nil
}

// markdown renders bodies without raw HTML (goldmark's default drops it
// and dangerous link schemes), so an entry cannot script the page. It is
// made on first use, as pages are.
var markdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(
		extension.GFM,
		&wikilink.Extender{Resolver: entryLinks{}},
	))
})

func renderMarkdown(body string) (template.HTML, error) {
	var b bytes.Buffer
	if err := markdown().Convert([]byte(body), &b); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}
