//go:build unix

package vault

import (
	"os"
	"syscall"
)

// inode is a file's inode number, 0 where the system does not say.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
