//go:build unix

package gitindex

import (
	"os"

	"golang.org/x/sys/unix"
)

// readIndexFile returns the bytes of the index file at path and a function
// that releases them. The file is mapped rather than read into memory: a
// megabyte read into a fresh buffer costs hundreds of page faults, which
// small virtual machines make dear, and Apply only looks at most of it
// once, to copy it. Reads of the bytes go through readMapped.
func readIndexFile(path string) ([]byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := fi.Size()
	if size == 0 || size != int64(int(size)) {
		data, err := os.ReadFile(path) // nothing to map, or too much
		return data, func() {}, err
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		data, err := os.ReadFile(path)
		return data, func() {}, err
	}
	return data, func() { unix.Munmap(data) }, nil
}
