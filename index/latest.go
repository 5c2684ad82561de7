package index

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Listing selects entries by their fields, for Latest. Zero fields select
// everything.
type Listing struct {
	Limit int // at most this many; 0 means DefaultLimit
	Type  string
	Tag   string
	Scope string // this folder or below it, such as "contacts"
	// Projects, if not empty, keeps the entries whose project is one of
	// these; "" stands for entries of no project (global ones).
	Projects []string
	Pinned   bool      // only pinned entries
	Since    time.Time // only entries that happened (vault.Happened, else modified) at or after Since
	Until    time.Time // only entries that happened (vault.Happened, else modified) before Until
	// ChangedSince keeps the entries changed (updated, else created, else
	// modified) at or after it, whenever what they tell happened: what
	// the session-start block's summaries do not hold yet.
	ChangedSince time.Time
	All          bool // also superseded and archived entries
	// Offset skips this many of the entries selected: a later page.
	Offset int
}

// latestIndexes let Latest walk the entries newest first and stop at its
// limit, rather than sort the table for every listing (10 ms and more at
// 10,000 entries): all entries, pinned ones, and those of a type. They
// belong with schemaIndexes; until they are there, Latest creates them in
// an index file that lacks them.
var latestIndexes = []string{
	`CREATE INDEX IF NOT EXISTS entries_recency ON entries(recency DESC, name)`,
	`CREATE INDEX IF NOT EXISTS entries_pinned_recency ON entries(recency DESC, name) WHERE pinned`,
	`CREATE INDEX IF NOT EXISTS entries_type_recency ON entries(type, recency DESC, name)`,
}

// ensure creates tables or indexes of the extractor's (see latestIndexes
// and vectorTables) with stmts if the index file has no object named
// object, the last stmts create: after a rebuild, which makes the file
// afresh.
func (ix *Index) ensure(ctx context.Context, object string, stmts []string) error {
	db, err := ix.handle(ctx)
	if err != nil {
		return err
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = ?`, object).Scan(&n); err != nil {
		return fmt.Errorf("create %s: %w", object, err)
	}
	if n > 0 {
		return nil
	}
	unlock, err := lockFile(ctx, ix.writeLock(), false)
	if err != nil {
		return err
	}
	defer unlock()
	return withTx(ctx, db, func(tx *sql.Tx) error {
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("create %s: %w", object, err)
			}
		}
		return nil
	})
}

// Latest returns the entries that l selects, the most recently changed
// first (updated, else created, else the file's mtime), as search lists
// them but with no score and no snippet. A listing of a time (Since or
// Until) lists the latest to happen first, by the date it selects by: a
// fact filed today from a session of last Monday comes after one of last
// Friday. Files that do not parse are left
// out. The extractor lists pinned and latest entries, and globs names,
// with it.
func (ix *Index) Latest(ctx context.Context, l Listing) ([]Result, error) {
	if l.Limit <= 0 {
		l.Limit = DefaultLimit
	}
	db, err := ix.forRead(ctx)
	if err != nil {
		return nil, err
	}
	if err := ix.ensure(ctx, "entries_type_recency", latestIndexes); err != nil {
		return nil, err
	}
	var b strings.Builder
	var args []any
	if l.Type != "" {
		b.WriteString(" AND type = ?")
		args = append(args, l.Type)
	}
	if l.Tag != "" {
		b.WriteString(" AND EXISTS (SELECT 1 FROM tags t WHERE t.entry_id = entries.id AND t.tag = ?)")
		args = append(args, l.Tag)
	}
	if s := strings.Trim(l.Scope, "/"); s != "" {
		b.WriteString(" AND (folder = ? OR (folder >= ? AND folder < ?))") // '0' follows '/'
		args = append(args, s, s+"/", s+"0")
	}
	if len(l.Projects) > 0 {
		b.WriteString(" AND project IN (SELECT value FROM json_each(?))")
		args = append(args, jsonList(l.Projects))
	}
	if l.Pinned {
		b.WriteString(" AND pinned")
	}
	if !l.Since.IsZero() {
		b.WriteString(" AND " + happenedAt("") + " >= ?")
		args = append(args, utc(l.Since))
	}
	if !l.Until.IsZero() {
		b.WriteString(" AND " + happenedAt("") + " < ?")
		args = append(args, utc(l.Until))
	}
	if !l.ChangedSince.IsZero() {
		b.WriteString(" AND recency >= ?")
		args = append(args, utc(l.ChangedSince))
	}
	if !l.All {
		b.WriteString(" AND superseded_by = '' AND archived = ''")
	}
	order := "recency"
	if !l.Since.IsZero() || !l.Until.IsZero() {
		order = happenedAt("")
	}
	rows, err := db.QueryContext(ctx, `SELECT `+summaryColumns+`
		FROM entries WHERE problem = ''`+b.String()+` ORDER BY `+order+` DESC, name LIMIT ? OFFSET ?`, append(args, l.Limit, max(l.Offset, 0))...)
	if err != nil {
		return nil, fmt.Errorf("list latest entries: %w", err)
	}
	defer rows.Close()
	out := []Result{}
	for rows.Next() {
		s, err := scanSummary(rows)
		if err != nil {
			return nil, fmt.Errorf("list latest entries: %w", err)
		}
		out = append(out, Result{Summary: s})
	}
	return out, rows.Err()
}
