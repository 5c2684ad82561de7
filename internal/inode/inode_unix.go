//go:build unix

// Package inode reads a file's inode number, the one way ctx0 tells a file
// replaced by rename from the same file changed in place.
package inode

import (
	"io/fs"
	"syscall"
)

// Of is fi's inode number, 0 where the system does not say.
func Of(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
