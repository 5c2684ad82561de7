//go:build !(linux || openbsd || dragonfly || solaris || illumos || aix || darwin || ios || freebsd || netbsd)

package gitindex

import "os"

// fillStat fills only mtime and size: elsewhere git's stat data comes from
// fields os.FileInfo does not carry portably, so git may rehash such a file
// once (contents match, so it stays clean) and then refresh the entry.
func fillStat(hdr *[entryFixed]byte, fi os.FileInfo) {
	fillStatPortable(hdr, fi)
}

// sysStamp gives nothing beyond size and mtime here: the trailing checksum
// tells a replaced index.
func sysStamp(fi os.FileInfo) (dev, ino uint64, ctime int64) { return 0, 0, 0 }
