//go:build !linux

package index

import (
	"os"
	"path/filepath"
)

// folderStatter stats the files of one folder.
type folderStatter struct {
	dir string
}

func openFolder(path string) (*folderStatter, error) {
	return &folderStatter{dir: path}, nil
}

// stamp returns the size and mtime of the regular file base in the folder;
// ok is false if it is gone or is not a regular file.
func (s *folderStatter) stamp(base string) (st stamp, ok bool) {
	fi, err := os.Lstat(filepath.Join(s.dir, base))
	if err != nil || !fi.Mode().IsRegular() {
		return stamp{}, false
	}
	return stampOf(fi), true
}

func (s *folderStatter) close() {}
