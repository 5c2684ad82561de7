package index

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	"github.com/ctx0/ctx0/vault"
)

var (
	_ vault.Catalog    = (*Index)(nil)
	_ vault.Observer   = (*Index)(nil)
	_ vault.LinkFinder = (*Index)(nil)
	_ vault.Lister     = (*Index)(nil)
	_ vault.Pinner     = (*Index)(nil)
)

// Lookup returns the entries that key names, by the rules of vault.Resolve:
// an entry whose name or slug equals key, or whose title or one of whose
// aliases equals key ignoring case. It makes the folder check first, and
// reads again the files of the entries it is about to answer with, so an
// answer is never older than those files.
func (ix *Index) Lookup(ctx context.Context, key string) ([]vault.Match, error) {
	return ix.lookup(ctx, key, ix.forWrite)
}

func (ix *Index) lookup(ctx context.Context, key string, checked func(context.Context) (*sql.DB, error)) ([]vault.Match, error) {
	for range 2 {
		db, err := checked(ctx)
		if err != nil {
			return nil, err
		}
		// rank orders an entry's matches as vault does: name, slug, title, alias.
		rows, err := db.QueryContext(ctx, `
			SELECT name, CASE WHEN name = ?1 THEN 'name' WHEN slug = ?1 THEN 'slug' ELSE 'title' END,
				CASE WHEN name = ?1 THEN 0 WHEN slug = ?1 THEN 1 ELSE 2 END AS rank
			FROM entries WHERE name = ?1 OR slug = ?1 OR (title_fold = ?2 AND title != '')
			UNION ALL
			SELECT e.name, 'alias', 3 FROM aliases a JOIN entries e ON e.id = a.entry_id WHERE a.fold = ?2
			ORDER BY 1, 3`, key, fold(key))
		if err != nil {
			return nil, fmt.Errorf("look up %q: %w", key, err)
		}
		var out []vault.Match
		for rows.Next() {
			var m vault.Match
			var rank int
			if err := rows.Scan(&m.Name, &m.By, &rank); err != nil {
				rows.Close()
				return nil, fmt.Errorf("look up %q: %w", key, err)
			}
			// One match per entry: the first by rank.
			if len(out) == 0 || out[len(out)-1].Name != m.Name {
				out = append(out, m)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("look up %q: %w", key, err)
		}
		if stale, err := ix.restale(ctx, db, matchNames(out)); err != nil || !stale {
			return out, err
		}
	}
	return nil, fmt.Errorf("look up %q: the vault keeps changing", key)
}

// SameBody returns the names of the entries whose vault.BodySum is sum.
func (ix *Index) SameBody(ctx context.Context, sum string) ([]string, error) {
	return ix.sameBody(ctx, sum, ix.forWrite)
}

func (ix *Index) sameBody(ctx context.Context, sum string, checked func(context.Context) (*sql.DB, error)) ([]string, error) {
	for range 2 {
		db, err := checked(ctx)
		if err != nil {
			return nil, err
		}
		rows, err := db.QueryContext(ctx, `SELECT name FROM entries WHERE body_sum = ? AND problem = '' ORDER BY name`, sum)
		if err != nil {
			return nil, fmt.Errorf("find entries by content: %w", err)
		}
		var out []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return nil, fmt.Errorf("find entries by content: %w", err)
			}
			out = append(out, n)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if stale, err := ix.restale(ctx, db, out); err != nil || !stale {
			return out, err
		}
	}
	return nil, fmt.Errorf("find entries by content: the vault keeps changing")
}

// Pin makes the folder check once and returns the index as it left it:
// its Lookup and SameBody skip their own check, so that each write of a
// group commit does not list again the folders the group's earlier writes
// changed. They still read again the files of the entries they answer
// with. The caller answers for the files it changes meanwhile and reports
// them with Changed.
func (ix *Index) Pin(ctx context.Context) (vault.Catalog, error) {
	if _, err := ix.forWrite(ctx); err != nil {
		return nil, err
	}
	return pinned{ix}, nil
}

// pinned is the index as Pin checked it.
type pinned struct{ ix *Index }

func (p pinned) Lookup(ctx context.Context, key string) ([]vault.Match, error) {
	return p.ix.lookup(ctx, key, p.ix.handle)
}

func (p pinned) SameBody(ctx context.Context, sum string) ([]string, error) {
	return p.ix.sameBody(ctx, sum, p.ix.handle)
}

// Changed updates the index for the paths a ctx0 write changed, right
// after its commit: the vault's Observer.
func (ix *Index) Changed(ctx context.Context, paths []string) error {
	var names []string
	for _, p := range paths {
		if n, ok := vault.NameOf(p); ok {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	start := ix.now()
	rep, err := ix.update(ctx, nil, names, nil, ix.noteWritten)
	if err != nil {
		return fmt.Errorf("index %d changed files: %w", len(names), err)
	}
	rep.Check, rep.Took = CheckPaths, ix.now().Sub(start)
	ix.mu.Lock()
	ix.last = rep
	ix.mu.Unlock()
	return nil
}

// restale checks the files of the entries named against the index and
// updates those that changed; stale says whether any did.
func (ix *Index) restale(ctx context.Context, db *sql.DB, names []string) (stale bool, err error) {
	if len(names) == 0 {
		return false, nil
	}
	rows, err := loadRows(ctx, db, names)
	if err != nil {
		return false, err
	}
	var changed []string
	for _, n := range names {
		r, ok := rows[n]
		fi, err := os.Lstat(fileOf(ix.root, n))
		if !ok || err != nil || !r.settled || stampOf(fi) != r.stamp {
			changed = append(changed, n)
		}
	}
	if len(changed) == 0 {
		return false, nil
	}
	rep, err := ix.update(ctx, nil, changed, nil, nil)
	return rep.Changes() > 0, err
}

func matchNames(ms []vault.Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}
