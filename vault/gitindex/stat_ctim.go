//go:build linux || openbsd || dragonfly || solaris || illumos || aix

package gitindex

import (
	"os"
	"syscall"
)

// fillStat fills the stat half of an entry header from the work-tree file's
// Lstat, as git's fill_stat_data does: every field truncated to 32 bits.
func fillStat(hdr *[entryFixed]byte, fi os.FileInfo) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		fillStatPortable(hdr, fi)
		return
	}
	putStat(hdr,
		uint32(st.Ctim.Sec), uint32(st.Ctim.Nsec),
		uint32(st.Mtim.Sec), uint32(st.Mtim.Nsec),
		uint32(st.Dev), uint32(st.Ino), uint32(st.Uid), uint32(st.Gid),
		uint32(st.Size))
}

// sysStamp returns the device, inode number and change time of fi.
func sysStamp(fi os.FileInfo) (dev, ino uint64, ctime int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0
	}
	return uint64(st.Dev), uint64(st.Ino), st.Ctim.Sec*1e9 + int64(st.Ctim.Nsec)
}
