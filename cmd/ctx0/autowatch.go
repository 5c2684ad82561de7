package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/internal/proc"
	"github.com/ctx0/ctx0/vault"
)

// A command that had to check every file of a big vault, or wrote to one,
// with no watcher running, starts one in the background for the commands
// after it, as watchman's client starts its server and git its fsmonitor
// daemon: the same binary, ctx0 index --watch --idle autoWatchIdle,
// detached and not waited for, once the command is done. Only one watcher
// runs per vault (its lock); one that could not start is remembered in
// autoWatchState, and not tried again before a back-off. Its log,
// autoWatchLog, holds what it says on stderr (its start, its end, its
// errors), not a line per batch: it may run for days.
//
// Whether it starts is this machine's decision: on unless
// $CTX0_AUTOWATCH is 0 (or off, false, no); the vault's config, which a
// pull may change, can turn it off (index: autowatch: false), never on.

// autoWatchIdle is how long an automatically started watcher waits for a
// request or a change before it stops. An agent's session asks ctx0 again
// every few minutes at most; ten minutes without one means the work has
// stopped, and the watcher's cost while it waits (an inotify watch per
// folder, the index's pages in memory) is let go. The first command after
// that pays one full check and starts another.
const autoWatchIdle = 10 * time.Minute

// Files under the vault's machine-local state.
const (
	autoWatchState = ".ctx0/state/autowatch.json"
	autoWatchLog   = ".ctx0/state/autowatch.log"
)

// Back-off of the starts: at least autoWatchGap between two (a burst of
// commands while the first watcher starts makes one), and after a
// watcher that failed, autoWatchBackoff doubled for each failure in a
// row, up to autoWatchMaxBackoff, so that a vault where no watcher can run
// (read-only, no inotify watches left) is not tried on every command.
const (
	autoWatchGap        = 30 * time.Second
	autoWatchBackoff    = time.Minute
	autoWatchMaxBackoff = time.Hour
)

// autoWatchRecord is autoWatchState: the last start and the failures of
// the watchers started since one last came up.
type autoWatchRecord struct {
	Started  time.Time `json:"started,omitzero"`  // the last start
	Failures int       `json:"failures,omitzero"` // failed watchers in a row
	Error    string    `json:"error,omitempty"`   // the last one's
	Failed   time.Time `json:"failed,omitzero"`
	Retry    time.Time `json:"retry"` // no start before
}

func readAutoWatch(root string) autoWatchRecord {
	var r autoWatchRecord
	if data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(autoWatchState))); err == nil {
		_ = json.Unmarshal(data, &r) // a damaged record is no record
	}
	return r
}

func writeAutoWatch(root string, r autoWatchRecord) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	p := filepath.Join(root, filepath.FromSlash(autoWatchState))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("record the index watcher's start %s: %w", p, err)
	}
	if err := atomicfile.WriteFile(p, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("record the index watcher's start %s: %w", p, err)
	}
	return nil
}

// autoWatchOff tells whether this machine turned automatic watchers off.
func (a *app) autoWatchOff() bool {
	switch a.getenv("CTX0_AUTOWATCH") {
	case "0", "off", "false", "no":
		return true
	}
	return false
}

// watcherWanted is the index option that starts a watcher for v, unless
// this process runs one of its own or the machine or the vault's config
// turned them off. Reads ask for one after a check of every file, writes
// after counting the entries (see index.WithWatcherWanted).
func (a *app) watcherWanted(v *vault.Vault) index.Option {
	if a.ownWatcher || a.autoWatchOff() {
		return func(*index.Index) {} // nothing asked, nothing counted
	}
	// For tests: a vault small enough to make quickly.
	min, _ := strconv.Atoi(a.getenv("CTX0_AUTOWATCH_MIN"))
	return index.WithWatcherWanted(min, func(int) {
		if cfg, err := index.ParseConfig(v.Settings()); err != nil || !cfg.AutoWatch {
			return
		}
		a.watcherFor = v.Root()
	})
}

// startWanted starts the watcher a check asked for, if one did, once the
// command is done: started earlier, its start and its own check of every
// file would take the cores from the rest of the command (at 100,000
// entries, 130 ms more for a search, measured).
func (a *app) startWanted() {
	if a.watcherFor != "" {
		a.startWatcher(a.watcherFor)
	}
}

// startWatcher starts ctx0 index --watch for the vault at root, detached,
// unless a start is under way or backing off. It says nothing: a failure
// is recorded for ctx0 status, and the command goes on as if no watcher
// had been asked for.
func (a *app) startWatcher(root string) {
	now := time.Now()
	rec := readAutoWatch(root)
	if now.Before(rec.Retry) {
		return
	}
	rec.Started, rec.Retry = now, now.Add(autoWatchGap)
	if err := writeAutoWatch(root, rec); err != nil {
		return // nowhere to log to either: a watcher could not run here
	}
	if err := a.spawnWatcher(root); err != nil {
		_ = recordWatchFailure(root, err)
	}
}

// spawnWatcher starts the watcher process: the same binary (as a test's
// ctx0 is the test binary, whose command is argv[0]'s name), in a session
// of its own, reading nothing, its output in autoWatchLog, holding no
// descriptor of this process, so that nothing waits on a pipe it holds.
func (a *app) spawnWatcher(root string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("start the index watcher: %w", err)
	}
	logPath := filepath.Join(root, filepath.FromSlash(autoWatchLog))
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("start the index watcher: %w", err)
	}
	defer log.Close()
	cmd := &exec.Cmd{
		Path: exe,
		Args: []string{"ctx0", "--vault", root, "index", "--watch", "--auto", "--idle", autoWatchIdle.String()},
		Dir:  root,
		// Stdin nil is /dev/null; the log, an *os.File, is handed over as
		// it is, with no pipe and no goroutine copying it.
		Stdout: log,
		Stderr: log,
	}
	proc.Detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the index watcher: %w", err)
	}
	// Not waited for: it runs on after this command.
	return cmd.Process.Release()
}

// recordWatchFailure records that an automatically started watcher
// failed with err, and when to try again.
func recordWatchFailure(root string, err error) error {
	now := time.Now()
	rec := readAutoWatch(root)
	rec.Failures++
	rec.Error, rec.Failed = err.Error(), now
	wait := autoWatchMaxBackoff
	if rec.Failures < 8 {
		wait = min(autoWatchBackoff<<(rec.Failures-1), autoWatchMaxBackoff)
	}
	rec.Retry = now.Add(wait)
	return writeAutoWatch(root, rec)
}

// clearWatchFailures forgets the failures once a watcher started
// automatically follows the vault.
func clearWatchFailures(root string) {
	_ = os.Remove(filepath.Join(root, filepath.FromSlash(autoWatchState)))
}
