package export

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctx0/ctx0/vault"
)

// selection is what --scope, --exclude and --since choose. Scope and
// exclude name folders or entries (contacts, projects/bot0), or types
// (scratch): a word that is no folder or entry of the vault but a type it
// knows.
type selection struct {
	scope, exclude           []prefix
	scopeTypes, excludeTypes []string
	changed                  map[string]bool // with ChangedSince: the entries changed since
	since                    time.Time       // Options.Since
	modified                 map[string]time.Time
}

// prefix is a folder or entry: the name as typed and as normalized, since a
// folder made by hand may not be normalized.
type prefix struct {
	typed string
	match []string
}

// newSelection reads what o selects; modified holds the mtime of each of
// all, which dates an entry that says no time for Since.
func newSelection(ctx context.Context, v *vault.Vault, all []string, modified map[string]time.Time, o Options) (*selection, error) {
	sel := &selection{since: o.Since, modified: modified}
	var err error
	if sel.scope, sel.scopeTypes, err = parseSelection(v, all, "--scope", o.Scope); err != nil {
		return nil, err
	}
	if sel.exclude, sel.excludeTypes, err = parseSelection(v, all, "--exclude", o.Exclude); err != nil {
		return nil, err
	}
	for _, p := range sel.scope {
		if !slices.ContainsFunc(all, func(n string) bool { return under(n, []prefix{p}) }) {
			return nil, fmt.Errorf("export: --scope %s: no entry of the vault is in it, and it is no type", p.typed)
		}
	}
	if !o.ChangedSince.IsZero() {
		if sel.changed, err = v.ChangedSince(ctx, o.ChangedSince); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
	}
	return sel, nil
}

// parseSelection sorts the items of a flag into folders or entries, and
// types.
func parseSelection(v *vault.Vault, all []string, flag string, items []string) ([]prefix, []string, error) {
	var ps []prefix
	var types []string
	for _, it := range items {
		n, err := vault.NormalizeName(it)
		if err != nil {
			return nil, nil, fmt.Errorf("export: %s %s: %w", flag, it, err)
		}
		p := prefix{typed: it, match: []string{n}}
		if raw := strings.TrimSuffix(strings.Trim(strings.TrimSpace(it), "/"), ".md"); raw != n {
			p.match = append(p.match, raw)
		}
		if _, ok := v.Config().Type(n); ok && !slices.ContainsFunc(all, func(name string) bool { return under(name, []prefix{p}) }) {
			types = append(types, n)
			continue
		}
		ps = append(ps, p)
	}
	return ps, types, nil
}

// mayKeep tells from its name alone whether an entry may be chosen, so that
// entries surely left out are not read.
func (sel *selection) mayKeep(name string) bool {
	if sel.changed != nil && !sel.changed[name] || under(name, sel.exclude) {
		return false
	}
	return len(sel.scope)+len(sel.scopeTypes) == 0 || under(name, sel.scope) || len(sel.scopeTypes) > 0
}

// keep tells whether a read entry is chosen.
func (sel *selection) keep(d *doc) bool {
	if !sel.mayKeep(d.name) || slices.Contains(sel.excludeTypes, d.e.Type()) {
		return false
	}
	if !sel.since.IsZero() {
		at := vault.Happened(d.name, d.e)
		if at.IsZero() {
			at = sel.modified[d.name]
		}
		if at.Before(sel.since) {
			return false
		}
	}
	return len(sel.scope)+len(sel.scopeTypes) == 0 || under(d.name, sel.scope) || slices.Contains(sel.scopeTypes, d.e.Type())
}

// under tells whether name is one of the folders or entries, or inside one.
func under(name string, ps []prefix) bool {
	for _, p := range ps {
		for _, m := range p.match {
			if name == m || strings.HasPrefix(name, m+"/") {
				return true
			}
		}
	}
	return false
}
