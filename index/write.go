package index

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/vault"
)

// The statements of a writer.
const (
	insEntry = `INSERT INTO entries(name, slug, folder, title, title_fold, type, tags, project, pinned, source,
		created, updated, archived, superseded_by, recency, happened, frontmatter, body_sum, hash, size, mtime, settled, problem, ino)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	insFTS    = `INSERT INTO fts(rowid, name, title, tags, body) VALUES (?, ?, ?, ?, ?)`
	insHead   = `INSERT INTO fts_head(rowid, name, title, tags) VALUES (?, ?, ?, ?)`
	insRecent = `INSERT INTO fts_recent(rowid, name, title, tags, body) VALUES (?, ?, ?, ?, ?)`
	insAlias  = `INSERT INTO aliases(entry_id, alias, fold) VALUES (?, ?, ?)`
	insTag    = `INSERT OR IGNORE INTO tags(entry_id, tag) VALUES (?, ?)`
	insLink   = `INSERT INTO links(from_id, kind, target, heading, label, key_raw, key_norm, key_fold, key_nfold, to_name, status)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 'pending')`
	delEntry    = `DELETE FROM entries WHERE id = ?`
	delFTS      = `DELETE FROM fts WHERE rowid = ?`
	delHead     = `DELETE FROM fts_head WHERE rowid = ?`
	delRecent   = `DELETE FROM fts_recent WHERE rowid = ?`
	delAliases  = `DELETE FROM aliases WHERE entry_id = ?`
	delTags     = `DELETE FROM tags WHERE entry_id = ?`
	delLinks    = `DELETE FROM links WHERE from_id = ?`
	setStamp    = `UPDATE entries SET size = ?, mtime = ?, settled = ?, recency = ?, ino = ? WHERE id = ?`
	unsettleRow = `UPDATE entries SET settled = 0 WHERE id = ?`
	// xorSum XORs ?2 into the sum of the folder ?1: (a|b) & ~(a&b) is a
	// XOR in SQLite's operators, and cannot overflow.
	xorSum = `INSERT INTO folder_sums(path, sum) VALUES (?1, ?2)
		ON CONFLICT(path) DO UPDATE SET sum = (sum | ?2) & ~(sum & ?2)`
	// xorNames does the same to the folder's sum of names and inodes.
	xorNames = `INSERT INTO folder_sums(path, sum, names) VALUES (?1, 0, ?2)
		ON CONFLICT(path) DO UPDATE SET names = (names | ?2) & ~(names & ?2)`
)

// writer writes entries in one transaction with prepared statements, each
// prepared when first used: a rebuild runs them all many times over, while
// the update after a write runs a few once, and preparing the others would
// cost it more than running them.
type writer struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func newWriter(tx *sql.Tx) *writer {
	return &writer{tx: tx, stmts: map[string]*sql.Stmt{}}
}

// exec runs the statement q, one of the writer's.
func (w *writer) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	st, ok := w.stmts[q]
	if !ok {
		var err error
		if st, err = w.tx.PrepareContext(ctx, q); err != nil {
			return nil, fmt.Errorf("prepare index writes: %w", err)
		}
		w.stmts[q] = st
	}
	return st.ExecContext(ctx, args...)
}

func (w *writer) close() {
	for _, s := range w.stmts {
		s.Close()
	}
}

// put inserts r as a new entry and returns its id, which is higher than
// every id before it; recent says whether it goes into fts_recent too. The
// caller removes any older row of the same name first.
func (w *writer) put(ctx context.Context, r *record, recent bool) (int64, error) {
	res, err := w.exec(ctx, insEntry, r.name, vault.Slug(r.name), vault.Folder(r.name), r.title, fold(r.title),
		r.typ, r.tagsJSON(), r.project, r.pinned, r.source, r.created, r.updated, r.archived, r.supersededBy,
		r.recency, r.happened, r.front, r.bodySum, r.hash, r.stamp.size, r.stamp.mtime, r.settled, r.problem, int64(r.ino))
	if err != nil {
		return 0, fmt.Errorf("index %s: %w", vault.EntryPath(r.name), err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("index %s: %w", vault.EntryPath(r.name), err)
	}
	if err := w.xor(ctx, r.name, stampSum(r.name, r.stamp, r.settled)); err != nil {
		return 0, err
	}
	if err := w.xorNames(ctx, r.name, nameSum(r.name, r.ino)); err != nil {
		return 0, err
	}
	name, title, tags := query.Segment(vault.Slug(r.name)), query.Segment(r.title), query.Segment(strings.Join(r.tags, " "))
	if _, err := w.exec(ctx, insFTS, id, name, title, tags, r.text); err != nil {
		return 0, fmt.Errorf("index %s: %w", vault.EntryPath(r.name), err)
	}
	if _, err := w.exec(ctx, insHead, id, name, title, tags); err != nil {
		return 0, fmt.Errorf("index %s: %w", vault.EntryPath(r.name), err)
	}
	if recent {
		if _, err := w.exec(ctx, insRecent, id, name, title, tags, r.text); err != nil {
			return 0, fmt.Errorf("index %s: %w", vault.EntryPath(r.name), err)
		}
	}
	for _, a := range r.aliases {
		if _, err := w.exec(ctx, insAlias, id, a, fold(a)); err != nil {
			return 0, fmt.Errorf("index %s: %w", vault.EntryPath(r.name), err)
		}
	}
	for _, t := range r.tags {
		if _, err := w.exec(ctx, insTag, id, t); err != nil {
			return 0, fmt.Errorf("index %s: %w", vault.EntryPath(r.name), err)
		}
	}
	for _, l := range r.links {
		if _, err := w.exec(ctx, insLink, id, l.kind, l.target, l.heading, l.label, l.keyRaw, l.keyNorm, l.keyFold, l.keyNfold); err != nil {
			return 0, fmt.Errorf("index %s: %w", vault.EntryPath(r.name), err)
		}
	}
	return id, nil
}

// remove deletes the entry of row and everything derived from it.
func (w *writer) remove(ctx context.Context, row entryRow) error {
	for _, q := range []string{delFTS, delHead, delRecent, delAliases, delTags, delLinks, delEntry} {
		if _, err := w.exec(ctx, q, row.id); err != nil {
			return fmt.Errorf("remove entry %d from the index: %w", row.id, err)
		}
	}
	if err := w.xorNames(ctx, row.name, nameSum(row.name, row.ino)); err != nil {
		return err
	}
	return w.xor(ctx, row.name, stampSum(row.name, row.stamp, row.settled))
}

// restamp records that the file of row has the same content as indexed,
// as read again in rec: a new size or mtime (and so, for an entry without
// dates, a new recency), or a row that has become settled.
func (w *writer) restamp(ctx context.Context, row entryRow, rec *record) error {
	if _, err := w.exec(ctx, setStamp, rec.stamp.size, rec.stamp.mtime, rec.settled, rec.recency, int64(rec.ino), row.id); err != nil {
		return fmt.Errorf("update entry %d in the index: %w", row.id, err)
	}
	if rec.ino != row.ino {
		// The same bytes in another file (a write that renamed a new
		// file over it).
		if err := w.xorNames(ctx, row.name, nameSum(row.name, row.ino)^nameSum(row.name, rec.ino)); err != nil {
			return err
		}
	}
	return w.xor(ctx, row.name, stampSum(row.name, row.stamp, row.settled)^stampSum(row.name, rec.stamp, rec.settled))
}

// unsettle marks row unsettled, so that the next update reads its file
// whatever its size and mtime say.
func (w *writer) unsettle(ctx context.Context, row entryRow) error {
	if _, err := w.exec(ctx, unsettleRow, row.id); err != nil {
		return fmt.Errorf("update entry %d in the index: %w", row.id, err)
	}
	return w.xor(ctx, row.name, stampSum(row.name, row.stamp, row.settled)^stampSum(row.name, row.stamp, false))
}

// xor XORs sum into the folder sum of the entry name's folder.
func (w *writer) xor(ctx context.Context, name string, sum uint64) error {
	if _, err := w.exec(ctx, xorSum, vault.Folder(name), int64(sum)); err != nil {
		return fmt.Errorf("index %s: %w", vault.EntryPath(name), err)
	}
	return nil
}

// xorNames XORs sum into the names sum of the entry name's folder.
func (w *writer) xorNames(ctx context.Context, name string, sum uint64) error {
	if _, err := w.exec(ctx, xorNames, vault.Folder(name), int64(sum)); err != nil {
		return fmt.Errorf("index %s: %w", vault.EntryPath(name), err)
	}
	return nil
}

// nameSum hashes what the folder check compares of an entry: its name and
// its file's inode number. A file added, removed, renamed or replaced by a
// rename (a new file, so a new inode) changes its folder's sum of them; a
// file edited in place does not, as it does not change its folder's mtime.
func nameSum(name string, ino uint64) uint64 {
	return nameSumFrom(fnvString(fnvOffset, name), ino)
}

// FNV-1a (64 bits), as hash/fnv computes it, written out so that the
// folder check sums the names of a folder of 1,000 entries without a
// hasher, a joined path and a byte copy of each.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnvString is the FNV-1a hash h continued over s.
func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// nameSumFrom is nameSum of a name whose FNV-1a hash is h.
func nameSumFrom(h, ino uint64) uint64 {
	h *= fnvPrime // h ^= 0, the name's terminator
	for range 8 {
		h ^= ino & 0xff
		h *= fnvPrime
		ino >>= 8
	}
	return h
}

// stampSum hashes what the full check compares of an entry: its name, its
// file's size and mtime, and whether the row is settled. The files on disk
// are summed as settled, so a folder with an unsettled row never matches.
func stampSum(name string, s stamp, settled bool) uint64 {
	return stampSumFrom(fnvString(fnvOffset, name), s, settled)
}

// stampSumFrom is stampSum of a name whose FNV-1a hash is h: FNV-1a over
// the name, a NUL, the size and mtime (eight bytes each, little endian) and
// a byte for settled, as hash/fnv computed it for indexes already written.
// The full check hashes a folder's names in parts, as the folder check does.
func stampSumFrom(h uint64, s stamp, settled bool) uint64 {
	h *= fnvPrime // h ^= 0, the name's terminator
	for _, v := range [2]uint64{uint64(s.size), uint64(s.mtime)} {
		for range 8 {
			h ^= v & 0xff
			h *= fnvPrime
			v >>= 8
		}
	}
	if settled {
		h ^= 1
	}
	return h * fnvPrime
}

// trimRecent keeps fts_recent from growing past twice recentSize: it then
// drops all but the recentSize most recent entries.
func trimRecent(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM fts_recent_docsize`).Scan(&n); err != nil {
		return fmt.Errorf("trim recent entries: %w", err)
	}
	if n <= 2*recentSize {
		return nil
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM fts_recent WHERE rowid <= (SELECT id FROM fts_recent_docsize ORDER BY id DESC LIMIT 1 OFFSET ?)`, recentSize)
	if err != nil {
		return fmt.Errorf("trim recent entries: %w", err)
	}
	return nil
}
