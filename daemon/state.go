package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/ctx0/ctx0/internal/proc"
)

// State is what a daemon records of itself in .ctx0/state/daemon.json.
type State struct {
	PID int `json:"pid"`
	// ProcStart is the process's start time in the system's units, so
	// that a pid given to another process since is not taken for it.
	ProcStart uint64    `json:"proc_start,omitempty"`
	Started   time.Time `json:"started"`
	// Stopped is set when the daemon stopped cleanly.
	Stopped *time.Time  `json:"stopped,omitempty"`
	Parts   []PartState `json:"parts"`
}

// PartState is what one part of the daemon last did.
type PartState struct {
	Name string `json:"name"`
	// Last is when it last did something, and what, in a line.
	Last     *time.Time `json:"last,omitempty"`
	LastLine string     `json:"last_line,omitempty"`
}

// Status is whether a daemon runs for a vault, and what the last one to
// run recorded.
type Status struct {
	Running bool `json:"running"`
	State
}

// ReadStatus says whether a daemon runs for the vault at root, and what it
// recorded; nil when none ever ran. A daemon runs when its lock is held
// and the process it recorded is alive: a state file left by a daemon that
// was killed does not count.
func ReadStatus(root string) (*Status, error) {
	st, err := readState(root)
	if err != nil || st == nil {
		return nil, err
	}
	held, err := lockHeld(filepath.Join(root, filepath.FromSlash(stateDir), lockFile))
	if err != nil {
		return nil, err
	}
	alive := (proc.Holder{PID: st.PID, Start: st.ProcStart}).Alive()
	return &Status{Running: held && alive && st.Stopped == nil, State: *st}, nil
}

// lockHeld tells whether a process holds the lock at path, by trying to
// take it for an instant.
func lockHeld(path string) (bool, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	l, ok, err := filelock.TryExclusive(path)
	if err != nil {
		return false, fmt.Errorf("daemon: %w", err)
	}
	if ok {
		l.Unlock()
	}
	return !ok, nil
}

// readState reads the state file of the vault at root; nil if none.
func readState(root string) (*State, error) {
	path := filepath.Join(root, filepath.FromSlash(stateDir), stateFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("daemon: %w", err)
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("daemon: read %s: %w", path, err)
	}
	return &st, nil
}

// recorder keeps a running daemon's state file.
type recorder struct {
	path string
	now  func() time.Time
	mu   sync.Mutex
	st   State
}

// record notes what part i did, and writes the state file. A state file
// that cannot be written loses the record, not the work: the daemon goes
// on.
func (r *recorder) record(i int, line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.now()
	r.st.Parts[i].Last, r.st.Parts[i].LastLine = &t, line
	_ = r.writeLocked()
}

// setParts makes the record's parts those of parts, in their order; a
// part of a name recorded before keeps what it recorded.
func (r *recorder) setParts(parts []Part) {
	r.mu.Lock()
	defer r.mu.Unlock()
	was := map[string]PartState{}
	for _, p := range r.st.Parts {
		was[p.Name] = p
	}
	r.st.Parts = nil
	for _, p := range parts {
		st, ok := was[p.Name]
		if !ok {
			st = PartState{Name: p.Name}
		}
		r.st.Parts = append(r.st.Parts, st)
	}
}

// stop records that the daemon stopped cleanly.
func (r *recorder) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.now()
	r.st.Stopped = &t
	_ = r.writeLocked()
}

func (r *recorder) write() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writeLocked()
}

// writeLocked replaces the state file atomically, so that ctx0 status
// never reads half of one.
func (r *recorder) writeLocked() error {
	data, err := json.MarshalIndent(r.st, "", "  ")
	if err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	if err := atomicfile.Replace(r.path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("daemon: write %s: %w", r.path, err)
	}
	return nil
}
