//go:build unix && !(linux && (amd64 || arm64 || riscv64 || loong64 || ppc64 || ppc64le || s390x || mips64 || mips64le))

package index

import "golang.org/x/sys/unix"

// statIn stats the files names (base names) in the folder dir and sets
// their stamps in out, and ok for those that are regular files. It stats
// relative to a handle on the folder, so that the kernel resolves one path
// component per file rather than the whole path: at 100,000 files that is
// a good part of a full check.
func statIn(dir string, names []string, out []stamp, ok []bool) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return // gone: its files are not ok
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	for i, n := range names {
		if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
			out[i], ok[i] = stamp{size: st.Size, mtime: st.Mtim.Nano()}, true
		}
	}
}
