//go:build linux && (amd64 || arm64 || riscv64 || loong64 || ppc64 || ppc64le || s390x || mips64 || mips64le)

package index

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// statIn stats the files names (base names) in the folder dir and sets
// their stamps in out, and ok for those that are regular files. It stats
// relative to a handle on the folder, so that the kernel resolves one path
// component per file rather than the whole path: at 100,000 files that is
// a good part of a full check. Each name is made a C string in one buffer
// rather than in an allocation per file, which unix.Fstatat makes: 3.5% of
// a whole-process search without a watcher at 100,000 entries, and its
// garbage.
func statIn(dir string, names []string, out []stamp, ok []bool) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return // gone: its files are not ok
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	buf := make([]byte, 0, 256)
	for i, n := range names {
		buf = append(append(buf[:0], n...), 0)
		_, _, errno := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])),
			uintptr(unsafe.Pointer(&st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
		if errno == 0 && st.Mode&unix.S_IFMT == unix.S_IFREG {
			out[i], ok[i] = stamp{size: st.Size, mtime: st.Mtim.Nano()}, true
		}
	}
}
