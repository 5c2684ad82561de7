package export

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/ctx0/ctx0"
	"github.com/ctx0/ctx0/internal/lazy"
	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/templates"
)

// guideTemplate is parsed on first use, not at start-up (see internal/lazy).
var guideTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New(guideFile).Parse(templates.ExportGuide()))
})

// guideData is what the CONTEXT.md template shows.
type guideData struct {
	ExportedAt string
	Commit     string
	Entries    int
	Notes      []string // what the export leaves out or changes
	Me         string   // link to me.md, if exported
	Flatten    bool
	Folders    []guideFolder
	Queries    bool
	Versions   bool
	Example    guideExample
	Fields     string
	Pinned     []guidePinned
}

type guideFolder struct {
	Name, Index, About string
	Entries            int
}

// guideExample fills the examples with what this export holds.
type guideExample struct {
	Name, Title, Link, File, Folder, Type, Tag string
}

type guidePinned struct {
	Title, File, Body string
}

// meta makes the files that carry the export's time: CONTEXT.md and
// .ctx0/stats.json.
func (s *set) meta(ctx context.Context, o Options, st *stats, when time.Time) ([]file, error) {
	st.ExportedAt = when
	sj, err := st.json()
	if err != nil {
		return nil, err
	}
	g, err := s.guide(ctx, o, st, when)
	if err != nil {
		return nil, err
	}
	return []file{{path: guideFile, data: g}, {path: statsFile, data: sj}}, nil
}

// guide renders CONTEXT.md: for an agent arriving cold, what the folder is,
// its layout with counts, how to search it, and the pinned entries.
func (s *set) guide(ctx context.Context, o Options, st *stats, when time.Time) ([]byte, error) {
	d := guideData{
		ExportedAt: when.UTC().Format("2006-01-02 15:04 UTC"),
		Commit:     shortHash(s.commit),
		Entries:    st.Entries,
		Notes:      notes(o, st),
		Flatten:    s.flatten,
		Queries:    s.queries != nil,
		Versions:   st.Versions > 0,
		Example:    s.example(),
		Fields:     guideSection("Frontmatter fields"),
	}
	if me := s.byName["me"]; me != nil {
		d.Me = me.file
	}
	d.Folders = s.guideFolders()
	for _, doc := range s.docs {
		if !doc.e.Pinned() {
			continue
		}
		body := doc.e.Body()
		if o.Minimal {
			body = cut(body)
		}
		body, err := s.rewrite(ctx, doc.name, body, fileHref(""), nil)
		if err != nil {
			return nil, err
		}
		d.Pinned = append(d.Pinned, guidePinned{Title: escapeLabel(doc.label()), File: relative("", doc.file), Body: strings.TrimSpace(body)})
	}
	var b strings.Builder
	if err := guideTemplate().Execute(&b, d); err != nil {
		return nil, fmt.Errorf("export: %s: %w", guideFile, err)
	}
	return []byte(b.String()), nil
}

// notes says what an export leaves out or changes, for the top of
// CONTEXT.md.
func notes(o Options, st *stats) []string {
	var out []string
	if len(o.Scope) > 0 {
		out = append(out, "Only the entries in "+quoteList(o.Scope)+"; links to other entries are left as text.")
	}
	if len(o.Exclude) > 0 {
		out = append(out, "Without the entries in "+quoteList(o.Exclude)+".")
	}
	if !o.Since.IsZero() {
		out = append(out, "Only the entries about what happened since "+o.Since.UTC().Format(time.RFC3339)+
			" (the session each was learned in, else the day it is filed under, else its last update).")
	}
	if !o.ChangedSince.IsZero() {
		out = append(out, "Only the entries changed since "+o.ChangedSince.UTC().Format(time.RFC3339)+".")
	}
	if !o.All {
		out = append(out, "Without archived and superseded entries: this is the memory in use.")
	}
	if o.Minimal {
		out = append(out, fmt.Sprintf("Minimal: each body is cut to its first %d characters; the frontmatter is whole.", MinimalChars))
	}
	if o.Redact {
		n := 0
		for _, c := range st.Redacted {
			n += c
		}
		out = append(out, fmt.Sprintf("Redacted: secrets (API keys, tokens, passwords, private keys) read `[REDACTED:kind]` (%s).", words.Plural(n, "secret", "secrets")))
	}
	if n := len(st.Skipped); n > 0 {
		out = append(out, fmt.Sprintf("%s that could not be read: `.ctx0/stats.json` lists them.", words.Plural(n, "entry file", "entry files")))
	}
	return out
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, it := range items {
		q[i] = "`" + it + "`"
	}
	return strings.Join(q, ", ")
}

// guideFolders lists the top folders of the vault that the export holds
// entries from, with their counts and what the vault's guide says they hold.
func (s *set) guideFolders() []guideFolder {
	about := folderAbout()
	counts := map[string]int{}
	types := map[string]map[string]int{}
	for _, d := range s.docs {
		top, _, ok := strings.Cut(d.name, "/")
		if !ok {
			continue
		}
		counts[top]++
		if types[top] == nil {
			types[top] = map[string]int{}
		}
		types[top][d.e.Type()]++
	}
	var out []guideFolder
	for _, top := range slices.Sorted(maps.Keys(counts)) {
		f := guideFolder{Name: top, Entries: counts[top], About: about[top]}
		if f.About == "" {
			f.About = typeList(types[top])
		}
		if !s.flatten {
			f.Index = path.Join(top, indexFile)
		}
		out = append(out, f)
	}
	return out
}

// typeList describes a folder by the types of its entries.
func typeList(types map[string]int) string {
	var names []string
	for t := range types {
		if t == "" {
			t = "no type"
		}
		names = append(names, t)
	}
	sort.Strings(names)
	return "entries of type " + strings.Join(names, ", ")
}

// example picks what the examples of CONTEXT.md show: an entry in a
// folder, as another folder's entry links to it, and the commonest type and
// tag.
func (s *set) example() guideExample {
	ex := guideExample{Name: "contacts/sarah-chen", Title: "Sarah Chen", Link: "../contacts/sarah-chen.md",
		File: "sarah-chen.md", Folder: "contacts", Type: "contact", Tag: "investor"}
	types, tags := map[string]int{}, map[string]int{}
	found := false
	for _, d := range s.docs {
		if t := d.e.Type(); t != "" {
			types[t]++
		}
		for _, t := range d.e.Tags() {
			tags[t]++
		}
		if !found && strings.Contains(d.name, "/") {
			found = true
			ex.Name, ex.Title, ex.File, ex.Folder = d.name, d.label(), path.Base(d.file), folderOf(d.file)
			ex.Link = relative("elsewhere", d.file)
			if s.flatten {
				ex.Link = relative("", d.file)
			}
		}
	}
	if t := commonest(types); t != "" {
		ex.Type = t
	}
	if t := commonest(tags); t != "" {
		ex.Tag = t
	}
	return ex
}

func commonest(m map[string]int) string {
	best := ""
	for k, n := range m {
		if n > m[best] || n == m[best] && k < best {
			best = k
		}
	}
	return best
}

// guideSection is the text of a section of the vault's own CONTEXT.md, so
// that an export explains the fields in the same words.
func guideSection(title string) string {
	_, rest, ok := strings.Cut(ctx0.VaultGuide, "\n## "+title+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSpace(rest)
}

// folderRow is a row of the vault guide's layout table: | `contacts/` | … |.
var folderRow = lazy.Regexp("(?m)^\\| `([^`/]+)/[^`]*` \\| (.+) \\|$")

// folderAbout is what the vault's guide says each standard folder holds.
func folderAbout() map[string]string {
	out := map[string]string{}
	for _, m := range folderRow().FindAllStringSubmatch(guideSection("Layout"), -1) {
		out[m[1]] = m[2]
	}
	return out
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	if h == "" {
		return "none yet"
	}
	return h
}
