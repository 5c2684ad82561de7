package vault

import (
	"context"
	"slices"

	"github.com/ctx0/ctx0/vault/entry"
)

// groupView answers the whole-vault questions of a group's writes (is this
// text an entry already, is this alias taken) while the group is decided:
// the catalog as it was when the group took the lock, with the entries the
// group's earlier writes changed taken from what they wrote. So a write of
// a group costs no look at the folders and no re-index of its own; the
// catalog hears of the group's files once, after its commit.
type groupView struct {
	v   *Vault
	ctx context.Context // the group's
	// cat is the catalog pinned for the group (Pinner) at its first
	// question, or the vault's catalog; nil until then: a group that asks
	// nothing (edits, a sync's merge) costs the catalog nothing.
	cat Catalog
	// touched holds the entries the group's writes put in the work tree,
	// by name; a removed entry is held as nil.
	touched map[string]*scanned
}

func (v *Vault) newGroupView(ctx context.Context) *groupView {
	return &groupView{v: v, ctx: ctx, touched: map[string]*scanned{}}
}

// catalog is the catalog the group asks: pinned on the first question if
// it can be; one that cannot be pinned answers with its own checks.
func (g *groupView) catalog() Catalog {
	if g.cat == nil {
		g.cat = g.v.catalog
		if p, ok := g.cat.(Pinner); ok {
			if cat, err := p.Pin(g.ctx); err == nil {
				g.cat = cat
			}
		}
	}
	return g.cat
}

// add takes in the files a write of the group staged.
func (g *groupView) add(changes []change) {
	for _, c := range changes {
		name, ok := nameOf(c.path)
		if !ok || c.untrack {
			continue // not an entry, or left on disk as it is
		}
		if c.data == nil {
			g.touched[name] = nil
			continue
		}
		s := &scanned{name: name}
		if e, err := entry.Parse(c.data); err == nil {
			s.title, s.aliases, s.sum = e.Title(), e.Aliases(), BodySum(e.Body())
		}
		g.touched[name] = s
	}
}

// sameBody is Catalog.SameBody for a write: of the group being decided
// when there is one.
func (v *Vault) sameBody(ctx context.Context, sum string) ([]string, error) {
	g := v.group
	if g == nil {
		return v.catalog.SameBody(ctx, sum)
	}
	names, err := g.catalog().SameBody(ctx, sum)
	if err != nil {
		return nil, err
	}
	names = slices.DeleteFunc(names, func(n string) bool {
		_, ok := g.touched[n]
		return ok
	})
	for _, s := range g.touched {
		if s != nil && s.sum == sum {
			names = append(names, s.name)
		}
	}
	return names, nil
}

// lookup is Catalog.Lookup for a write: of the group being decided when
// there is one.
func (v *Vault) lookup(ctx context.Context, key string) ([]Match, error) {
	g := v.group
	if g == nil {
		return v.catalog.Lookup(ctx, key)
	}
	ms, err := g.catalog().Lookup(ctx, key)
	if err != nil {
		return nil, err
	}
	ms = slices.DeleteFunc(ms, func(m Match) bool {
		_, ok := g.touched[m.Name]
		return ok
	})
	for _, s := range g.touched {
		if s == nil {
			continue
		}
		if m, ok := matchKey(key, s.name, s.title, s.aliases); ok {
			ms = append(ms, m)
		}
	}
	return ms, nil
}
