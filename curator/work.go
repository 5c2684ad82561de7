package curator

import (
	"context"
	"fmt"

	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// doc is one entry file as the run sees it.
type doc struct {
	name string
	path string
	e    *entry.Entry
	// gone is set when the run deletes the file (a merged duplicate, or the
	// old place of a moved entry).
	gone bool
	// dirty is set when the run changes the file.
	dirty bool
}

func (d *doc) live() bool {
	return !d.gone && d.e.SupersededBy() == "" && d.e.Archived().IsZero() && !strings.HasPrefix(d.name, "archive/")
}

func (d *doc) title() string {
	if t := strings.TrimSpace(d.e.Title()); t != "" {
		return t
	}
	return vault.Slug(d.name)
}

// lastChange is when the entry last changed: updated, else created.
func (d *doc) lastChange() time.Time {
	if u := d.e.Updated(); !u.IsZero() {
		return u
	}
	return d.e.Created()
}

// work is the vault as of the run's base, with the run's changes applied
// in memory as the steps make them.
type work struct {
	now     time.Time
	cfg     Config
	docs    map[string]*doc // by name
	paths   map[string]bool // every file path, taken or not
	changes []Change
	notes   []string
}

// load reads every entry file of tree. Files that do not parse are left
// alone: doctor reports them.
func load(ctx context.Context, tree *vault.Tree, now time.Time, cfg Config) (*work, []string, error) {
	files, err := tree.List(ctx, "")
	if err != nil {
		return nil, nil, fmt.Errorf("list entries: %w", err)
	}
	w := &work{now: now.UTC().Truncate(time.Second), cfg: cfg, docs: map[string]*doc{}, paths: map[string]bool{}}
	var problems []string
	for _, p := range files {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		w.paths[p] = true
		name, ok := vault.NameOf(p)
		if !ok {
			continue
		}
		data, err := tree.Read(ctx, p)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", p, err)
		}
		e, err := entry.Parse(data)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		w.docs[name] = &doc{name: name, path: p, e: e}
	}
	return w, problems, nil
}

// names lists the entries in name order, deleted ones left out.
func (w *work) names() []string {
	out := make([]string, 0, len(w.docs))
	for n, d := range w.docs {
		if !d.gone {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// liveDocs lists the entries in use (not archived, superseded or deleted),
// in name order.
func (w *work) liveDocs() []*doc {
	var out []*doc
	for _, n := range w.names() {
		if d := w.docs[n]; d.live() {
			out = append(out, d)
		}
	}
	return out
}

func (w *work) change(c Change) { w.changes = append(w.changes, c) }

// touch sets updated to the run's time: the entry's content changed.
func (w *work) touch(d *doc) error {
	d.dirty = true
	return d.e.Set(entry.FieldUpdated, w.now)
}

// freeName is vault.FreeName over the run's view: a name no entry of the
// run and no file of its commit holds.
func (w *work) freeName(name string) (string, error) {
	return vault.FreeName(name, func(n string) (bool, error) {
		_, ok := w.docs[n]
		return ok || w.paths[vault.EntryPath(n)], nil
	})
}

// create adds a new entry.
func (w *work) create(name string, e *entry.Entry) *doc {
	d := &doc{name: name, path: vault.EntryPath(name), e: e, dirty: true}
	w.docs[name] = d
	w.paths[d.path] = true
	return d
}

// move gives d a new name: its old file is deleted and a new one made.
func (w *work) move(d *doc, to string) *doc {
	d.gone = true
	nd := w.create(to, d.e)
	return nd
}

// writer is where a run's changes go: an agent.Session.
type writer interface {
	Write(p string, data []byte) error
	Delete(p string) error
}

// planned is the writer of a dry run: it takes the files a run would
// write and keeps none, so that a dry run goes through flush as a run
// does and stops before the commit.
type planned struct{}

func (planned) Write(string, []byte) error { return nil }
func (planned) Delete(string) error        { return nil }

// flush hands the run's changes to s and returns the paths changed.
func (w *work) flush(s writer) ([]string, error) {
	var out []string
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for n := range w.docs {
			if !yield(n) {
				return
			}
		}
	}) {
		d := w.docs[n]
		switch {
		case d.gone:
			if err := s.Delete(d.path); err != nil {
				return nil, fmt.Errorf("delete %s: %w", d.path, err)
			}
			out = append(out, d.path)
		case d.dirty:
			if err := s.Write(d.path, d.e.Bytes()); err != nil {
				return nil, fmt.Errorf("write %s: %w", d.path, err)
			}
			out = append(out, d.path)
		}
	}
	sort.Strings(out)
	return out, nil
}

// resolver finds the entry a link target or a name means: an exact
// name, a unique slug, a title or an alias, ignoring case.
type resolver struct {
	byName map[string]string
	byKey  map[string]string // slugs, titles and aliases, lowercased; "" when ambiguous
}

func (w *work) resolver() *resolver {
	r := &resolver{byName: map[string]string{}, byKey: map[string]string{}}
	add := func(k, name string) {
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "" {
			return
		}
		if old, ok := r.byKey[k]; ok && old != name {
			r.byKey[k] = ""
			return
		}
		r.byKey[k] = name
	}
	for _, n := range w.names() {
		d := w.docs[n]
		r.byName[n] = n
		add(vault.Slug(n), n)
		add(d.e.Title(), n)
		for _, a := range d.e.Aliases() {
			add(a, n)
			if an, err := vault.NormalizeName(a); err == nil {
				add(an, n)
			}
		}
	}
	return r
}

func (r *resolver) resolve(target string) string {
	if n, err := vault.NormalizeName(target); err == nil {
		if _, ok := r.byName[n]; ok {
			return n
		}
		if v := r.byKey[n]; v != "" {
			return v
		}
	}
	return r.byKey[strings.ToLower(strings.TrimSpace(target))]
}

// linksOf returns the names of the entries d links to, in its body and
// its links field, as far as they resolve.
func (w *work) linksOf(r *resolver, d *doc) map[string]bool {
	out := map[string]bool{}
	for _, l := range entry.Links([]byte(d.e.Body())) {
		var n string
		if l.Kind == entry.Markdown {
			n, _ = vault.MarkdownTarget(d.name, l.Target)
		} else {
			n = r.resolve(l.Target)
		}
		if n != "" {
			out[n] = true
		}
	}
	for _, l := range d.e.LinkNames() {
		if n := r.resolve(l); n != "" {
			out[n] = true
		}
	}
	return out
}

// relink rewrites the links of d that lead to old so they lead to name,
// as vault's rename does.
func relink(d *doc, old, name string) (bool, error) {
	changed, err := vault.RelinkEntry(d.e, d.name, old, name)
	if changed {
		d.dirty = true
	}
	return changed, err
}

// topFolder is the first segment of a name.
func topFolder(name string) string {
	f, _, _ := strings.Cut(name, "/")
	if !strings.Contains(name, "/") {
		return ""
	}
	return f
}

// ownsName tells whether s is already one of d's names: its name, slug,
// title or an alias, ignoring case.
func ownsName(d *doc, s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == strings.ToLower(d.name) || s == strings.ToLower(vault.Slug(d.name)) || s == strings.ToLower(d.e.Title()) {
		return true
	}
	for _, a := range d.e.Aliases() {
		if strings.ToLower(a) == s {
			return true
		}
	}
	return false
}
