package extractor

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/index/query"
)

// Check makes req ready to answer: the one validation every adapter's
// request goes through, so that the CLI and the MCP server accept and
// refuse the same requests. The question is trimmed and must hold
// something; a budget of 0 is DefaultBudget, one below MinBudget is
// refused (ErrBudget) and one above MaxBudget taken as MaxBudget; the
// scope's folders become vault names ("sessions" stays as it is, blanks
// are dropped); since must come before until. Last, the question is read
// once, at now (query.Parse), into Plan, unless it already was. Errors
// name the argument at fault.
func (req *Request) Check(now time.Time) error {
	req.Query = strings.TrimSpace(req.Query)
	if req.Query == "" {
		return errors.New("query is empty: ask a question in plain words")
	}
	budget, err := CheckBudget(req.Budget, DefaultBudget, MinBudget)
	if err != nil {
		return err
	}
	req.Budget = budget
	scope, err := normalizeScope(req.Scope)
	if err != nil {
		return err
	}
	req.Scope = scope
	if err := index.CheckWindow(req.Since, req.Until); err != nil {
		return err
	}
	if req.Plan == nil {
		req.Plan = query.Parse(req.Query, now)
	}
	return nil
}

// CheckBudget is the one rule for a budget asked of any answer (retrieve,
// a learned query, the session-start block), whoever asks: 0 takes def,
// one below least is refused (ErrBudget, naming the budget), one above
// MaxBudget is taken as MaxBudget.
func CheckBudget(n, def, least int) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < least:
		return 0, fmt.Errorf("budget %d: %w: want %d or more", n, ErrBudget, least)
	case n > MaxBudget:
		return MaxBudget, nil
	}
	return n, nil
}

// normalizeScope returns the folders of a scope as vault names, with
// "sessions" for past conversations and without blanks.
func normalizeScope(scope []string) ([]string, error) {
	var out []string
	for _, f := range scope {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if f == sessionsScope {
			out = append(out, f)
			continue
		}
		name, err := index.ScopeFolder(f)
		if err != nil {
			return nil, fmt.Errorf("%w (or sessions)", err)
		}
		out = append(out, name)
	}
	return out, nil
}
