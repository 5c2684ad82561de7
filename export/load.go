package export

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// doc is one entry chosen for the export.
type doc struct {
	name     string
	orig     []byte       // the file as read
	raw      []byte       // orig, redacted when asked
	e        *entry.Entry // raw, parsed
	file     string       // its path in the export, slash-separated (see place)
	versions []version
	redacted map[string]int // the secrets redaction replaced in it, by kind
	// unparsed, if set, says why the file is not a valid entry: e is then
	// empty, and raw is the file as it is (a backup keeps it byte for byte).
	unparsed string
}

// set is what an export is made from: the chosen entries, and what their
// links need to be resolved.
type set struct {
	v        *vault.Vault
	docs     []*doc // by name
	byName   map[string]*doc
	inVault  map[string]bool // every entry name in the vault
	commit   string          // HEAD when the export read the vault
	queries  []byte          // .ctx0/queries.yaml, if the vault has one
	skipped  []Skipped
	redacted map[string]int
	flatten  bool
	// keepUnparsed keeps a file that is not a valid entry as its bytes
	// (see doc.unparsed), rather than skipping it.
	keepUnparsed bool
	// redactNames: the export is redacted, names too (see shownName).
	redactNames bool

	// resolve is v.Resolve, which links are resolved with; resolved holds
	// what it said of each link target so far.
	resolve  func(ctx context.Context, ref string) (string, error)
	mu       sync.Mutex
	resolved map[string]resolution
}

// queriesFile holds a vault's learned queries; an export carries it along.
const queriesFile = ".ctx0/queries.yaml"

// load reads the entries that o selects. Retired entries (archived or
// superseded) are kept only with keepRetired. Files that do not parse are
// skipped and reported, so one bad file does not stop an export; with
// keepUnparsed they are kept as their bytes instead.
func load(ctx context.Context, v *vault.Vault, o Options, keepRetired, keepUnparsed bool) (*set, error) {
	s := &set{v: v, resolve: v.Resolve, byName: map[string]*doc{}, inVault: map[string]bool{},
		redacted: map[string]int{}, resolved: map[string]resolution{}, keepUnparsed: keepUnparsed, redactNames: o.Redact}
	var all []string
	modified := map[string]time.Time{}
	if err := v.Walk(ctx, func(name string, fi fs.FileInfo) error {
		all = append(all, name)
		if fi != nil {
			modified[name] = fi.ModTime()
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("export %s: %w", v.Root(), err)
	}
	sort.Strings(all)
	for _, n := range all {
		s.inVault[n] = true
	}
	sel, err := newSelection(ctx, v, all, modified, o)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range all {
		if sel.mayKeep(n) {
			names = append(names, n)
		}
	}
	if s.commit, err = headCommit(ctx, v); err != nil {
		return nil, err
	}
	docs, err := s.read(ctx, names, o)
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		if d == nil || !sel.keep(d) || (!keepRetired && retired(d)) {
			continue
		}
		s.docs = append(s.docs, d)
		s.byName[d.name] = d
		for k, n := range d.redacted {
			s.redacted[k] += n
		}
	}
	q, err := vault.ReadFile(v.Root(), queriesFile)
	switch {
	case err == nil:
		s.queries = s.redact(q, o.Redact)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("export: read %s: %w", queriesFile, err)
	}
	return s, nil
}

// headCommit is the commit the vault's branch points to, "" before the
// first one.
func headCommit(ctx context.Context, v *vault.Vault) (string, error) {
	log, err := v.Log(ctx, 1)
	if err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	if len(log) == 0 {
		return "", nil
	}
	return log[0].Hash, nil
}

// read reads the named entries on several goroutines, in the order of
// names; an entry that cannot be read is nil and recorded as skipped.
func (s *set) read(ctx context.Context, names []string, o Options) ([]*doc, error) {
	docs := make([]*doc, len(names))
	errs := make([]error, len(names))
	err := parallel(ctx, len(names), o.progress("reading"), func(i int) {
		docs[i], errs[i] = readDoc(ctx, s.v, names[i], o.Redact)
		var redactErr *redactError
		if errs[i] != nil && s.keepUnparsed && !errors.Is(errs[i], vault.ErrNotFound) && !errors.As(errs[i], &redactErr) && ctx.Err() == nil {
			docs[i], errs[i] = readUnparsed(s.v, names[i], errs[i], o.Redact)
		}
	})
	if err != nil {
		return nil, err
	}
	for i, err := range errs {
		var redactErr *redactError
		var unreadable *unreadableError
		switch {
		case errors.As(err, &redactErr), errors.As(err, &unreadable):
			return nil, err
		case err != nil:
			s.skipped = append(s.skipped, Skipped{Path: vault.EntryPath(names[i]), Error: err.Error()})
			docs[i] = nil
		}
	}
	return docs, nil
}

// readDoc reads one entry, redacting it when asked.
func readDoc(ctx context.Context, v *vault.Vault, name string, redact bool) (*doc, error) {
	d, err := v.Read(ctx, name)
	if err != nil {
		return nil, err
	}
	raw := d.Entry.Bytes()
	out := &doc{name: name, orig: raw, raw: raw, e: d.Entry}
	if redact {
		out.redacted = map[string]int{}
		if out.raw, out.e, err = redactEntry(name, raw, out.redacted); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readUnparsed reads the file of an entry that could not be read as one
// (why), as its bytes. A file that cannot be read at all is an error that
// names it: a backup must not leave it out unsaid.
func readUnparsed(v *vault.Vault, name string, why error, redact bool) (*doc, error) {
	p := vault.EntryPath(name)
	data, err := vault.ReadFile(v.Root(), p)
	if err != nil {
		return nil, &unreadableError{fmt.Errorf("export: read %s: %w", p, err)}
	}
	d := &doc{name: name, orig: data, raw: data, e: entry.New(), unparsed: why.Error()}
	if redact {
		d.redacted = map[string]int{}
		d.raw = []byte(redactText(string(data), d.redacted))
	}
	return d, nil
}

// unreadableError is a file an export cannot read at all, which stops it.
type unreadableError struct{ err error }

func (e *unreadableError) Error() string { return e.err.Error() }
func (e *unreadableError) Unwrap() error { return e.err }

// retired tells whether an entry is out of use: archived or superseded.
func retired(d *doc) bool {
	a, _ := d.e.Get(entry.FieldArchived)
	return (a != nil && a != false) || d.e.SupersededBy() != "" || d.e.Type() == "archive" ||
		d.name == "archive" || strings.HasPrefix(d.name, "archive/")
}
