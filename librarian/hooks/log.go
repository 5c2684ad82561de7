package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LogFile is the hooks' log, in the vault's state folder: a hook must not
// print errors into the agent's session, so it writes them here.
const LogFile = "hooks.log"

// maxLog is the size at which the log is moved to hooks.log.1 and begun
// again, so it never grows without bound.
const maxLog = 1 << 20

// Log appends timestamped lines to a hook log. A nil *Log writes nothing.
type Log struct {
	path string
	now  func() time.Time
}

// OpenLog returns the log in the state folder dir.
func OpenLog(dir string, now func() time.Time) *Log {
	return &Log{path: filepath.Join(dir, LogFile), now: now}
}

// Printf writes a line. Failing to log must not fail the hook, so errors
// are dropped: there is nowhere left to report them.
func (l *Log) Printf(format string, a ...any) {
	if l == nil {
		return
	}
	if fi, err := os.Stat(l.path); err == nil && fi.Size() > maxLog {
		_ = os.Rename(l.path, l.path+".1")
	}
	f, err := os.OpenFile(l.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	msg := strings.ReplaceAll(fmt.Sprintf(format, a...), "\n", " ")
	fmt.Fprintf(f, "%s %s\n", l.now().UTC().Format(time.RFC3339), msg)
}
