package vault

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/ctx0/ctx0/vault/entry"
)

// Catalog answers the questions that need the whole vault: which entry a
// word names, and which entries hold a given body. Answers must reflect the
// files on disk. The index implements it cheaply; without one, the vault
// reads every entry once per process.
type Catalog interface {
	// Lookup returns the entries that key names: an entry whose name or slug
	// equals key, or whose title or one of whose aliases equals key ignoring
	// case.
	Lookup(ctx context.Context, key string) ([]Match, error)
	// SameBody returns the names of the entries whose BodySum is sum.
	SameBody(ctx context.Context, sum string) ([]string, error)
}

// Match is one entry that a key names, and how.
type Match struct {
	Name string
	By   string // "name", "slug", "title" or "alias"
}

// Observer is what a Catalog may also implement to hear of the paths each
// ctx0 write changed, right after its commit, so it stays fresh without
// rescanning the vault.
type Observer interface {
	Changed(ctx context.Context, paths []string) error
}

// Pinner is what a Catalog may also implement so that the writes of one
// group commit ask it without a check each: Pin brings the catalog up to
// date with the files now and returns it as that left it, answering
// without looking at the files again. The group, which holds the vault
// lock, answers for the files its own writes change from what it wrote
// (groupView), and reports them with Changed once committed.
type Pinner interface {
	Pin(ctx context.Context) (Catalog, error)
}

// Lister is what a Catalog may also implement to list entries without
// reading every file: List answers from it when it does. Its answers
// follow the contract of Vault.List and must reflect the files on disk.
type Lister interface {
	List(ctx context.Context, f Filter) (list []Summary, problems []error, err error)
}

// LinkFinder is what a Catalog may also implement to say which entries
// link to an entry, so that a rename reads those rather than every file.
type LinkFinder interface {
	// LinkingTo returns the names of the entries that hold a link to one
	// of keys: a [[wikilink]] or links: item whose target normalizes to a
	// key, or a markdown link whose path leads to an entry named by a key.
	// It may name entries that hold no such link; it must not leave out
	// one that does, whoever last wrote its file.
	LinkingTo(ctx context.Context, keys []string) ([]string, error)
}

// BodySum identifies an entry's content for duplicate detection: the SHA-256
// of its body without surrounding white space.
func BodySum(body string) string {
	s := sha256.Sum256([]byte(strings.TrimSpace(body)))
	return hex.EncodeToString(s[:])
}

// Walk calls fn for every entry file in the work tree, skipping hidden
// folders (.git, .ctx0) and files that are not entries.
func (v *Vault) Walk(ctx context.Context, fn func(name string, info fs.FileInfo) error) error {
	return filepath.WalkDir(v.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == v.root {
				return err
			}
			return nil // a folder removed while we walk
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if p != v.root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(v.root, p)
		name, ok := nameOf(filepath.ToSlash(rel))
		if !ok || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		return fn(name, info)
	})
}

// scanCatalog is the catalog of a vault without an index: it reads every
// entry, once per process, on the first question.
type scanCatalog struct {
	v       *Vault
	once    sync.Once
	err     error
	entries []scanned
}

type scanned struct {
	name, title string
	aliases     []string
	sum         string
}

func (c *scanCatalog) load(ctx context.Context) error {
	c.once.Do(func() {
		var names []string
		c.err = c.v.Walk(ctx, func(name string, _ fs.FileInfo) error {
			names = append(names, name)
			return nil
		})
		if c.err != nil {
			return
		}
		c.entries = make([]scanned, len(names))
		var wg sync.WaitGroup
		work := make(chan int)
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := range work {
					c.entries[i] = c.v.scanOne(names[i])
				}
			})
		}
		for i := range names {
			work <- i
		}
		close(work)
		wg.Wait()
	})
	return c.err
}

// scanOne reads what the catalog needs of one entry; an unreadable entry
// still answers to its name.
func (v *Vault) scanOne(name string) scanned {
	s := scanned{name: name}
	data, err := ReadFile(v.root, entryPath(name))
	if err != nil {
		return s
	}
	e, err := entry.Parse(data)
	if err != nil {
		return s
	}
	s.title, s.aliases, s.sum = e.Title(), e.Aliases(), BodySum(e.Body())
	return s
}

func (c *scanCatalog) Lookup(ctx context.Context, key string) ([]Match, error) {
	if err := c.load(ctx); err != nil {
		return nil, err
	}
	var out []Match
	for _, e := range c.entries {
		if m, ok := matchKey(key, e.name, e.title, e.aliases); ok {
			out = append(out, m)
		}
	}
	return out, nil
}

// matchKey tells whether key names an entry with these fields, and how.
func matchKey(key, name, title string, aliases []string) (Match, bool) {
	switch {
	case key == name:
		return Match{Name: name, By: "name"}, true
	case key == Slug(name):
		return Match{Name: name, By: "slug"}, true
	case title != "" && strings.EqualFold(key, title):
		return Match{Name: name, By: "title"}, true
	}
	for _, a := range aliases {
		if strings.EqualFold(key, a) {
			return Match{Name: name, By: "alias"}, true
		}
	}
	return Match{}, false
}

func (c *scanCatalog) SameBody(ctx context.Context, sum string) ([]string, error) {
	if err := c.load(ctx); err != nil {
		return nil, err
	}
	var out []string
	for _, e := range c.entries {
		if e.sum == sum {
			out = append(out, e.name)
		}
	}
	return out, nil
}

// Changed keeps the process's scan true after our own writes.
func (c *scanCatalog) Changed(ctx context.Context, paths []string) error {
	if c.entries == nil {
		return nil
	}
	for _, p := range paths {
		name, ok := nameOf(p)
		if !ok {
			continue
		}
		kept := c.entries[:0]
		for _, e := range c.entries {
			if e.name != name {
				kept = append(kept, e)
			}
		}
		c.entries = kept
		if _, err := os.Stat(filepath.Join(c.v.root, filepath.FromSlash(p))); err == nil {
			c.entries = append(c.entries, c.v.scanOne(name))
		}
	}
	return nil
}

// ErrNotFound is returned when no entry answers to a name.
var ErrNotFound = errors.New("no such entry")

// AmbiguousError is returned when a name answers to several entries.
type AmbiguousError struct {
	Ref        string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q is ambiguous: it could be %s; use the full name", e.Ref, strings.Join(e.Candidates, ", "))
}

// Resolve finds the entry ref names: an exact name (after normalization),
// else a unique slug, title or alias, compared ignoring case.
func (v *Vault) Resolve(ctx context.Context, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	norm, err := NormalizeName(ref)
	if err != nil {
		// An entry a person made under a name ctx0 refuses to make (a
		// Windows device name) is still found, so it can be renamed.
		if n, nerr := normalizeAnyName(ref); nerr == nil && v.isEntryFile(n) {
			return n, nil
		}
		return "", err
	}
	if _, err := os.Lstat(v.path(norm)); err == nil {
		// The file is there: say why it cannot be read rather than that
		// there is no such entry.
		if err := CheckPath(v.root, entryPath(norm)); err != nil {
			return "", err
		}
	}
	if v.isEntryFile(norm) {
		return norm, nil
	}
	keys := []string{ref}
	if norm != ref {
		keys = append(keys, norm)
	}
	seen := map[string]bool{}
	var names []string
	for _, k := range keys {
		ms, err := v.catalog.Lookup(ctx, k)
		if err != nil {
			return "", fmt.Errorf("resolve %q: %w", ref, err)
		}
		for _, m := range ms {
			if !seen[m.Name] {
				seen[m.Name] = true
				names = append(names, m.Name)
			}
		}
	}
	switch len(names) {
	case 0:
		return "", fmt.Errorf("%w %q", ErrNotFound, ref)
	case 1:
		return names[0], nil
	}
	return "", &AmbiguousError{Ref: ref, Candidates: names}
}

// isEntryFile reports whether name's file is there, a regular file.
func (v *Vault) isEntryFile(name string) bool {
	fi, err := os.Stat(v.path(name))
	return err == nil && fi.Mode().IsRegular() && CheckPath(v.root, entryPath(name)) == nil
}

// path is the absolute file of a name.
func (v *Vault) path(name string) string {
	return filepath.Join(v.root, filepath.FromSlash(entryPath(name)))
}
