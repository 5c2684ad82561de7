package vault

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctx0/ctx0/internal/kind"
	"github.com/ctx0/ctx0/templates"
	"github.com/ctx0/ctx0/vault/entry"
)

// ErrExists is returned when a new entry's name is taken.
var ErrExists = errors.New("entry exists")

// ErrTooLong is returned when remembered text is over the configured limit.
var ErrTooLong = errors.New("memory too long")

// RequestError is a request refused as given: empty text, an unknown type
// or source, a field that cannot hold the value. It is the caller's
// mistake, which no retry mends, so adapters tell it from a failure (the
// CLI exits 2, as for a usage error).
type RequestError struct{ Err error }

func (e *RequestError) Error() string { return e.Err.Error() }
func (e *RequestError) Unwrap() error { return e.Err }

// badRequest marks err, if any, as the caller's mistake.
func badRequest(err error) error {
	if err == nil {
		return nil
	}
	return &RequestError{err}
}

// IsBadRequest reports whether err is a request refused as given.
func IsBadRequest(err error) bool {
	var re *RequestError
	return errors.As(err, &re)
}

// Meta is what a new entry's frontmatter says.
type Meta struct {
	Title   string
	Type    string
	Aliases []string
	Tags    []string
	Project string
	Pinned  bool
	Source  string
	// Links name the entries it relates to.
	Links []string
	// Conversation is the conversation it was filed from, if any.
	Conversation string
}

// AddOptions is a new entry.
type AddOptions struct {
	Meta
	Name string  // as typed; a name without a folder goes to the type's folder
	Body *string // nil: the type's template
}

// Add creates an entry.
func (v *Vault) Add(ctx context.Context, o AddOptions) (string, Commit, error) {
	if o.Type == "" {
		o.Type = "note"
	}
	if o.Source == "" {
		o.Source = "user"
	}
	if err := v.checkMeta(o.Meta); err != nil {
		return "", Commit{}, err
	}
	name, err := NormalizeName(o.Name)
	if err != nil {
		return "", Commit{}, err
	}
	if !strings.Contains(name, "/") {
		name = v.folderFor(o.Type) + "/" + name
	}
	if o.Title == "" {
		o.Title = TitleFromName(o.Name)
	}
	body := templates.Body(o.Type)
	if o.Body != nil {
		if err := checkText("add "+name, "body", *o.Body); err != nil {
			return "", Commit{}, err
		}
		body = withNewline(*o.Body)
	}
	body, counts := Redact(body)
	plan := addPlan{Name: name, Meta: o.Meta, Body: body, Redacted: counts}
	var r Remembered
	p := &pendingWrite{
		ctx: ctx, fn: v.addWrite(ctx, plan, &r), done: make(chan struct{}),
		q: v.ownQueued(queuedRequest{Add: &plan}, &r),
	}
	c, err := v.updateWrite(p)
	return r.Name, c, err
}

// addPlan is an add checked and redacted, ready to be decided under the
// vault lock, here or by the process holding it (queue.go).
type addPlan struct {
	Name     string         `json:"name"` // normalized, with its folder
	Meta     Meta           `json:"meta"`
	Body     string         `json:"body"` // redacted
	Redacted map[string]int `json:"redacted,omitempty"`
}

// addWrite decides plan's write under the vault lock: the new entry, if
// its name and aliases are free. r gets the name.
func (v *Vault) addWrite(ctx context.Context, plan addPlan, r *Remembered) func() (string, []change, error) {
	return func() (string, []change, error) {
		name := plan.Name
		if _, err := os.Stat(v.path(name)); err == nil {
			return "", nil, fmt.Errorf("add %s: %w", name, ErrExists)
		}
		for _, a := range plan.Meta.Aliases {
			if err := v.checkAliasFree(ctx, a, name); err != nil {
				return "", nil, err
			}
		}
		ch, err := v.newEntryChange(name, plan.Meta, plan.Body, plan.Redacted)
		if err != nil {
			return "", nil, err
		}
		*r = Remembered{Name: name}
		return "add " + name, []change{ch}, nil
	}
}

// RememberOptions is a quick capture.
type RememberOptions struct {
	Text    string
	Type    string // default: told from the text (internal/kind)
	Title   string // default: for a person introduced, the name; else from the text's first sentence
	Tags    []string
	Project string
	Pinned  bool
	Source  string   // default agent
	Links   []string // entries it relates to, set in the same commit
}

// Remembered is the result of Remember.
type Remembered struct {
	Name      string `json:"name"`
	Duplicate bool   `json:"duplicate"` // the text was already an entry; nothing was written
	Commit    Commit `json:"commit,omitzero"`
}

// Remember files a short text as a new entry, choosing its folder from the
// type and its name from the text. Text over the configured limit is refused;
// text already held by an entry returns that entry and writes nothing.
func (v *Vault) Remember(ctx context.Context, o RememberOptions) (Remembered, error) {
	// Redacted before anything is made of it: the duplicate check, the
	// title and the name all see the text as it will be stored.
	text, redacted := Redact(strings.TrimSpace(o.Text))
	if text == "" {
		return Remembered{}, badRequest(errors.New("remember: nothing to remember: the text is empty"))
	}
	if n, limit := utf8.RuneCountInString(text), v.Config().Remember.MaxChars; n > limit {
		return Remembered{}, fmt.Errorf("%w: %d characters, the limit is %d; be more concise: one clear, standalone fact per memory", ErrTooLong, n, limit)
	}
	if err := checkText("remember", "text", text); err != nil {
		return Remembered{}, err
	}
	if o.Source == "" {
		o.Source = "agent"
	}
	links, err := parseList(strings.Join(o.Links, ","))
	if err != nil {
		return Remembered{}, badRequest(fmt.Errorf("remember: links: %w", err))
	}
	for _, l := range links {
		if err := checkText("remember", "link", l); err != nil {
			return Remembered{}, err
		}
	}
	meta := Meta{Title: strings.TrimSpace(o.Title), Type: o.Type, Tags: o.Tags, Project: o.Project, Pinned: o.Pinned, Source: o.Source, Links: links}
	plan := rememberPlan{Text: text, Redacted: redacted, Meta: meta}
	var r Remembered
	if o.Type == "" && v.taker != nil && v.taker.Running() {
		// A running taker will most likely make this write: it tells the
		// type and builds the entry, warm, rather than this process,
		// whose first use of the patterns costs more than the rest of
		// the request. What the type does not decide is checked here.
		checked := meta
		checked.Type = "note"
		if err := v.checkMeta(checked); err != nil {
			return Remembered{}, err
		}
		p := &pendingWrite{
			ctx: ctx, fn: v.rememberWrite(ctx, plan, nil, &r), done: make(chan struct{}),
			q: v.ownQueued(queuedRequest{Untyped: &plan}, &r),
		}
		c, err := v.updateWrite(p)
		r.Commit = c
		return r, err
	}
	plan.tell()
	if err := v.checkMeta(plan.Meta); err != nil {
		return Remembered{}, err
	}
	// The entry does not depend on its name: it is built, and its blob
	// stored, here in the caller's goroutine, beside the other writers,
	// rather than by the group's leader, which decides writes in turn.
	ch, err := v.newEntryChange("", plan.Meta, text+"\n", redacted)
	if err != nil {
		return Remembered{}, err
	}
	v.preStore(ch.data)
	p := &pendingWrite{
		ctx: ctx, fn: v.rememberWrite(ctx, plan, &ch, &r), done: make(chan struct{}),
		q: v.ownQueued(queuedRequest{Remember: &plan}, &r),
	}
	c, err := v.updateWrite(p)
	r.Commit = c
	return r, err
}

// rememberPlan is a remember checked and redacted, ready to be decided
// under the vault lock: by this process, or by the one holding the lock,
// which takes it from the queue beside the lock (queue.go).
type rememberPlan struct {
	Text     string         `json:"text"` // redacted
	Redacted map[string]int `json:"redacted,omitempty"`
	// Meta has no Type while the text is still to be typed (tell).
	Meta Meta `json:"meta"`
}

// tell completes what plan leaves to be told from its text: the type, and
// for a person introduced, named for the person, the title; a title left
// empty is the text's first sentence.
func (plan *rememberPlan) tell() {
	m := &plan.Meta
	if m.Type == "" {
		// Told from the text, as the offline librarian types what a
		// conversation says.
		m.Type = kind.Of(plan.Text)
	}
	if m.Type == "contact" && m.Title == "" {
		// A person introduced is named for the person (contacts/priya-patel).
		m.Title = kind.PersonIntroduced(plan.Text)
	}
	if m.Title == "" {
		m.Title = titleFromText(plan.Text)
	}
}

// rememberWrite decides plan's write under the vault lock: the entry that
// already holds the text, or a new entry under a free name. built is the
// entry made before queueing, nil for a write taken from the queue, or
// whose type was left to tell, which is made here. r gets the name.
func (v *Vault) rememberWrite(ctx context.Context, plan rememberPlan, built *change, r *Remembered) func() (string, []change, error) {
	return func() (string, []change, error) {
		dups, err := v.sameBody(ctx, BodySum(plan.Text))
		if err != nil {
			return "", nil, fmt.Errorf("remember: check duplicates: %w", err)
		}
		if len(dups) > 0 {
			slices.Sort(dups)
			*r = Remembered{Name: dups[0], Duplicate: true}
			return "", nil, nil
		}
		if plan.Meta.Type == "" {
			plan.tell()
			if err := v.checkMeta(plan.Meta); err != nil {
				return "", nil, err
			}
		}
		meta := plan.Meta
		name, err := v.freeName(v.folderFor(meta.Type) + "/" + cmp.Or(SlugFromTitle(meta.Title), "memory"))
		if err != nil {
			return "", nil, err
		}
		if built == nil {
			ch, err := v.newEntryChange("", meta, plan.Text+"\n", plan.Redacted)
			if err != nil {
				return "", nil, err
			}
			built = &ch
		}
		ch := *built
		ch.path = entryPath(name)
		*r = Remembered{Name: name}
		return "remember " + name + "\n\n" + meta.Title, []change{ch}, nil
	}
}

// Write replaces an entry's body, keeping its frontmatter.
func (v *Vault) Write(ctx context.Context, ref, body string) (string, Commit, error) {
	if err := checkText("write "+ref, "body", body); err != nil {
		return "", Commit{}, err
	}
	return v.edit(ctx, ref, "write", func(_ string, e *entry.Entry) error {
		e.SetBody(withNewline(body))
		return nil
	})
}

// Set changes one frontmatter field. Known fields are checked: pinned must be
// a boolean, dates RFC 3339, type a known type, source a known source; lists
// (aliases, tags, links) take "a, b" or a YAML list. Other fields take any
// YAML value.
func (v *Vault) Set(ctx context.Context, ref, field, value string) (string, Commit, error) {
	field = strings.TrimSpace(field)
	if field == "" {
		return "", Commit{}, errors.New("set: empty field name")
	}
	if err := checkText("set "+field, "value", value); err != nil {
		return "", Commit{}, err
	}
	return v.edit(ctx, ref, "set "+field+" on", func(name string, e *entry.Entry) error {
		return v.setField(ctx, name, e, field, value)
	})
}

// Alias binds another name to an entry. Aliases are unique across the vault.
func (v *Vault) Alias(ctx context.Context, ref, alias string) (string, Commit, error) {
	alias = strings.TrimSpace(alias)
	if alias == "" {
		return "", Commit{}, errors.New("alias: empty alias")
	}
	return v.edit(ctx, ref, "alias "+alias+" for", func(name string, e *entry.Entry) error {
		if ownsAlias(e, alias) {
			return nil
		}
		if err := v.checkAliasFree(ctx, alias, name); err != nil {
			return err
		}
		return e.Set(entry.FieldAliases, append(e.Aliases(), alias))
	})
}

// edit is a read-modify-write of one entry: resolve, change, bump updated,
// commit "<verb> <name>". No change, no commit. It returns the entry's name.
func (v *Vault) edit(ctx context.Context, ref, verb string, fn func(name string, e *entry.Entry) error) (string, Commit, error) {
	name, err := v.Resolve(ctx, ref)
	if err != nil {
		return "", Commit{}, err
	}
	c, err := v.update(ctx, func() (string, []change, error) {
		e, err := v.read(name)
		if err != nil {
			return "", nil, err
		}
		before := e.Bytes()
		if err := fn(name, e); err != nil {
			return "", nil, err
		}
		if string(e.Bytes()) == string(before) {
			return "", nil, nil
		}
		if err := v.touch(e); err != nil {
			return "", nil, err
		}
		return verb + " " + name, []change{{path: entryPath(name), data: e.Bytes(), base: before, based: true}}, nil
	})
	return name, c, err
}

// touch bumps updated, unless the edit set it explicitly.
func (v *Vault) touch(e *entry.Entry) error {
	return e.Set(entry.FieldUpdated, v.now().UTC().Truncate(time.Second))
}

// CheckType says whether t is a type of the vault (declared in its config
// or built in): what add and set accept, and what list filters by.
func (v *Vault) CheckType(t string) error {
	cfg := v.Config()
	if _, ok := cfg.Type(t); !ok {
		return badRequest(fmt.Errorf("unknown type %q: use one of %s, or declare it in %s", t, strings.Join(cfg.TypeNames(), ", "), ConfigFile))
	}
	return nil
}

func (v *Vault) checkMeta(m Meta) error {
	if err := v.CheckType(m.Type); err != nil {
		return err
	}
	if m.Source != "" && !slices.Contains(Sources, m.Source) {
		return badRequest(fmt.Errorf("unknown source %q: use one of %s", m.Source, strings.Join(Sources, ", ")))
	}
	if m.Project != "" && strings.ContainsAny(m.Project, "\n\r") {
		return badRequest(fmt.Errorf("project %q: must be one line", m.Project))
	}
	return nil
}

// checkAliasFree fails if alias already names an entry other than owner.
func (v *Vault) checkAliasFree(ctx context.Context, alias, owner string) error {
	ms, err := v.lookup(ctx, alias)
	if err != nil {
		return fmt.Errorf("check alias %q: %w", alias, err)
	}
	for _, m := range ms {
		if m.Name != owner && m.By != "title" {
			return fmt.Errorf("alias %q is taken: it is the %s of %s", alias, m.By, m.Name)
		}
	}
	return nil
}

// titleFromText is the first line of text, cut at a sentence end or a word
// boundary so it reads as a title.
func titleFromText(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#-* "))
	const max = 80
	if i := strings.IndexAny(line, ".!?"); i > 20 && i < max && (i+1 == len(line) || line[i+1] == ' ') {
		return line[:i]
	}
	if utf8.RuneCountInString(line) <= max {
		return line
	}
	cut := string([]rune(line)[:max])
	if i := strings.LastIndex(cut, " "); i > max/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}

// withNewline ends a non-empty body with a newline, as text files should.
func withNewline(body string) string {
	if body != "" && !strings.HasSuffix(body, "\n") {
		return body + "\n"
	}
	return body
}
