package vault

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctx0/ctx0/internal/proc"
)

// writeFileAtomic replaces path with data so that a reader or a crash sees
// the old file or the new one, never a mix (see writeFile), then fsyncs the
// folder so the rename itself survives a power cut.
func writeFileAtomic(path string, data []byte) error {
	if _, err := writeFile(path, data); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// writeFile writes data to a temporary file in path's folder (hidden, so
// nothing mistakes it for an entry, and named with the writer's pid, so
// that a killed writer's can be told from a running one's: see staleTemp),
// fsyncs it and renames it over path. The caller syncs the folder. It
// returns the new file's stat.
func writeFile(path string, data []byte) (os.FileInfo, error) {
	tmp, err := writeTemp(path, data)
	if err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	return os.Lstat(path)
}

// writeTemp writes data to a new temporary file beside path, fsynced, and
// returns its name.
func writeTemp(path string, data []byte) (_ string, err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, tempPrefix(filepath.Base(path))+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return "", err
	}
	if err := f.Chmod(0o644); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return f.Name(), nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// tempPrefix begins the names of writeFile's temporary files for a file
// named base: ".<base>.tmp-<pid>-<random>".
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// staleTemp tells whether fi, one of writeFile's temporary files, was left
// by a writer that is gone: the pid in its name no longer runs (this
// process's own are in flight: a writer removes its temporary file when it
// fails). A name without a pid (made before names had one) is stale once
// it is older than staleLock: a writer keeps one for milliseconds.
func staleTemp(fi fs.FileInfo) bool {
	_, rest, ok := strings.Cut(fi.Name(), ".tmp-")
	if !ok {
		return false
	}
	if p, _, ok := strings.Cut(rest, "-"); ok {
		if pid, err := strconv.Atoi(p); err == nil && pid > 0 {
			return pid != os.Getpid() && !(proc.Holder{PID: pid}).Alive()
		}
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
		if !isTempFile(e.Name()) || !e.Type().IsRegular() {
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
