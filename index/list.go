package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ctx0/ctx0/vault"
)

// summaryColumns are the columns of entries that list an entry, in the
// order scanSummary reads them.
const summaryColumns = `name, title, type, tags, project, pinned, updated, happened`

// scanSummary reads the summaryColumns of a row, then the row's further
// columns into more.
func scanSummary(rows *sql.Rows, more ...any) (vault.Summary, error) {
	var (
		s                       vault.Summary
		tags, updated, happened string
	)
	if err := rows.Scan(append([]any{&s.Name, &s.Title, &s.Type, &tags, &s.Project, &s.Pinned, &updated, &happened}, more...)...); err != nil {
		return s, err
	}
	s.Path = vault.EntryPath(s.Name)
	if err := json.Unmarshal([]byte(tags), &s.Tags); err != nil || s.Tags == nil {
		s.Tags = []string{}
	}
	s.Updated, _ = time.Parse(time.RFC3339, updated)
	s.Happened, _ = time.Parse(time.RFC3339, happened)
	return s, nil
}

// List returns the entries that f selects, by name, as vault.List does but
// from the index, after the check a read makes: files that do not parse
// are left out and reported in problems.
func (ix *Index) List(ctx context.Context, f vault.Filter) (list []vault.Summary, problems []error, err error) {
	db, err := ix.forRead(ctx)
	if err != nil {
		return nil, nil, err
	}
	// A file that does not parse is reported whatever the filter, as
	// vault.List reads every file before it filters.
	rows, err := db.QueryContext(ctx, `SELECT `+summaryColumns+`, problem FROM entries
		WHERE problem != '' OR ((?1 = '' OR type = ?1) AND (?2 = '' OR project = ?2) AND (NOT ?3 OR pinned)
			AND (?4 = '' OR EXISTS (SELECT 1 FROM tags t WHERE t.entry_id = entries.id AND t.tag = ?4))
			AND (NOT ?6 OR archived != '')
			AND (?5 OR ?6 OR (archived = '' AND superseded_by = '')))
		ORDER BY name`, f.Type, f.Project, f.Pinned, f.Tag, f.All, f.Archived)
	if err != nil {
		return nil, nil, fmt.Errorf("list entries: %w", err)
	}
	defer rows.Close()
	list = []vault.Summary{}
	for rows.Next() {
		var problem string
		s, err := scanSummary(rows, &problem)
		if err != nil {
			return nil, nil, fmt.Errorf("list entries: %w", err)
		}
		if problem != "" {
			problems = append(problems, fmt.Errorf("read entry %s: %s", s.Path, problem))
			continue
		}
		list = append(list, s)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("list entries: %w", err)
	}
	return list, problems, nil
}
