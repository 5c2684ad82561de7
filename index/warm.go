package index

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ctx0/ctx0/internal/filelock"
)

// startGrace is how long after a build was started elsewhere no other is
// started: the time the new process takes to take the write lock.
const startGrace = 30 * time.Second

// EnsureBuilding is for a caller that must not wait for the index of the
// vault at root, such as an agent's session-start hook. present is true
// when the index file is there (opening it does the rest). Otherwise a
// build is started with start, which runs one in another process, unless
// one runs already or was started in the last startGrace: so however many
// hooks fire while a large vault is indexed, one process builds it. A
// build the caller started itself and then abandoned is what left
// index.db-new-<pid> files behind; the process started here removes them
// (see rebuild).
func EnsureBuilding(root string, start func() error) (present bool, err error) {
	p := filepath.Join(root, filepath.FromSlash(File))
	marker := p + "-starting"
	if _, err := os.Stat(p); err == nil {
		os.Remove(marker)
		return true, nil
	}
	// Holding the write lock while deciding keeps two hooks from both
	// starting a build; a builder holding it means one runs.
	l, ok, err := filelock.TryExclusive(p + "-lock")
	if err != nil {
		return false, fmt.Errorf("index %s: %w", p, err)
	}
	if !ok {
		return false, nil
	}
	defer l.Unlock()
	if fi, err := os.Stat(marker); err == nil && time.Since(fi.ModTime()) < startGrace {
		return false, nil
	}
	if err := os.WriteFile(marker, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return false, fmt.Errorf("index %s: %w", p, err)
	}
	return false, start()
}
