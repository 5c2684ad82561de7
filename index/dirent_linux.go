//go:build linux

package index

import (
	"bytes"
	"encoding/binary"
	"errors"

	"golang.org/x/sys/unix"
)

// direntFile is a name in a folder with its inode number and type, as the
// folder's listing gives them.
type direntFile struct {
	name string
	ino  uint64
	dir  bool
	reg  bool
}

// readDirents lists the folder dir with getdents, which gives each name's
// inode number and type without a stat per file. ok is false where the file
// system does not give types (DT_UNKNOWN), and the caller stats instead.
func readDirents(dir string) (files []direntFile, ok bool, err error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false, err
	}
	defer unix.Close(fd)
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		if n <= 0 {
			return files, true, nil
		}
		// struct linux_dirent64: d_ino u64, d_off s64, d_reclen u16,
		// d_type u8, d_name NUL-terminated.
		for off := 0; off+19 <= n; {
			rec := buf[off:]
			reclen := int(binary.NativeEndian.Uint16(rec[16:]))
			if reclen < 19 || off+reclen > n {
				return nil, false, nil // not what the kernel gives: stat instead
			}
			ino, typ := binary.NativeEndian.Uint64(rec), rec[18]
			name := rec[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			off += reclen
			if ino == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			if typ == unix.DT_UNKNOWN {
				return nil, false, nil
			}
			files = append(files, direntFile{name: string(name), ino: ino, dir: typ == unix.DT_DIR, reg: typ == unix.DT_REG})
		}
	}
}
