package librarian

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/redact"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// FieldConversation is the frontmatter field that ties what the librarian
// filed to its conversation (ConversationRef).
const FieldConversation = sessions.RefField

// Files is what the writer needs of a run: the vault as the run sees it,
// and somewhere to put its writes. *agent.Session is one: Read returns the
// run's own pending write first, then the base commit's file, and an error
// that errors.Is fs.ErrNotExist for a missing file; Write checks the path
// (entry files only, never .git/ or .ctx0/) and keeps the data until the
// run finishes.
type Files interface {
	Read(ctx context.Context, path string) ([]byte, error)
	Write(path string, data []byte) error
}

// Searcher finds the entries a new fact or preference may repeat.
// *index.Index is one. Its results are only candidates: the writer reads
// each one through Files, as the run sees it.
type Searcher interface {
	Search(ctx context.Context, q index.Query) ([]index.Result, error)
}

// Limits bound what one run writes, so a runaway extraction (or a
// transcript crafted to cause one) cannot flood the vault.
type Limits struct {
	// EntryChars caps the text of one item; longer text is cut, with a
	// note. By default it is the vault's remember.max_chars.
	EntryChars int
	// SectionChars caps one conversation's episode section.
	SectionChars int
	// Files caps the entry files one run creates or changes; items beyond
	// it are left out, and the episode says how many.
	Files int
}

// DefaultLimits are the limits of a run that sets none; an item is held
// to what remember takes from an agent by default.
var DefaultLimits = Limits{EntryChars: vault.DefaultConfig().Remember.MaxChars, SectionChars: 6000, Files: 60}

// Writer files an Extraction into the vault through a run, keeping each
// category's mutability, since some things are said once and others
// change: the episode section is appended to the day's episode in time
// order; a project's activity is appended and
// its overview replaced; a person's entry is read and extended; a
// milestone is written once and never again; facts and preferences update
// or supersede the entry that already says them instead of repeating it;
// questions are appended to one log. It is deterministic: the same
// extraction of the same conversation against the same vault writes the
// same bytes, and a conversation already filed writes nothing.
type Writer struct {
	Files  Files
	Search Searcher // nil: candidates are not searched for
	Config vault.Config
	Now    time.Time
	// Loc is the time zone of episode days and section times.
	Loc    *time.Location
	Limits Limits
}

// Filed says what Apply did.
type Filed struct {
	Conversation string `json:"conversation"`
	Episode      string `json:"episode"`
	// Already is set when the conversation had been filed before: nothing
	// was written.
	Already bool     `json:"already,omitempty"`
	Created []string `json:"created"`
	Updated []string `json:"updated"`
	// Notes say what was left out or kept as it was, and why.
	Notes []string `json:"notes,omitempty"`
}

// apply is one Apply: the conversation, and what it has written so far.
type apply struct {
	*Writer
	ctx     context.Context
	conv    sessions.Conversation
	ref     string
	episode string // the episode entry's name
	project string // the project entry's name, "" if none
	day     string // 2006-01-02 in Loc
	filed   Filed
	written map[string]bool
	links   []string // what the episode section lists as filed
	leftOut int
	byText  map[string]string // normalized text → name, for this run's entries
	persons []person          // the people the extraction names
}

// person is someone the conversation is about, and their entry.
type person struct{ name, entry string }

// Apply files x, extracted from conv.
func (w *Writer) Apply(ctx context.Context, conv sessions.Conversation, x Extraction) (Filed, error) {
	cfg := *w
	if cfg.Loc == nil {
		cfg.Loc = time.UTC
	}
	if cfg.Limits == (Limits{}) {
		cfg.Limits = DefaultLimits
		if n := cfg.Config.Remember.MaxChars; n > 0 {
			// An item is held to what remember takes from an agent.
			cfg.Limits.EntryChars = n
		}
	}
	w = &cfg
	x = redacted(x)
	first := conv.First.In(w.Loc)
	a := &apply{Writer: w, ctx: ctx, conv: conv, ref: ConversationRef(conv), day: first.Format("2006-01-02"),
		written: map[string]bool{}, byText: map[string]string{}}
	a.filed = Filed{Conversation: a.ref, Created: []string{}, Updated: []string{}}
	var err error
	if a.episode, err = w.episodeName(first); err != nil {
		return Filed{}, err
	}
	a.filed.Episode = a.episode
	ep, err := a.read(a.episode)
	if err != nil {
		return Filed{}, err
	}
	if done, err := a.filedBefore(ep); err != nil || done {
		a.filed.Already = done
		return a.filed, err
	}
	// The project is where the session worked, else the first the
	// extraction names.
	switch {
	case conv.Project != "":
		a.project, err = w.name("project", cmp.Or(vault.ProjectSlug(redact.String(conv.Project)), "untitled"))
	case len(x.Projects) > 0:
		a.project, err = w.name("project", cmp.Or(vault.ProjectSlug(x.Projects[0].Name), "untitled"))
	}
	if err != nil {
		return Filed{}, err
	}
	if a.project != "" && !slices.ContainsFunc(x.Projects, func(p Project) bool { return vault.ProjectSlug(p.Name) == vault.Slug(a.project) }) {
		// Every entry links the project: it must exist, and the
		// conversation is part of its activity.
		x.Projects = append(x.Projects, Project{Name: vault.Slug(a.project), Activity: x.Episode.Title})
	}
	for _, p := range x.People {
		n, err := w.name("contact", slugOf(p.Name))
		if err != nil {
			return Filed{}, err
		}
		if name := strings.TrimSpace(p.Name); len(name) > 1 {
			a.persons = append(a.persons, person{name, n})
		}
	}
	steps := []func() error{
		func() error { return a.projects(x.Projects) },
		func() error { return a.items("preference", nil, x.Preferences, true) },
		func() error { return a.items("preference", []string{"correction"}, x.Corrections, true) },
		func() error { return a.items("fact", nil, x.Facts, true) },
		func() error {
			return a.items("fact", []string{"debug", "error-resolution"}, resolutionItems(x.Resolutions), true)
		},
		func() error { return a.items("decision", nil, x.Decisions, false) },
		func() error { return a.items("insight", nil, x.Insights, false) },
		func() error { return a.milestones(x.Milestones) },
		func() error { return a.people(x.People) },
		func() error { return a.questions(x.Questions) },
		func() error { return a.episodeSection(ep, x.Episode) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return Filed{}, err
		}
		if err := ctx.Err(); err != nil {
			return Filed{}, err
		}
	}
	return a.filed, nil
}

// filedBefore reports whether the conversation has a section in the day's
// episode ep, or in the episode of the day before or after: a run in
// another time zone (another machine syncing the vault) puts it there.
func (a *apply) filedBefore(ep *entry.Entry) (bool, error) {
	if ep != nil && strings.Contains(ep.Body(), marker(a.ref)) {
		return true, nil
	}
	for _, d := range []int{-1, 1} {
		day := a.conv.First.In(a.Loc).AddDate(0, 0, d)
		name, err := a.Writer.episodeName(day)
		if err != nil {
			return false, err
		}
		e, err := a.read(name)
		if err != nil {
			return false, err
		}
		if e != nil && strings.Contains(e.Body(), marker(a.ref)) {
			a.filed.Episode = name
			return true, nil
		}
	}
	return false, nil
}

// name is the entry name of slug in the folder of type typ. Each segment
// of slug is normalized on its own, and one that is empty, hidden or
// climbing becomes "untitled": whatever a transcript or a model says, the
// name stays inside the type's folder.
func (w *Writer) name(typ, slug string) (string, error) {
	folder, err := w.Config.Folder(typ, w.Now)
	if err != nil {
		return "", fmt.Errorf("file into the vault: %w", err)
	}
	parts := strings.Split(slug, "/")
	for i, p := range parts {
		n, err := vault.NormalizeName(strings.ReplaceAll(p, ".", " "))
		if err != nil {
			n = "untitled"
		}
		parts[i] = n
	}
	return vault.NormalizeName(folder + "/" + strings.Join(parts, "/"))
}

// episodeName is the name of the episode of day, in the month's folder.
func (w *Writer) episodeName(day time.Time) (string, error) {
	folder, err := w.Config.Folder("episode", day)
	if err != nil {
		return "", fmt.Errorf("file into the vault: %w", err)
	}
	return vault.NormalizeName(folder + "/" + day.Format("2006-01-02"))
}

// slugOf is the file name of an entry titled title.
func slugOf(title string) string { return cmp.Or(vault.SlugFromTitle(title), "untitled") }

// read returns the entry name as the run sees it, nil if there is none.
func (a *apply) read(name string) (*entry.Entry, error) {
	data, err := a.Files.Read(a.ctx, vault.EntryPath(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	e, err := entry.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return e, nil
}

// readOrNew returns the entry name as the run sees it, or, if there is
// none, a new one with m and body; created says which.
func (a *apply) readOrNew(name string, m meta, body string) (e *entry.Entry, created bool, err error) {
	if e, err = a.read(name); err != nil || e != nil {
		return e, false, err
	}
	e, err = a.newEntry(m, body)
	return e, true, err
}

// datedLine is a list item saying text was learned today, in the episode.
func (a *apply) datedLine(text string) string {
	return fmt.Sprintf("- %s: %s ([[%s]])", a.day, words.OneLine(a.limit(text, text)), a.episode)
}

// write records e as name's new content, dated as updated unless created,
// counting it against the run's limit; ok is false when the limit left it
// out.
func (a *apply) write(name string, e *entry.Entry, created bool) (ok bool, err error) {
	if !a.written[name] && len(a.written) >= a.Limits.Files {
		a.leftOut++
		return false, nil
	}
	if !created {
		if err := a.touch(e); err != nil {
			return false, err
		}
	}
	if err := a.Files.Write(vault.EntryPath(name), e.Bytes()); err != nil {
		return false, fmt.Errorf("write %s: %w", name, err)
	}
	if !a.written[name] {
		a.written[name] = true
		if created {
			a.filed.Created = append(a.filed.Created, name)
		} else {
			a.filed.Updated = append(a.filed.Updated, name)
		}
	}
	return true, nil
}

// free is name, or name-2, name-3… the first that the run sees no file at.
func (a *apply) free(name string) (string, error) {
	return vault.FreeName(name, func(n string) (bool, error) {
		e, err := a.read(n)
		if err != nil && !errors.Is(err, entry.ErrFrontmatter) {
			return false, err
		}
		return e != nil || err != nil, nil
	})
}

// meta is a new entry's frontmatter.
type meta struct {
	title, typ string
	tags       []string
	links      []string
	ref        bool // set the conversation field
	own        bool // the entry of the session's project itself
}

// newEntry makes an entry, source librarian, with the conversation it
// came from.
func (a *apply) newEntry(m meta, body string) (*entry.Entry, error) {
	vm := vault.Meta{Title: m.title, Type: m.typ, Tags: m.tags, Source: "librarian", Links: m.links}
	// What was learned belongs to the project, and so does the project's
	// own entry (another project's session has no use for it); a day's
	// episode, a log or a person span projects.
	if a.project != "" && (m.ref && m.typ != "contact" || m.own) {
		vm.Project = vault.Slug(a.project)
	}
	if m.ref {
		vm.Conversation = a.ref
	}
	if body != "" {
		body = strings.TrimRight(body, "\n") + "\n"
	}
	return vault.NewEntry(vm, a.Now, body)
}

// touch marks an existing entry as changed now.
func (a *apply) touch(e *entry.Entry) error {
	return e.Set(entry.FieldUpdated, a.Now.UTC().Truncate(time.Second))
}

// limit cuts an item's text to the entry limit, noting it.
func (a *apply) limit(what, s string) string {
	if len([]rune(s)) <= a.Limits.EntryChars {
		return s
	}
	a.filed.Notes = append(a.filed.Notes, fmt.Sprintf("%s: cut to %d characters", cut(what, 60), a.Limits.EntryChars))
	return cut(s, a.Limits.EntryChars) + " (cut: over the librarian's entry limit)"
}

// source is the line that dates an item and links it to where it came
// from: the episode, the project, and the people it names.
func (a *apply) source(text string, ev Evidence) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Learned %s in [[%s]]", a.day, a.episode)
	var about []string
	if a.project != "" {
		about = append(about, fmt.Sprintf("project [[%s]]", a.project))
	}
	for _, p := range a.named(text) {
		about = append(about, fmt.Sprintf("[[%s]]", p))
	}
	if len(about) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(about, ", "))
	}
	b.WriteString(".")
	if q := strings.TrimSpace(ev.Quote); q != "" {
		fmt.Fprintf(&b, "\n\n> %s", strings.ReplaceAll(q, "\n", " "))
	}
	return b.String()
}

// itemLinks are the links of a new item about text: the episode, the
// project, and the people it names.
func (a *apply) itemLinks(text string, more ...string) []string {
	links := []string{a.episode}
	if a.project != "" {
		links = append(links, a.project)
	}
	links = append(links, a.named(text)...)
	return append(links, more...)
}

// named are the entries of the conversation's people that text names.
func (a *apply) named(text string) []string {
	var out []string
	lower := strings.ToLower(text)
	for _, p := range a.persons {
		if strings.Contains(lower, strings.ToLower(p.name)) {
			out = appendNew(out, p.entry)
		}
	}
	return out
}

// items files facts, preferences, decisions or insights as entries of
// type typ. With mutable, an entry that already says the same is updated
// instead, and one that says nearly the same (or that the item replaces)
// is superseded.
func (a *apply) items(typ string, tags []string, items []Item, mutable bool) error {
	for _, it := range items {
		text := a.limit(it.Text, strings.TrimSpace(it.Text))
		if text == "" {
			continue
		}
		if n, ok := a.byText[words.Normal(text)]; ok {
			a.links = appendNew(a.links, n)
			continue
		}
		same, similar, err := a.candidates(typ, text, it.Replaces)
		if err != nil {
			return err
		}
		if same != "" {
			if err := a.reinforce(same); err != nil {
				return err
			}
			a.byText[words.Normal(text)] = same
			continue
		}
		if !mutable {
			similar = ""
		}
		title := it.Title
		if title == "" {
			title = titleOf(text)
		}
		named := title
		if strings.HasPrefix(title, text+": ") {
			// A decision titled with its reason is named by the choice.
			named = text
		}
		name, err := a.Writer.name(typ, slugOf(named))
		if err != nil {
			return err
		}
		if name, err = a.free(name); err != nil {
			return err
		}
		body := text
		if it.Why != "" {
			body += "\n\n## Why\n\n" + a.limit(it.Why, strings.TrimSpace(it.Why))
		}
		body += "\n\n" + a.source(text, it.Evidence)
		var more []string
		if similar != "" {
			more = append(more, similar)
			body += fmt.Sprintf("\n\nReplaces [[%s]].", similar)
		}
		e, err := a.newEntry(meta{title: cut(title, 100), typ: typ, tags: tags, links: a.itemLinks(text, more...), ref: true}, body)
		if err != nil {
			return err
		}
		ok, err := a.write(name, e, true)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		a.byText[words.Normal(text)] = name
		a.links = append(a.links, name)
		if similar != "" {
			if err := a.supersede(similar, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// Thresholds of likeness between an item and an entry, by the share of
// their content words in common: above same they say the same thing, above
// similar the new one is a changed version of the old.
const (
	sameLikeness    = 0.8
	similarLikeness = 0.5
)

// candidates searches for entries of type typ that say the same as text
// (same) or that it replaces (similar): those the item names in replaces,
// by what they state or by their very title, else the most alike above the
// threshold. Each is read as the run sees it; superseded and archived
// entries are not candidates.
func (a *apply) candidates(typ, text, replaces string) (same, similar string, err error) {
	if a.Search == nil {
		return "", "", nil
	}
	best := 0.0
	about := a.named(text)
	for _, q := range []string{text, replaces} {
		content := contentWords(q)
		if len(content) == 0 {
			continue
		}
		res, err := a.Search.Search(a.ctx, index.Query{Text: strings.Join(content, " OR "), Type: typ, Limit: 8})
		if err != nil {
			return "", "", fmt.Errorf("search for entries like %q: %w", cut(q, 60), err)
		}
		for _, r := range res {
			e, err := a.read(r.Name)
			if err != nil || e == nil || e.SupersededBy() != "" || !e.Archived().IsZero() {
				continue
			}
			stated := statement(e.Body())
			if l := likeness(text, stated); l >= sameLikeness {
				return r.Name, "", nil
			}
			titled := q == replaces && words.Normal(q) == words.Normal(e.Title())
			if links := e.LinkNames(); !titled && slices.ContainsFunc(about, func(p string) bool { return !slices.Contains(links, p) }) {
				// A change about someone replaces nothing said of
				// someone else: "Fatima moved to Lisbon" is no new
				// version of "Mateo moved to Lisbon".
				continue
			}
			l := likeness(q, stated)
			if titled {
				// What an item replaces may be the entry's title
				// ("Where Mateo lives").
				l = 1
			}
			if q == replaces && l >= similarLikeness || l > best && l >= similarLikeness {
				best, similar = l, r.Name
				if q == replaces {
					best = 2 // what the item names beats what only looks alike
				}
			}
		}
	}
	return "", similar, nil
}

// statement is the first paragraph of an entry's body: what it states.
func statement(body string) string {
	p, _, _ := strings.Cut(strings.TrimSpace(body), "\n\n")
	return p
}

// reinforce records that a conversation said again what an entry holds,
// which makes it more certain: it links the episode and is updated now.
func (a *apply) reinforce(name string) error {
	e, err := a.read(name)
	if err != nil || e == nil {
		return err
	}
	links := e.LinkNames()
	a.links = appendNew(a.links, name)
	if slices.Contains(links, a.episode) {
		return nil
	}
	if err := e.Set(entry.FieldLinks, append(links, a.episode)); err != nil {
		return fmt.Errorf("link %s to %s: %w", name, a.episode, err)
	}
	_, err = a.write(name, e, false)
	return err
}

// supersede marks old as replaced by name: the old entry stays for
// history, and searches prefer the new one.
func (a *apply) supersede(old, name string) error {
	e, err := a.read(old)
	if err != nil || e == nil {
		return err
	}
	if err := e.Set(entry.FieldSupersededBy, name); err != nil {
		return fmt.Errorf("supersede %s: %w", old, err)
	}
	_, err = a.write(old, e, false)
	return err
}

// projects appends each project's activity and replaces its overview.
func (a *apply) projects(ps []Project) error {
	for _, p := range ps {
		name := a.project
		if n := vault.ProjectSlug(p.Name); a.project == "" || vault.Slug(a.project) != n {
			var err error
			if name, err = a.Writer.name("project", cmp.Or(n, "untitled")); err != nil {
				return err
			}
		}
		fresh := "## Overview\n\n"
		if a.conv.Project != "" && name == a.project {
			fresh += fmt.Sprintf("Work in `%s`.\n", redact.String(a.conv.Project))
		}
		fresh += "\n## Activity\n"
		e, created, err := a.readOrNew(name, meta{title: p.Name, typ: "project", own: name == a.project}, fresh)
		if err != nil {
			return err
		}
		body := e.Body()
		if o := strings.TrimSpace(p.Overview); o != "" {
			body = replaceSection(body, "Overview", a.limit(o, o))
		}
		line := a.datedLine(p.Activity)
		if !strings.Contains(body, line) {
			body = appendToSection(body, "Activity", line)
		}
		if body == e.Body() && !created {
			continue
		}
		e.SetBody(body)
		if _, err := a.write(name, e, created); err != nil {
			return err
		}
		a.links = appendNew(a.links, name)
	}
	return nil
}

// people extends each person's entry with what was learned, dated.
func (a *apply) people(ps []Person) error {
	for _, p := range ps {
		name, err := a.Writer.name("contact", slugOf(p.Name))
		if err != nil {
			return err
		}
		e, created, err := a.readOrNew(name, meta{title: p.Name, typ: "contact", links: a.itemLinks(""), ref: true}, "## Notes\n")
		if err != nil {
			return err
		}
		line := a.datedLine(p.Note)
		if strings.Contains(e.Body(), line) {
			continue
		}
		e.SetBody(appendToSection(e.Body(), "Notes", line))
		if _, err := a.write(name, e, created); err != nil {
			return err
		}
		a.links = appendNew(a.links, name)
	}
	return nil
}

// milestones writes each milestone once: an existing one is never
// rewritten.
func (a *apply) milestones(ms []Item) error {
	for _, m := range ms {
		title := m.Title
		if title == "" {
			title = titleOf(m.Text)
		}
		name, err := a.Writer.name("milestone", a.day+"-"+slugOf(title))
		if err != nil {
			return err
		}
		e, err := a.read(name)
		if err != nil {
			return err
		}
		if e != nil {
			a.filed.Notes = append(a.filed.Notes, fmt.Sprintf("%s: milestones are not rewritten; kept as it was", name))
			a.links = appendNew(a.links, name)
			continue
		}
		body := "## What was reached\n\n" + a.limit(m.Text, m.Text) + "\n\n" + a.source(m.Text, m.Evidence)
		if e, err = a.newEntry(meta{title: cut(title, 100), typ: "milestone", links: a.itemLinks(m.Text), ref: true}, body); err != nil {
			return err
		}
		ok, err := a.write(name, e, true)
		if err != nil {
			return err
		}
		if ok {
			a.links = append(a.links, name)
		}
	}
	return nil
}

// questionsLog is the one log the librarian's open questions go to.
const questionsLog = "librarian-questions"

// questions appends the open questions to the questions log, under a
// section of their own for this conversation.
func (a *apply) questions(qs []Item) error {
	if len(qs) == 0 {
		return nil
	}
	name, err := a.Writer.name("log", questionsLog)
	if err != nil {
		return err
	}
	e, created, err := a.readOrNew(name, meta{title: "Librarian questions", typ: "log"},
		"Questions the librarian could not answer from a conversation. Answer one by editing the entry it concerns, then delete it here.\n")
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", a.heading())
	for _, q := range qs {
		fmt.Fprintf(&b, "- %s ([[%s]])\n", words.OneLine(a.limit(q.Text, q.Text)), a.episode)
	}
	e.SetBody(insertSection(e.Body(), a.heading(), b.String()))
	_, err = a.write(name, e, created)
	a.links = appendNew(a.links, name)
	return err
}

// heading is the dated heading of this conversation's sections, which the
// append-only merge orders by.
func (a *apply) heading() string {
	return fmt.Sprintf("## %s", a.conv.First.In(a.Loc).Format("2006-01-02 15:04"))
}

// marker is the line of an episode section that names its conversation,
// by which a conversation already filed is recognized.
func marker(ref string) string { return sessions.Marker(ref) }

// episodeSection adds this conversation's section to the day's episode,
// in time order, listing what was filed.
func (a *apply) episodeSection(ep *entry.Entry, x Episode) error {
	created := ep == nil
	if created {
		var err error
		if ep, err = a.newEntry(meta{title: a.day, typ: "episode"}, ""); err != nil {
			return err
		}
	}
	var b strings.Builder
	title := words.OneLine(x.Title)
	fmt.Fprintf(&b, "%s %s\n\n", a.heading(), title)
	fmt.Fprintf(&b, "%s (%s, %d messages", marker(a.ref), a.conv.Source, a.conv.Messages)
	if a.project != "" {
		fmt.Fprintf(&b, ", project [[%s]]", a.project)
	}
	b.WriteString(")\n\n")
	for _, f := range []struct{ label, text string }{{"Asked", x.Request}, {"Done", x.Done}, {"Outcome", x.Outcome}} {
		if t := words.OneLine(f.text); t != "" {
			fmt.Fprintf(&b, "- **%s:** %s\n", f.label, t)
		}
	}
	for _, l := range []struct {
		label string
		list  []string
	}{{"Files written", x.Files}, {"Commands run", x.Commands}} {
		if len(l.list) > 0 {
			fmt.Fprintf(&b, "- **%s:** %s\n", l.label, codeList(l.list, 10))
		}
	}
	if len(a.links) > 0 {
		var ls []string
		for _, n := range a.links {
			ls = append(ls, "[["+n+"]]")
		}
		fmt.Fprintf(&b, "- **Filed:** %s\n", strings.Join(ls, ", "))
	}
	if a.leftOut > 0 {
		fmt.Fprintf(&b, "- **Left out:** %d more entries, over the limit of %d files a librarian run writes\n", a.leftOut, a.Limits.Files)
		a.filed.Notes = append(a.filed.Notes, fmt.Sprintf("%d entries left out: over the limit of %d files a run writes", a.leftOut, a.Limits.Files))
	}
	section := b.String()
	if len([]rune(section)) > a.Limits.SectionChars {
		section = cut(section, a.Limits.SectionChars) + "\n\n(cut: over the librarian's section limit)\n"
		a.filed.Notes = append(a.filed.Notes, fmt.Sprintf("episode section cut to %d characters", a.Limits.SectionChars))
	}
	ep.SetBody(insertSection(ep.Body(), a.heading()+" "+title, section))
	if !created {
		if err := a.touch(ep); err != nil {
			return err
		}
	}
	// The episode is written whatever the limit: it is how the conversation
	// is known to be filed.
	if err := a.Files.Write(vault.EntryPath(a.episode), ep.Bytes()); err != nil {
		return fmt.Errorf("write %s: %w", a.episode, err)
	}
	if created {
		a.filed.Created = append(a.filed.Created, a.episode)
	} else {
		a.filed.Updated = append(a.filed.Updated, a.episode)
	}
	return nil
}

// codeList shows at most n items as `code`, and how many more there are.
func codeList(items []string, n int) string {
	var out []string
	for i, s := range items {
		if i == n {
			out = append(out, fmt.Sprintf("and %d more", len(items)-n))
			break
		}
		out = append(out, "`"+strings.ReplaceAll(words.OneLine(s), "`", "'")+"`")
	}
	return strings.Join(out, ", ")
}

// resolutionItems states error→fix pairs as facts.
func resolutionItems(rs []Resolution) []Item {
	var out []Item
	for _, r := range rs {
		out = append(out, Item{
			Title:    "Fix: " + cut(words.OneLine(r.Error), 80),
			Text:     fmt.Sprintf("Error: %s\n\nFix: %s", strings.TrimSpace(r.Error), strings.TrimSpace(r.Fix)),
			Evidence: r.Evidence,
		})
	}
	return out
}

// titleOf is a title for a text: its first sentence, cut short.
func titleOf(text string) string {
	s := firstSentence(text)
	if s == "" {
		s = text
	}
	return cut(strings.TrimRight(words.OneLine(s), ".!?: "), 80)
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// statedWords are words that any stated preference, rule or fact about
// the user is phrased with ("the user prefers to use …", "never …"), and so
// tell no two of them apart. Glue words (words.IsGlue) are left out too.
var statedWords = map[string]bool{
	"user": true, "users": true, "prefer": true, "prefers": true, "preferred": true,
	"use": true, "uses": true, "using": true, "never": true, "yes": true,
}

// contentWords are the distinct words of s that say what it is about,
// lowercased, in order.
func contentWords(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words.Lower(s) {
		if len(w) < 2 || words.IsGlue(w) || statedWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// likeness is the share of content words two texts have in common
// (Jaccard), 0 when either has none.
func likeness(a, b string) float64 {
	return words.Jaccard(words.Set(contentWords(a)), words.Set(contentWords(b)), nil)
}

// redacted is x with every secret it holds replaced, before anything of
// it is written.
func redacted(x Extraction) Extraction {
	r := redact.String
	items := func(in []Item) []Item {
		out := make([]Item, len(in))
		for i, it := range in {
			out[i] = Item{Title: r(it.Title), Text: r(it.Text), Why: r(it.Why), Replaces: r(it.Replaces), Evidence: Evidence{it.Evidence.Message, r(it.Evidence.Quote)}}
		}
		return out
	}
	strs := func(in []string) []string {
		out := make([]string, len(in))
		for i, s := range in {
			out[i] = r(s)
		}
		return out
	}
	e := x.Episode
	y := Extraction{
		Episode:     Episode{Title: r(e.Title), Request: r(e.Request), Done: r(e.Done), Outcome: r(e.Outcome), Files: strs(e.Files), Commands: strs(e.Commands)},
		Facts:       items(x.Facts),
		Preferences: items(x.Preferences),
		Decisions:   items(x.Decisions),
		Milestones:  items(x.Milestones),
		Insights:    items(x.Insights),
		Questions:   items(x.Questions),
		Corrections: items(x.Corrections),
	}
	for _, p := range x.People {
		y.People = append(y.People, Person{r(p.Name), r(p.Note), Evidence{p.Evidence.Message, r(p.Evidence.Quote)}})
	}
	for _, p := range x.Projects {
		y.Projects = append(y.Projects, Project{r(p.Name), r(p.Overview), r(p.Activity), Evidence{p.Evidence.Message, r(p.Evidence.Quote)}})
	}
	for _, res := range x.Resolutions {
		y.Resolutions = append(y.Resolutions, Resolution{r(res.Error), r(res.Fix), Evidence{res.Evidence.Message, r(res.Evidence.Quote)}})
	}
	return y
}
