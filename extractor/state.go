package extractor

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/ctx0/ctx0/sessions"
)

// stateFile keeps, per machine, how learned queries are used and which
// retrieve plans recur, in the vault's local state (which git ignores).
const stateFile = "extractor.json"

// state is the content of stateFile.
type state struct {
	Queries map[string]QueryStats `json:"queries"`
	// Plans counts retrieve plans by their key (see planKey), to offer a
	// learned query for a plan that recurs.
	Plans map[string]planStats `json:"plans"`
}

// QueryStats is how a learned query has been used on this machine.
type QueryStats struct {
	Uses     int       `json:"uses"`
	TotalMS  float64   `json:"total_ms"`
	LastUsed time.Time `json:"last_used,omitzero"`
}

// AvgLatencyMS is the mean time a run of the query took.
func (s QueryStats) AvgLatencyMS() float64 {
	if s.Uses == 0 {
		return 0
	}
	return s.TotalMS / float64(s.Uses)
}

type planStats struct {
	Question string    `json:"question"`
	Scope    []string  `json:"scope,omitempty"`
	Count    int       `json:"count"`
	Last     time.Time `json:"last"`
}

// Plans that recur.
const (
	// recurAfter is how often a plan must run before a learned query is
	// offered for it.
	recurAfter = 3
	// maxPlans bounds the plans remembered; the least recent go first.
	maxPlans = 500
)

// QueryUsage returns how the learned queries of the vault at root have
// been used on this machine, by name.
func QueryUsage(root string) (map[string]QueryStats, error) {
	st, err := readState(root)
	return st.Queries, err
}

// recordQueryUse counts a run of the learned query name that took took.
// The counts are advisory: a vault whose local state cannot be written (a
// read-only copy) still answers, uncounted.
func recordQueryUse(ctx context.Context, root, name string, took time.Duration, now time.Time) {
	_ = updateState(ctx, root, func(st *state) {
		s := st.Queries[name]
		s.Uses++
		s.TotalMS += float64(took.Microseconds()) / 1000
		s.LastUsed = now.UTC()
		st.Queries[name] = s
	})
}

// recordPlan counts a retrieve plan and, once it recurs and no learned
// query answers it, returns the suggestion to save one. Like the use
// counts, it is advisory: without writable local state, no suggestion.
func recordPlan(ctx context.Context, root string, req Request, t terms, now time.Time, qs Queries) *Suggestion {
	// A long question is a one-off, and would not fit a bundle's last line.
	if len(t.stems) == 0 || Tokens(req.Query) > maxHeadQuery {
		return nil
	}
	key := planKey(t, req.Scope)
	var n int
	err := updateState(ctx, root, func(st *state) {
		p := st.Plans[key]
		p.Question, p.Scope, p.Last = req.Query, req.Scope, now.UTC()
		p.Count++
		n = p.Count
		st.Plans[key] = p
		if len(st.Plans) > maxPlans {
			oldest := ""
			for k, v := range st.Plans {
				if oldest == "" || v.Last.Before(st.Plans[oldest].Last) {
					oldest = k
				}
			}
			delete(st.Plans, oldest)
		}
	})
	if err != nil || n < recurAfter {
		return nil
	}
	name := suggestName(t, qs)
	cmd := fmt.Sprintf("ctx0 query save %s --from %q", name, req.Query)
	if len(req.Scope) > 0 {
		cmd += " --scope " + strings.Join(req.Scope, ",")
	}
	return &Suggestion{Name: name, Asked: n, Command: cmd}
}

// planKey identifies a retrieve plan: its search words, by stem, in any
// order, and its scope.
func planKey(t terms, scope []string) string {
	stems := slices.Sorted(slices.Values(t.stems))
	return strings.Join(stems, " ") + "|" + strings.Join(slices.Sorted(slices.Values(scope)), ",")
}

// suggestName names a learned query after the first words of a question,
// unlike any the vault has.
func suggestName(t terms, qs Queries) string {
	var parts []string
	for _, w := range t.words {
		if queryName().MatchString(w) {
			parts = append(parts, w)
		}
		if len(parts) == 3 {
			break
		}
	}
	base := cmp.Or(strings.Join(parts, "-"), "recurring")
	name := base
	for i := 2; ; i++ {
		if _, err := qs.Get(name); err != nil {
			return name
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
}

// ForgetQuestions clears what the vault at root remembers of the retrieve
// questions asked on this machine, so that each is again asked for the
// first time (an evaluation asks the questions of a kept vault again).
// The use counts of learned queries are kept.
func ForgetQuestions(ctx context.Context, root string) error {
	return updateState(ctx, root, func(st *state) { clear(st.Plans) })
}

func statePath(root, file string) string {
	return filepath.Join(root, filepath.FromSlash(sessions.StateDir), file)
}

func readState(root string) (state, error) {
	st := state{Queries: map[string]QueryStats{}, Plans: map[string]planStats{}}
	data, err := os.ReadFile(statePath(root, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read extractor state: %w", err)
	}
	// A damaged state is counts lost, not an error to stop on.
	_ = json.Unmarshal(data, &st)
	if st.Queries == nil {
		st.Queries = map[string]QueryStats{}
	}
	if st.Plans == nil {
		st.Plans = map[string]planStats{}
	}
	return st, nil
}

// updateState changes the state under its lock, waiting for it until ctx
// ends.
func updateState(ctx context.Context, root string, fn func(*state)) error {
	l, err := filelock.Exclusive(ctx, statePath(root, stateFile+".lock"))
	if err != nil {
		return err
	}
	defer l.Unlock()
	st, err := readState(root)
	if err != nil {
		return err
	}
	fn(&st)
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("write extractor state: %w", err)
	}
	// 0600 as before: the state holds the questions asked of the vault.
	if err := atomicfile.WriteFile(statePath(root, stateFile), data, 0o600); err != nil {
		return fmt.Errorf("write extractor state: %w", err)
	}
	return nil
}
