package gitindex

import (
	"encoding/binary"
	"os"
)

// putStat writes git's stat data: ctime, mtime (seconds, nanoseconds), dev,
// ino, then (after the mode) uid, gid, size, big-endian 32 bits each.
func putStat(hdr *[entryFixed]byte, csec, cnsec, msec, mnsec, dev, ino, uid, gid, size uint32) {
	be := binary.BigEndian
	be.PutUint32(hdr[0:], csec)
	be.PutUint32(hdr[4:], cnsec)
	be.PutUint32(hdr[8:], msec)
	be.PutUint32(hdr[12:], mnsec)
	be.PutUint32(hdr[16:], dev)
	be.PutUint32(hdr[20:], ino)
	be.PutUint32(hdr[28:], uid)
	be.PutUint32(hdr[32:], gid)
	be.PutUint32(hdr[36:], size)
}

// fillStatPortable fills mtime and size only.
func fillStatPortable(hdr *[entryFixed]byte, fi os.FileInfo) {
	mt := fi.ModTime()
	putStat(hdr, 0, 0, uint32(mt.Unix()), uint32(mt.Nanosecond()), 0, 0, 0, 0, uint32(fi.Size()))
}
