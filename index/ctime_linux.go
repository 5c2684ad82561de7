//go:build linux

package index

import (
	"io/fs"
	"syscall"
)

// ctimeOf is the change time of the file fi describes, in nanoseconds: the
// kernel sets it to the current time whenever the file's mtime or
// attributes change, and nothing can set it back.
func ctimeOf(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}
