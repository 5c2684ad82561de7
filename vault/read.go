package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/ctx0/ctx0/vault/entry"
)

// Doc is an entry together with its name.
type Doc struct {
	Name  string
	Entry *entry.Entry
}

// Summary is how an entry is listed, in every command that lists entries.
type Summary struct {
	Name    string    `json:"name"`
	Path    string    `json:"path"`
	Title   string    `json:"title"`
	Type    string    `json:"type"`
	Tags    []string  `json:"tags"`
	Project string    `json:"project,omitempty"`
	Pinned  bool      `json:"pinned"`
	Updated time.Time `json:"updated,omitzero"`
	// Happened is when what the entry tells happened (see Happened): the
	// date commands filter by and show.
	Happened time.Time `json:"happened,omitzero"`
}

// Summarize lists an entry.
func Summarize(name string, e *entry.Entry) Summary {
	tags := e.Tags()
	if tags == nil {
		tags = []string{}
	}
	return Summary{
		Name: name, Path: entryPath(name), Title: e.Title(), Type: e.Type(), Tags: tags,
		Project: e.Project(), Pinned: e.Pinned(), Updated: e.Updated(),
		Happened: Happened(name, e),
	}
}

// Get resolves ref and reads the entry from the work tree.
func (v *Vault) Get(ctx context.Context, ref string) (Doc, error) {
	name, err := v.Resolve(ctx, ref)
	if err != nil {
		return Doc{}, err
	}
	e, err := v.read(name)
	if err != nil {
		return Doc{}, err
	}
	return Doc{Name: name, Entry: e}, nil
}

// read parses the entry file of name.
func (v *Vault) read(name string) (*entry.Entry, error) {
	p := entryPath(name)
	if err := CheckPath(v.root, p); err != nil {
		return nil, fmt.Errorf("read entry %s: %w", p, err)
	}
	fi, err := os.Stat(v.path(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w %q", ErrNotFound, name)
	}
	if err != nil {
		return nil, fmt.Errorf("read entry %s: %w", p, err)
	}
	if fi.Size() > entry.MaxSize {
		return nil, fmt.Errorf("read entry %s: %w (%d bytes, limit %d)", p, entry.ErrTooLarge, fi.Size(), entry.MaxSize)
	}
	data, err := os.ReadFile(v.path(name))
	if err != nil {
		return nil, fmt.Errorf("read entry %s: %w", p, err)
	}
	e, err := entry.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("read entry %s: %w", p, err)
	}
	return e, nil
}

// Filter selects entries to list; zero fields select everything.
type Filter struct {
	Type, Tag, Project string
	Pinned             bool
	// By their state, zero selects live entries only: neither archived
	// nor superseded, as search shows them. All adds the archived and
	// superseded ones; Archived selects archived ones only.
	All, Archived bool
}

func (f Filter) match(e *entry.Entry) bool {
	archived := !e.Archived().IsZero()
	switch {
	case f.Archived && !archived:
		return false
	case !f.All && !f.Archived && (archived || e.SupersededBy() != ""):
		return false
	}
	if f.Type != "" && e.Type() != f.Type {
		return false
	}
	if f.Project != "" && e.Project() != f.Project {
		return false
	}
	if f.Pinned && !e.Pinned() {
		return false
	}
	if f.Tag != "" {
		for _, t := range e.Tags() {
			if t == f.Tag {
				return true
			}
		}
		return false
	}
	return true
}

// List returns the entries that match f, by name. Files that do not parse
// are reported in problems and left out, so one bad file does not hide the
// rest of the vault. A catalog that is a Lister answers; otherwise every
// entry is read.
func (v *Vault) List(ctx context.Context, f Filter) (list []Summary, problems []error, err error) {
	if l, ok := v.catalog.(Lister); ok {
		return l.List(ctx, f)
	}
	var names []string
	if err := v.Walk(ctx, func(name string, _ fs.FileInfo) error {
		names = append(names, name)
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", v.root, err)
	}
	sort.Strings(names)
	docs := make([]*entry.Entry, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, n := range names {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			docs[i], errs[i] = v.read(n)
		})
	}
	wg.Wait()
	list = []Summary{}
	for i, n := range names {
		if errs[i] != nil {
			problems = append(problems, errs[i])
			continue
		}
		if f.match(docs[i]) {
			list = append(list, Summarize(n, docs[i]))
		}
	}
	return list, problems, ctx.Err()
}
