// Package atomicfile replaces files so that a reader, or the machine after
// a crash or a power cut, sees the old content or the new one, never a
// part: the data goes to a temporary file in the same folder, which is
// synced, closed and renamed over the target, and then the folder itself
// is synced so that the rename survives too. A temporary file is removed
// on every error. Errors are package os's, which name the file.
//
// Temporary files are hidden and carry the writer's pid in their name
// (".<name>.tmp-<pid>-<random>"), so that one a killed writer left can be
// told from one a running writer is still filling (see TempPID).
//
// github.com/google/renameio does the first half of this but, by design,
// not the sync of the folder, which durability needs.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteFile replaces the file at path with data, atomically and durably,
// making its folder if needed. A file that exists keeps its permission
// bits; a new one gets perm.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	return Replace(path, data, perm)
}

// Replace is WriteFile for files whose mode is the writer's to set: the
// file gets exactly perm, whatever it had before.
func Replace(path string, data []byte, perm fs.FileMode) error {
	tmp, err := WriteTemp(path, data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// WriteTemp writes data to a new temporary file beside path, with mode
// perm, synced and closed, and returns its path: the first half of
// Replace, for a caller that puts it in place itself (a link that must not
// replace anything, a rename after a check) and syncs the folder after.
// The folder is made if needed. On error nothing is left behind.
func WriteTemp(path string, data []byte, perm fs.FileMode) (string, error) {
	return writeTemp(path, data, perm, true)
}

// WriteTempUnsynced is WriteTemp without the sync, for a caller that puts
// many files in place and then makes them durable together, before it
// reports them written (one fsync each at once, which the file system
// commits together, rather than one after another).
func WriteTempUnsynced(path string, data []byte, perm fs.FileMode) (string, error) {
	return writeTemp(path, data, perm, false)
}

// SyncFile fsyncs the file at path.
func SyncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func writeTemp(path string, data []byte, perm fs.FileMode, sync bool) (_ string, err error) {
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
	// Chmod, not the mode given at creation, which the umask would trim.
	if err := f.Chmod(perm); err != nil {
		return "", err
	}
	if sync {
		if err := f.Sync(); err != nil {
			return "", err
		}
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// Through returns the file that a write to path should replace: path
// itself, or, when path is a symbolic link, the file at the end of its
// links (which need not exist yet). A person's config kept as a link into
// a dotfiles repository is then written through the link, as editors do,
// instead of being replaced by a regular file that leaves the repository
// behind. A chain longer than the system follows is returned as it is,
// for the write to fail on.
func Through(path string) string {
	p := path
	for range 40 {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return p
		}
		target, err := os.Readlink(p)
		if err != nil {
			return p
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = target
	}
	return path
}

// SyncDir fsyncs the folder dir, so that the names made, renamed or
// removed in it survive a power cut.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// tempPrefix begins the names of the temporary files for a file named
// base.
func tempPrefix(base string) string { return "." + base + tempMark }

const tempMark = ".tmp-"

// IsTemp tells whether name (a file's base name) is one of the temporary
// files this package makes.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMark)
}

// TempPID returns the pid of the process that made the temporary file
// name; ok is false for a name that carries none (one made before names
// had a pid, or not a temporary file at all).
func TempPID(name string) (pid int, ok bool) {
	_, rest, found := strings.Cut(name, tempMark)
	if !found || !strings.HasPrefix(name, ".") {
		return 0, false
	}
	p, _, found := strings.Cut(rest, "-")
	if !found {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}
