package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctx0/ctx0/internal/lazy"
	"github.com/ctx0/ctx0/vault/entry"
)

// FieldConversation is the frontmatter field that ties an entry to the
// conversation it was filed from.
const FieldConversation = "conversation"

// NewEntry is the one way a new entry's frontmatter is made, whoever makes
// it (add, remember, the librarian, the memory tool): m's fields in the
// documented order, created and updated at now, then body as given. Empty
// fields are left out; the type is note when m has none. The title is
// made plain (PlainTitle): markup belongs to the body.
func NewEntry(m Meta, now time.Time, body string) (*entry.Entry, error) {
	now = now.UTC().Truncate(time.Second)
	m.Title = PlainTitle(m.Title)
	if m.Type == "" {
		m.Type = "note"
	}
	e := entry.New()
	fields := []struct {
		key  string
		val  any
		skip bool
	}{
		{entry.FieldTitle, m.Title, m.Title == ""},
		{entry.FieldType, m.Type, false},
		{entry.FieldAliases, m.Aliases, len(m.Aliases) == 0},
		{entry.FieldTags, m.Tags, len(m.Tags) == 0},
		{entry.FieldProject, m.Project, m.Project == ""},
		{entry.FieldPinned, true, !m.Pinned},
		{entry.FieldSource, m.Source, m.Source == ""},
		{entry.FieldCreated, now, false},
		{entry.FieldUpdated, now, false},
		{entry.FieldLinks, m.Links, len(m.Links) == 0},
		{FieldConversation, m.Conversation, m.Conversation == ""},
	}
	set := make([]entry.Field, 0, len(fields))
	for _, f := range fields {
		if !f.skip {
			set = append(set, entry.Field{Key: f.key, Value: f.val})
		}
	}
	if err := e.SetFields(set); err != nil {
		return nil, err
	}
	e.SetBody(body)
	return e, nil
}

// maxNameTries bounds FreeName: past it, a name is too crowded to extend.
const maxNameTries = 10000

// FreeName is the one name allocator: name, or name-2, name-3, … the first
// that taken says is free. taken reports whether a name is in use as the
// caller sees the vault (the work tree under the vault lock, or a run's
// view of a commit); an error from it stops the search.
func FreeName(name string, taken func(name string) (bool, error)) (string, error) {
	for i := 1; i < maxNameTries; i++ {
		n := name
		if i > 1 {
			n = fmt.Sprintf("%s-%d", name, i)
		}
		used, err := taken(n)
		if err != nil {
			return "", err
		}
		if !used {
			return n, nil
		}
	}
	return "", fmt.Errorf("no free name for %s", name)
}

// Folder is where a new entry of type t made at time at goes: the type's
// folder, and for an episode the month's folder inside it.
func (c Config) Folder(t string, at time.Time) (string, error) {
	info, ok := c.Type(t)
	if !ok {
		return "", badRequest(fmt.Errorf("unknown type %q: use one of %s, or declare it in %s", t, strings.Join(c.TypeNames(), ", "), ConfigFile))
	}
	if t == "episode" {
		return info.Folder + "/" + at.Format("2006-01"), nil
	}
	return info.Folder, nil
}

// TypeAt is the type of an entry named name by where it is: the type
// whose folder is the name's top folder, note if none. It is Folder read
// backwards.
func (c Config) TypeAt(name string) string {
	top, _, ok := strings.Cut(name, "/")
	if !ok {
		return "note"
	}
	for _, t := range c.TypeNames() {
		if info, _ := c.Type(t); info.Folder == top {
			return t
		}
	}
	return "note"
}

// folderFor is where a new entry of type t goes now.
func (v *Vault) folderFor(t string) string {
	f, _ := v.Config().Folder(t, v.now().UTC())
	return f
}

// freeName is FreeName over the work tree. Call it under the vault lock.
func (v *Vault) freeName(name string) (string, error) {
	return FreeName(name, func(n string) (bool, error) {
		_, err := os.Lstat(v.path(n))
		return !errors.Is(err, fs.ErrNotExist), nil
	})
}

// TitleFromName makes "Sarah Chen" of "contacts/sarah-chen" or of "Sarah
// Chen": the title of an entry made with a name and no title.
func TitleFromName(typed string) string {
	last := typed
	if i := strings.LastIndexAny(typed, "/\\"); i >= 0 {
		last = typed[i+1:]
	}
	last = strings.TrimSuffix(strings.TrimSpace(last), ".md")
	if strings.ContainsAny(last, " ") || strings.ToLower(last) != last {
		return last
	}
	words := strings.FieldsFunc(last, func(r rune) bool { return r == '-' || r == '_' })
	for i, w := range words {
		r, size := utf8.DecodeRuneInString(w)
		words[i] = strings.ToUpper(string(r)) + w[size:]
	}
	return strings.Join(words, " ")
}

// redactMeta replaces the secrets in m's free-text fields, adding what it
// replaced to counts. Type and source are checked against known lists and
// cannot hold one.
func redactMeta(m *Meta, counts map[string]int) {
	one := func(s string) string {
		out, n := Redact(s)
		for k, c := range n {
			counts[k] += c
		}
		return out
	}
	list := func(l []string) []string {
		if len(l) == 0 {
			return l
		}
		out := make([]string, len(l))
		for i, s := range l {
			out[i] = one(s)
		}
		return out
	}
	m.Title = one(m.Title)
	m.Project = one(m.Project)
	m.Conversation = one(m.Conversation)
	m.Aliases = list(m.Aliases)
	m.Tags = list(m.Tags)
	m.Links = list(m.Links)
}

// newEntryChange is the change that creates entry name with m and body,
// redacted here once: body must already be redacted (its counts in
// counts), m's fields are redacted now, and the write path does not parse
// the rendered entry again to redact it. The entry's bytes do not depend
// on name: a caller may build the change before it names the entry, and
// set its path then.
func (v *Vault) newEntryChange(name string, m Meta, body string, counts map[string]int) (change, error) {
	counts = maps.Clone(counts) // fn may run again: count once
	if counts == nil {
		counts = map[string]int{}
	}
	redactMeta(&m, counts)
	e, err := NewEntry(m, v.now(), body)
	if err != nil {
		return change{}, err
	}
	return change{path: entryPath(name), data: e.Bytes(), based: true, redacted: true, counts: counts}, nil
}

// PlainTitle is s as a title: one line of plain text, without the markup
// text copied from markdown carries. A list bullet or number, a heading's
// #s and a quote's > go; emphasis (**bold**, *italic*, ~~struck~~)
// and `code` keep their words without the marks; a link keeps its text
// ([the docs](https://…) is "the docs", [[people/sam|Sam]] is "Sam").
// Marks inside words (snake_case, a*b, C#) are left alone.
func PlainTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for {
		rest := strings.TrimSpace(titleLead().ReplaceAllString(s, ""))
		if rest == s || rest == "" {
			break
		}
		s = rest
	}
	s = wikiLink().ReplaceAllString(s, "$2$1")
	s = mdLink().ReplaceAllString(s, "$1")
	s = codeSpan().ReplaceAllString(s, "$1")
	for _, re := range []func() *regexp.Regexp{strong, emphasis} {
		s = re().ReplaceAllString(s, "$1$2")
	}
	return strings.TrimSpace(s)
}

var (
	// titleLead is the markup a line opens with: a heading, a quote, a
	// list bullet or number, a task box. A bullet of -, * or + is one
	// when a space follows it, as in markdown ("**bold**" is none).
	titleLead = lazy.Regexp(`^(?:#{1,6}\s+|>\s*|[-*+]\s+|[•◦▪‣●]\s*|\d{1,3}[.)]\s+|\[[ xX]\]\s+)`)
	// wikiLink is [[name]] or [[name|shown]]: $2 is what is shown, else $1.
	wikiLink = lazy.Regexp(`\[\[(?:[^\]|]*\|)?([^\]|]*)\]\]()`)
	// mdLink is [text](target) or ![alt](src).
	mdLink = lazy.Regexp(`!?\[([^\]]*)\]\([^)]*\)`)
	// codeSpan is `code` (or “code“).
	codeSpan = lazy.Regexp("`+([^`]*)`+")
	// strong is **text** or ~~struck~~, at word edges. Underscores are
	// left alone: they join words in names (snake_case).
	strong = lazy.Regexp(`(?:^|\B)(?:\*\*([^*]+)\*\*|~~([^~]+)~~)(?:\B|$)`)
	// emphasis is *text* at word edges.
	emphasis = lazy.Regexp(`(?:^|\B)\*([^*\s][^*]*)\*(?:\B|$)()`)
)
