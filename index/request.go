package index

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/vault"
)

// MaxLimit is the most results a request may ask a search for: enough to
// choose from, few enough to stay cheap to read. A larger limit is taken
// as MaxLimit.
const MaxLimit = 50

// Check makes q ready to search as a request: the one validation every
// adapter's search goes through, so that the CLI and the MCP server
// accept and refuse the same searches. The text is trimmed and must hold
// something; a limit of 0 is DefaultLimit, a negative one is refused and
// one above MaxLimit taken as MaxLimit; the scope becomes a vault name;
// since must come before until. Last, the text is read once, at now
// (query.Parse), into Plan, unless it already was. Errors name the
// argument at fault.
func (q *Query) Check(now time.Time) error {
	q.Text = strings.TrimSpace(q.Text)
	if q.Text == "" {
		return errors.New("query is empty: give words to search for")
	}
	switch {
	case q.Limit < 0:
		return fmt.Errorf("limit %d: want 1 to %d (0: %d)", q.Limit, MaxLimit, DefaultLimit)
	case q.Limit == 0:
		q.Limit = DefaultLimit
	case q.Limit > MaxLimit:
		q.Limit = MaxLimit
	}
	if s := strings.TrimSpace(q.Scope); s != "" {
		name, err := ScopeFolder(s)
		if err != nil {
			return err
		}
		q.Scope = name
	} else {
		q.Scope = ""
	}
	if err := CheckWindow(q.Since, q.Until); err != nil {
		return err
	}
	if q.Plan == nil {
		q.Plan = query.Parse(q.Text, now)
	}
	return nil
}

// ScopeFolder returns a request's scope, a folder of the vault, as a
// vault name; an error names it.
func ScopeFolder(folder string) (string, error) {
	name, err := vault.NormalizeName(folder)
	if err != nil {
		return "", fmt.Errorf("scope %q: %w; use a folder such as contacts", folder, err)
	}
	return name, nil
}

// CheckWindow refuses a request's time bounds when since does not come
// before until.
func CheckWindow(since, until time.Time) error {
	if !since.IsZero() && !until.IsZero() && !since.Before(until) {
		return fmt.Errorf("since %s is not before until %s", since.Format(time.RFC3339), until.Format(time.RFC3339))
	}
	return nil
}
