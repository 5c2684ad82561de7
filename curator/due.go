package curator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/ctx0/ctx0/vault"
)

// ErrBusy is returned when another curator run is under way in the vault.
var ErrBusy = errors.New("another curator run is under way")

// lockFile is held while a curator run works.
const lockFile = ".ctx0/state/curator.lock"

// lockRuns takes the curator's lock, without waiting.
func lockRuns(root string) (func(), error) {
	l, ok, err := filelock.TryExclusive(filepath.Join(root, filepath.FromSlash(lockFile)))
	if err != nil {
		return nil, fmt.Errorf("curator: lock %s: %w", lockFile, err)
	}
	if !ok {
		return nil, ErrBusy
	}
	return func() { l.Unlock() }, nil
}

// stateFile is the curator's machine-local state: when it last ran and
// the branch's commit after that run.
const stateFile = ".ctx0/state/curator.json"

type state struct {
	LastRun time.Time `json:"last_run"`
	// Head is the branch's commit after the last run; Base the commit it
	// read.
	Head string `json:"head"`
	Base string `json:"base,omitempty"`
}

func loadState(root string) (state, bool, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(stateFile)))
	if errors.Is(err, os.ErrNotExist) {
		return state{}, false, nil
	}
	if err != nil {
		return state{}, false, fmt.Errorf("read curator state: %w", err)
	}
	var s state
	if err := json.Unmarshal(data, &s); err != nil {
		// A damaged state file only makes the next run due.
		return state{}, false, nil
	}
	return s, true, nil
}

func saveState(root string, s state) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	p := filepath.Join(root, filepath.FromSlash(stateFile))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("save curator state: %w", err)
	}
	if err := atomicfile.Replace(p, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("save curator state: %w", err)
	}
	return nil
}

// Due says whether a run is due, and why: no run yet; Config.Every since
// the last; Config.SummarizeAfter entry files written since (a run's own
// merge does not count); or, at a session's end, any written since. It
// reads the state file and, when the branch moved, the list of files
// changed since the last run: it never reads the entries themselves.
func Due(ctx context.Context, v *vault.Vault, cfg Config, now time.Time, sessionEnd bool) (bool, string, error) {
	st, ok, err := loadState(v.Root())
	if err != nil {
		return false, "", err
	}
	if !ok || st.Head == "" {
		return true, "the curator has not run in this vault on this machine", nil
	}
	if since := now.Sub(st.LastRun); since >= cfg.Every {
		return true, fmt.Sprintf("the last run was %s ago (every %s)", since.Truncate(time.Minute), durationText(cfg.Every)), nil
	}
	head, err := v.TreeAt(ctx, "HEAD")
	if err != nil {
		return false, "", err
	}
	if head.Commit() == st.Head {
		return false, "nothing was written since the last run", nil
	}
	diff, err := v.Diff(ctx, st.Head, head.Commit())
	if err != nil {
		// The last run's commit is gone (history rewritten): run.
		return true, "the branch no longer holds the last run's commit", nil
	}
	n := 0
	for _, f := range diff.Files {
		if strings.HasSuffix(f.Path, ".md") && !strings.HasPrefix(f.Path, SummaryFolder+"/") && !strings.HasPrefix(f.Path, "archive/") && f.Action != "deleted" {
			n++
		}
	}
	switch {
	case n >= cfg.SummarizeAfter:
		return true, fmt.Sprintf("%s written since the last run (threshold %d)", entries(n), cfg.SummarizeAfter), nil
	case sessionEnd && n > 0:
		return true, fmt.Sprintf("%s written since the last run, at a session's end", entries(n)), nil
	}
	return false, fmt.Sprintf("%s written since the last run, below the threshold of %d", entries(n), cfg.SummarizeAfter), nil
}

// RunIfDue runs the curator when Due says so, and only then. ran is false
// and why says why not when nothing was due. ctx0 ingest --watch calls it
// after each batch it files, with o.SessionEnd set when a session ended.
func RunIfDue(ctx context.Context, o Options) (res Result, ran bool, why string, err error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	cfg := DefaultConfig()
	if o.Config != nil {
		cfg = *o.Config
	} else if cfg, err = ParseConfig(o.Vault.Settings()); err != nil {
		return Result{}, false, "", err
	}
	o.Config = &cfg
	due, why, err := Due(ctx, o.Vault, cfg, o.Now(), o.SessionEnd)
	if err != nil || !due {
		return Result{}, false, why, err
	}
	if o.Trigger == "" {
		o.Trigger = "due: " + why
	}
	res, err = Run(ctx, o)
	if errors.Is(err, ErrBusy) {
		return Result{}, false, err.Error(), nil
	}
	return res, err == nil, why, err
}

func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}
