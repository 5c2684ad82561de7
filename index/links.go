package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// Link is a link from one entry to another, as links and backlinks list it.
type Link struct {
	From    string `json:"from"`
	Kind    string `json:"kind"`   // wiki, markdown or frontmatter (the links: field)
	Target  string `json:"target"` // as written
	Heading string `json:"heading,omitempty"`
	Label   string `json:"label,omitempty"`
	// To is the entry the link resolves to; nil when it is broken (no
	// entry answers to it) or ambiguous (several do).
	To     *string `json:"to"`
	Status string  `json:"status"` // ok, broken or ambiguous
}

// Link kinds and statuses as stored.
const (
	kindWiki     = "wiki"
	kindMarkdown = "markdown"
	kindFront    = "frontmatter"

	linkOK        = "ok"
	linkBroken    = "broken"
	linkAmbiguous = "ambiguous"
	linkPending   = "pending"
)

// link is a link as the index stores it, with the keys that could answer it.
type link struct {
	kind, target, heading, label string
	// keyRaw and keyNorm are names or slugs that answer the link: the
	// target as written (trimmed) and normalized; keyFold and keyNfold
	// are titles or aliases that answer it, as fold keys. A markdown link
	// has only keyNorm: the name its relative path leads to, "" if it
	// leaves the vault.
	keyRaw, keyNorm, keyFold, keyNfold string
}

// parseLinks returns the links of an entry: those in its body, found by
// entry.Links, and the names in its links: field.
func parseLinks(from, body string, front []string) []link {
	var out []link
	// A body without '[' holds no link syntax: skip the markdown parser.
	if strings.Contains(body, "[") {
		for _, l := range entry.Links([]byte(body)) {
			switch l.Kind {
			case entry.Wiki:
				out = append(out, wikiLink(kindWiki, l.Target, l.Heading, l.Label))
			case entry.Markdown:
				out = append(out, markdownLink(from, l))
			}
		}
	}
	for _, t := range front {
		out = append(out, wikiLink(kindFront, t, "", ""))
	}
	return out
}

// wikiLink keys a link that resolves the way vault.Resolve resolves a name
// someone typed.
func wikiLink(kind, target, heading, label string) link {
	t := strings.TrimSpace(target)
	norm, err := vault.NormalizeName(t)
	if err != nil {
		norm = ""
	}
	return link{kind: kind, target: target, heading: heading, label: label,
		keyRaw: t, keyNorm: norm, keyFold: fold(t), keyNfold: fold(norm)}
}

// markdownLink keys a link whose target is a path relative to the folder of
// the entry that holds it, by the vault's rule for such paths.
func markdownLink(from string, l entry.Link) link {
	name, _ := vault.MarkdownTarget(from, l.Target)
	return link{kind: kindMarkdown, target: l.Target, heading: l.Heading, label: l.Label, keyNorm: name}
}

// resolver answers links from the entries table, inside a transaction.
type resolver struct {
	exists, lookup, update *sql.Stmt
}

func newResolver(ctx context.Context, tx *sql.Tx) (*resolver, error) {
	r := &resolver{}
	var err error
	if r.exists, err = tx.PrepareContext(ctx, `SELECT 1 FROM entries WHERE name = ?`); err != nil {
		return nil, err
	}
	// The rules of vault.Resolve: a name or slug equal to the target as
	// written or normalized, or a title or alias equal to either ignoring
	// case.
	if r.lookup, err = tx.PrepareContext(ctx, `
		SELECT name FROM entries WHERE name IN (?1, ?2) OR slug IN (?1, ?2) OR (title_fold IN (?3, ?4) AND title_fold != '')
		UNION
		SELECT e.name FROM aliases a JOIN entries e ON e.id = a.entry_id WHERE a.fold IN (?3, ?4) AND a.fold != ''
		LIMIT 2`); err != nil {
		return nil, err
	}
	if r.update, err = tx.PrepareContext(ctx, `UPDATE links SET to_name = ?, status = ? WHERE rowid = ?`); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *resolver) close() {
	for _, s := range []*sql.Stmt{r.exists, r.lookup, r.update} {
		if s != nil {
			s.Close()
		}
	}
}

// resolve returns the entry that l leads to and the link's status.
func (r *resolver) resolve(ctx context.Context, l link) (to sql.NullString, status string, err error) {
	if l.keyNorm != "" {
		var one int
		switch err := r.exists.QueryRowContext(ctx, l.keyNorm).Scan(&one); err {
		case nil:
			return sql.NullString{String: l.keyNorm, Valid: true}, linkOK, nil
		case sql.ErrNoRows:
		default:
			return to, "", err
		}
	}
	if l.kind == kindMarkdown || l.keyRaw == "" {
		return to, linkBroken, nil
	}
	rows, err := r.lookup.QueryContext(ctx, l.keyRaw, l.keyNorm, l.keyFold, l.keyNfold)
	if err != nil {
		return to, "", err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return to, "", err
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return to, "", err
	}
	switch len(names) {
	case 0:
		return to, linkBroken, nil
	case 1:
		return sql.NullString{String: names[0], Valid: true}, linkOK, nil
	}
	return to, linkAmbiguous, nil
}

// resolveWhere resolves again the links that cond selects (a condition on
// the links table, with args), for when the entries they could lead to
// changed.
func resolveWhere(ctx context.Context, tx *sql.Tx, cond string, args ...any) error {
	type pending struct {
		rowid int64
		l     link
	}
	rows, err := tx.QueryContext(ctx, `SELECT rowid, kind, key_raw, key_norm, key_fold, key_nfold FROM links WHERE `+cond, args...)
	if err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	var todo []pending
	for rows.Next() {
		var p pending
		if err := rows.Scan(&p.rowid, &p.l.kind, &p.l.keyRaw, &p.l.keyNorm, &p.l.keyFold, &p.l.keyNfold); err != nil {
			rows.Close()
			return fmt.Errorf("resolve links: %w", err)
		}
		todo = append(todo, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	if len(todo) == 0 {
		return nil
	}
	r, err := newResolver(ctx, tx)
	if err != nil {
		return fmt.Errorf("resolve links: %w", err)
	}
	defer r.close()
	for _, p := range todo {
		to, status, err := r.resolve(ctx, p.l)
		if err != nil {
			return fmt.Errorf("resolve links: %w", err)
		}
		if _, err := r.update.ExecContext(ctx, to, status, p.rowid); err != nil {
			return fmt.Errorf("resolve links: %w", err)
		}
	}
	return nil
}

// resolveAffected resolves again the links that changes to entries may
// have redirected: links to the entries changed, links whose keys match
// any name, slug, title or alias the changed entries had or have, and the
// links of the entries just written (ids).
func resolveAffected(ctx context.Context, tx *sql.Tx, k *affected) error {
	if k.empty() {
		return nil
	}
	return resolveWhere(ctx, tx, `
		from_id IN (SELECT value FROM json_each(?1))
		OR to_name IN (SELECT value FROM json_each(?2))
		OR key_raw IN (SELECT value FROM json_each(?3)) OR key_norm IN (SELECT value FROM json_each(?3))
		OR key_fold IN (SELECT value FROM json_each(?4)) OR key_nfold IN (SELECT value FROM json_each(?4))`,
		jsonList(k.ids), jsonList(k.names), jsonList(k.nameKeys), jsonList(k.foldKeys))
}

// affected collects what a batch of changes touched, for resolveAffected.
type affected struct {
	ids      []int64
	names    []string
	nameKeys []string // names and slugs
	foldKeys []string // titles and aliases, folded
}

func (k *affected) empty() bool { return len(k.ids) == 0 && len(k.names) == 0 }

// entry notes an entry's keys, before or after a change.
func (k *affected) entry(name, title string, aliases []string) {
	k.names = append(k.names, name)
	k.nameKeys = append(k.nameKeys, name, vault.Slug(name))
	if title != "" {
		k.foldKeys = append(k.foldKeys, fold(title))
	}
	for _, a := range aliases {
		k.foldKeys = append(k.foldKeys, fold(a))
	}
}

func jsonList[T any](v []T) string {
	if len(v) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Links returns the links from the entry name, in the order written.
func (ix *Index) Links(ctx context.Context, name string) ([]Link, error) {
	return ix.links(ctx, "from_id = (SELECT id FROM entries WHERE name = ?) ORDER BY l.rowid", name)
}

// Backlinks returns the links to the entry name, by the entry that holds them.
func (ix *Index) Backlinks(ctx context.Context, name string) ([]Link, error) {
	return ix.links(ctx, "to_name = ? ORDER BY e.name, l.rowid", name)
}

// LinkingTo returns the names of the entries that hold a link to one of
// keys, by name or slug (see vault.LinkFinder), after the check a read
// makes: a rename rewrites those links.
func (ix *Index) LinkingTo(ctx context.Context, keys []string) ([]string, error) {
	db, err := ix.forRead(ctx)
	if err != nil {
		return nil, err
	}
	// key_norm is the normalized target of a wikilink or links: item, and
	// the name a markdown link's path leads to.
	rows, err := db.QueryContext(ctx, `SELECT DISTINCT e.name FROM links l JOIN entries e ON e.id = l.from_id
		WHERE l.key_norm IN (SELECT value FROM json_each(?)) ORDER BY e.name`, jsonList(keys))
	if err != nil {
		return nil, fmt.Errorf("find links: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("find links: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// BrokenLinks returns the links that lead nowhere or to several entries.
func (ix *Index) BrokenLinks(ctx context.Context) ([]Link, error) {
	return ix.links(ctx, "status IN ('broken', 'ambiguous') ORDER BY e.name, l.rowid")
}

func (ix *Index) links(ctx context.Context, cond string, args ...any) ([]Link, error) {
	db, err := ix.forRead(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `
		SELECT e.name, l.kind, l.target, l.heading, l.label, l.to_name, l.status
		FROM links l JOIN entries e ON e.id = l.from_id WHERE `+cond, args...)
	if err != nil {
		return nil, fmt.Errorf("read links: %w", err)
	}
	defer rows.Close()
	out := []Link{}
	for rows.Next() {
		var l Link
		var to sql.NullString
		if err := rows.Scan(&l.From, &l.Kind, &l.Target, &l.Heading, &l.Label, &to, &l.Status); err != nil {
			return nil, fmt.Errorf("read links: %w", err)
		}
		if to.Valid {
			l.To = &to.String
		}
		out = append(out, l)
	}
	return out, rows.Err()
}
