package index

import (
	"os"

	"golang.org/x/sys/unix"
)

// folderStatter stats the files of one folder by name relative to an open
// handle on the folder, which spares the kernel the walk of the whole path
// for every file of the full check.
type folderStatter struct {
	dir *os.File
}

func openFolder(path string) (*folderStatter, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &folderStatter{dir: f}, nil
}

// stamp returns the size and mtime of the regular file base in the folder;
// ok is false if it is gone or is not a regular file.
func (s *folderStatter) stamp(base string) (st stamp, ok bool) {
	var raw unix.Stat_t
	if err := unix.Fstatat(int(s.dir.Fd()), base, &raw, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return stamp{}, false
	}
	if raw.Mode&unix.S_IFMT != unix.S_IFREG {
		return stamp{}, false
	}
	sec, nsec := raw.Mtim.Unix()
	return stamp{size: raw.Size, mtime: sec*1e9 + nsec}, true
}

func (s *folderStatter) close() { s.dir.Close() }
