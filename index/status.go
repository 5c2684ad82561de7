package index

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ctx0/ctx0/vault"
)

// Status is an overview of the vault and its index.
type Status struct {
	Vault      string          `json:"vault"`
	Entries    int             `json:"entries"`
	ByType     map[string]int  `json:"by_type"` // "" for entries without a type
	Pinned     int             `json:"pinned"`
	Superseded int             `json:"superseded"`
	Archived   int             `json:"archived"`
	Unparsable int             `json:"unparsable"` // files that are not valid entries (see ctx0 doctor)
	Size       int64           `json:"size"`       // bytes of entry files
	Oldest     *Dated          `json:"oldest"`     // by created
	Newest     *Dated          `json:"newest"`
	LastCommit *vault.LogEntry `json:"last_commit"`
	Index      IndexStatus     `json:"index"`
}

// Dated is an entry and when it was created.
type Dated struct {
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
}

// IndexStatus is the state of the index file and how fresh it is.
type IndexStatus struct {
	Path  string    `json:"path"`
	Size  int64     `json:"size"` // bytes of the database and its WAL
	Built time.Time `json:"built"`
	// Check is the check this status made before it counted, and what it
	// found: after it, the index agrees with the files.
	Check   Report   `json:"check"`
	Watcher *Watcher `json:"watcher"` // nil when no watcher runs
}

// Status reports on the vault and its index, after the check reads make.
func (ix *Index) Status(ctx context.Context) (Status, error) {
	st := Status{Vault: ix.root, ByType: map[string]int{}}
	db, err := ix.forRead(ctx)
	if err != nil {
		return st, err
	}
	st.Index.Check = ix.LastCheck()
	if w, ok := ix.RunningWatcher(); ok {
		st.Index.Watcher = &w
	}
	rows, err := db.QueryContext(ctx, `SELECT type, count(*), sum(pinned), sum(superseded_by != ''), sum(archived != ''),
		sum(problem != ''), sum(size) FROM entries GROUP BY type ORDER BY type`)
	if err != nil {
		return st, fmt.Errorf("status: %w", err)
	}
	for rows.Next() {
		var (
			typ                                      string
			n, pinned, superseded, archived, problem int
			size                                     int64
		)
		if err := rows.Scan(&typ, &n, &pinned, &superseded, &archived, &problem, &size); err != nil {
			rows.Close()
			return st, fmt.Errorf("status: %w", err)
		}
		st.ByType[typ] = n
		st.Entries += n
		st.Pinned += pinned
		st.Superseded += superseded
		st.Archived += archived
		st.Unparsable += problem
		st.Size += size
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("status: %w", err)
	}
	for _, end := range []struct {
		dst   **Dated
		order string
	}{{&st.Oldest, "ASC"}, {&st.Newest, "DESC"}} {
		var d Dated
		var created string
		err := db.QueryRowContext(ctx, `SELECT name, created FROM entries WHERE created != '' ORDER BY created `+end.order+`, name LIMIT 1`).Scan(&d.Name, &created)
		if err == nil {
			d.Created, _ = time.Parse(time.RFC3339, created)
			*end.dst = &d
		}
	}
	var built string
	if err := db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaBuilt).Scan(&built); err == nil {
		st.Index.Built, _ = time.Parse(time.RFC3339, built)
	}
	st.Index.Path = ix.path
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(ix.path + suffix); err == nil {
			st.Index.Size += fi.Size()
		}
	}
	log, err := ix.v.Log(ctx, 1)
	if err != nil {
		return st, fmt.Errorf("status: %w", err)
	}
	if len(log) > 0 {
		st.LastCommit = &log[0]
	}
	return st, nil
}
