package vault

import (
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/internal/proc"
)

// writeFileAtomic replaces path with data so that a reader or a crash sees
// the old file or the new one, never a mix, and fsyncs the folder so the
// rename itself survives a power cut. Entries are 0644 whatever they were:
// git records no other mode for them.
func writeFileAtomic(path string, data []byte) error {
	return atomicfile.Replace(path, data, 0o644)
}

// staleTemp tells whether fi, one of writeFile's temporary files, was left
// by a writer that is gone: the pid in its name no longer runs (this
// process's own are in flight: a writer removes its temporary file when it
// fails). A name without a pid (made before names had one) is stale once
// it is older than staleLock: a writer keeps one for milliseconds.
func staleTemp(fi fs.FileInfo) bool {
	if !atomicfile.IsTemp(fi.Name()) {
		return false
	}
	if pid, ok := atomicfile.TempPID(fi.Name()); ok {
		return pid != os.Getpid() && !(proc.Holder{PID: pid}).Alive()
	}
	return time.Since(fi.ModTime()) > staleLock
}

// removeStaleTemps removes the stale temporary files (staleTemp) in dir
// and returns their paths.
func removeStaleTemps(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		if !atomicfile.IsTemp(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil || !staleTemp(fi) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}
