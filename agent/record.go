// Package agent is what the librarian and curator runs share: a run is
// isolated from the work tree (it reads the vault as of a base commit and
// collects its changes), committed on its own ref, merged back into the
// branch field by field, and recorded. The llm subpackage is how a run asks
// a model.
package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/ctx0/ctx0/vault"
)

// Run statuses.
const (
	StatusRunning   = "running"
	StatusDone      = "done"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
	// StatusDied is never written: it is how a record left running by a
	// process that is gone reads.
	StatusDied = "died"
)

// Run is the record of one run.
type Run struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`    // librarian, curator, …
	Trigger string `json:"trigger"` // what started it: a conversation, a hook, a person
	Base    string `json:"base"`    // the commit the run read
	// Result is the run's own commit, on refs/ctx0/runs/<id>; "" when the
	// run changed nothing.
	Result string `json:"result"`
	// Merged is the branch's commit after the run was merged into it.
	Merged    string    `json:"merged,omitempty"`
	Status    string    `json:"status"`
	Provider  string    `json:"provider"`
	Model     string    `json:"model"`
	Usage     llm.Usage `json:"usage"`
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended,omitzero"`
	Created   []string  `json:"created"` // entry paths
	Updated   []string  `json:"updated"`
	Deleted   []string  `json:"deleted"`
	Conflicts int       `json:"conflicts"`
	Error     string    `json:"error,omitempty"`
	// Notes explain the run's changes, one per change, for runs that say
	// why they changed what they did (the curator).
	Notes []Note `json:"notes,omitempty"`
}

// Note is why a run changed an entry.
type Note struct {
	Entry string `json:"entry"`
	Text  string `json:"text"`
}

// Note adds an explanation of one change to the run's record.
func (s *Session) Note(entry, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.run.Notes = append(s.run.Notes, Note{Entry: entry, Text: text})
}

// Duration is how long the run took; 0 while it runs.
func (r Run) Duration() time.Duration {
	if r.Ended.IsZero() {
		return 0
	}
	return r.Ended.Sub(r.Started)
}

// ErrNoRun is returned by Get for an id with no record.
var ErrNoRun = errors.New("no such run")

// runsDir holds one record and one lock file per run. It is machine-local
// state, which the vault's .gitignore keeps out of git.
const runsDir = ".ctx0/state/runs"

func recordPath(root, id string) string {
	return filepath.Join(root, filepath.FromSlash(runsDir), id+".json")
}

func lockPath(root, id string) string {
	return filepath.Join(root, filepath.FromSlash(runsDir), id+".lock")
}

// newID is sortable by start time (UTC, to the millisecond) and unique
// (a random suffix), and is a valid ref name component.
func newID(now time.Time) (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make run id: %w", err)
	}
	return now.UTC().Format("20060102T150405.000Z") + "-" + hex.EncodeToString(b[:]), nil
}

// save writes the record atomically.
func save(root string, r Run) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("record run %s: %w", r.ID, err)
	}
	if err := atomicfile.Replace(recordPath(root, r.ID), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("record run %s: %w", r.ID, err)
	}
	return nil
}

// List returns the runs recorded in the vault at root, newest first.
func List(ctx context.Context, root string) ([]Run, error) {
	files, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(runsDir)))
	if errors.Is(err, os.ErrNotExist) {
		return []Run{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	out := []Run{}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		id, ok := strings.CutSuffix(f.Name(), ".json")
		if !ok || strings.HasPrefix(id, ".") { // a temporary file mid-write
			continue
		}
		r, err := Get(ctx, root, id)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	// Ids start with the start time, so their order is the runs'.
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, nil
}

// Get returns the record of run id. A run recorded as running whose process
// is gone reads as died.
func Get(ctx context.Context, root, id string) (Run, error) {
	if err := ctx.Err(); err != nil {
		return Run{}, err
	}
	if vault.CheckRunID(id) != nil {
		return Run{}, fmt.Errorf("%w %q (see ctx0 runs)", ErrNoRun, id)
	}
	r, err := load(root, id)
	if err != nil || r.Status != StatusRunning {
		return r, err
	}
	// The owner holds the run's lock for as long as it lives.
	l, ok, err := filelock.TryExclusive(lockPath(root, id))
	if err != nil {
		return Run{}, fmt.Errorf("check run %s: %w", id, err)
	}
	if !ok {
		return r, nil
	}
	defer l.Unlock()
	// The owner may have finished between the read and the lock.
	if r, err = load(root, id); err == nil && r.Status == StatusRunning {
		r.Status = StatusDied
	}
	return r, err
}

func load(root, id string) (Run, error) {
	data, err := os.ReadFile(recordPath(root, id))
	if errors.Is(err, os.ErrNotExist) {
		return Run{}, fmt.Errorf("%w %q (see ctx0 runs)", ErrNoRun, id)
	}
	if err != nil {
		return Run{}, fmt.Errorf("read run %s: %w", id, err)
	}
	r, err := parseRun(id, data)
	if err != nil {
		return Run{}, fmt.Errorf("read run %s: %w", recordPath(root, id), err)
	}
	return r, nil
}

// parseRun reads the record of run id from data. The id names the
// record's file, its lock and its ref, so a record that says it is another
// run is refused.
func parseRun(id string, data []byte) (Run, error) {
	var r Run
	if err := json.Unmarshal(data, &r); err != nil {
		return Run{}, err
	}
	if r.ID != id {
		return Run{}, fmt.Errorf("the record says it is run %q", r.ID)
	}
	// One shape in --json whatever wrote the record.
	for _, l := range []*[]string{&r.Created, &r.Updated, &r.Deleted} {
		if *l == nil {
			*l = []string{}
		}
	}
	return r, nil
}
