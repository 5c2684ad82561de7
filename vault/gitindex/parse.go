package gitindex

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// On-disk layout constants of the git index (https://git-scm.com/docs/index-format).
const (
	headerLen   = 12 // "DIRC", version, entry count
	hashLen     = 20 // SHA-1; the only object format go-git v5 writes
	trailerLen  = hashLen
	entryFixed  = 62 // stat data (40) + sha1 (20) + flags (2)
	flagsOffset = 60
	modeOffset  = 24
	hashOffset  = 40

	flagAssumeValid = 0x8000
	flagExtended    = 0x4000
	flagStageMask   = 0x3000
	flagStageShift  = 12
	flagNameMask    = 0x0fff

	// maxNamesFactor bounds the rebuilt names of a version 4 index to this
	// many times its size. Every entry takes at least 64 bytes on disk, so
	// only names averaging over 4096 bytes (Linux's PATH_MAX) reach it.
	maxNamesFactor = 64
)

var errCorrupt = errors.New("corrupt index")

// corruptf returns an error wrapping errCorrupt.
func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errCorrupt, fmt.Sprintf(format, args...))
}

// entry locates one index entry inside indexFile.data. Untouched entries are
// copied out by these byte ranges, never re-encoded (except, in version 4,
// the name part of the first entry after a change).
type entry struct {
	start, end       uint32 // byte range of the whole entry in data
	nameOff, nameLen uint32 // the path, in indexFile.names
	hdrLen           uint8  // 62, or 64 with extended flags
	stage            uint8
}

// extension is one index extension, kept as its raw bytes.
type extension struct {
	sig        [4]byte
	start, end int // whole extension (signature and size included) in data
}

// payload returns the extension's data without its 8-byte header.
func (x extension) payload(data []byte) []byte { return data[x.start+8 : x.end] }

// indexFile is a parsed index: just enough structure to splice it.
type indexFile struct {
	data       []byte
	version    uint32
	entries    []entry
	names      []byte // data for versions 2 and 3; a separate arena for version 4
	entriesEnd int
	exts       []extension
	// zeroTrailer: the trailing checksum is all zero bytes (index.skipHash).
	zeroTrailer bool
}

func (ix *indexFile) name(i int) []byte {
	e := &ix.entries[i]
	return ix.names[e.nameOff : e.nameOff+e.nameLen]
}

// newIndexFile is the empty version 2 index that a missing index file stands for.
func newIndexFile() *indexFile {
	return &indexFile{version: 2, entriesEnd: headerLen}
}

// parseIndex parses data without verifying the trailing checksum (see
// checksumOK). It never panics, whatever data holds.
func parseIndex(data []byte) (*indexFile, error) {
	if len(data) < headerLen+trailerLen {
		return nil, corruptf("%d bytes is too short", len(data))
	}
	if uint64(len(data)) > math.MaxUint32 {
		return nil, errors.New("index larger than 4 GiB")
	}
	if string(data[:4]) != "DIRC" {
		return nil, corruptf("bad signature %q", data[:4])
	}
	ix := &indexFile{data: data, version: binary.BigEndian.Uint32(data[4:8])}
	if ix.version < 2 || ix.version > 4 {
		return nil, fmt.Errorf("index version %d is not supported", ix.version)
	}
	count := binary.BigEndian.Uint32(data[8:12])
	limit := len(data) - trailerLen
	// Every entry takes at least entryFixed+1 bytes: this bounds count
	// before we allocate for it.
	if uint64(count) > uint64(limit-headerLen)/(entryFixed+1) {
		return nil, corruptf("%d entries cannot fit in %d bytes", count, len(data))
	}
	ix.entries = make([]entry, count)
	var err error
	if ix.version == 4 {
		err = ix.parseEntriesV4(limit)
	} else {
		ix.names = data
		err = ix.parseEntriesV2(limit)
	}
	if err != nil {
		return nil, err
	}
	if err := ix.checkOrder(); err != nil {
		return nil, err
	}
	for off := ix.entriesEnd; off < limit; {
		if limit-off < 8 {
			return nil, corruptf("truncated extension header at offset %d", off)
		}
		size := binary.BigEndian.Uint32(data[off+4 : off+8])
		if uint64(size) > uint64(limit-off-8) {
			return nil, corruptf("extension %q of %d bytes overruns the index", data[off:off+4], size)
		}
		x := extension{start: off, end: off + 8 + int(size)}
		copy(x.sig[:], data[off:off+4])
		ix.exts = append(ix.exts, x)
		off = x.end
	}
	ix.zeroTrailer = allZero(data[limit:])
	return ix, nil
}

// checksumOK reports whether the trailing checksum matches the content, or
// is the zero one of index.skipHash, which git does not check either.
func (ix *indexFile) checksumOK() bool {
	if ix.data == nil || ix.zeroTrailer {
		return true
	}
	limit := len(ix.data) - trailerLen
	sum := sha1.Sum(ix.data[:limit])
	return bytes.Equal(sum[:], ix.data[limit:])
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// parseEntriesV2 walks version 2 and 3 entries: fixed header, optional
// extended flags, NUL-terminated name padded with NULs to a multiple of 8.
func (ix *indexFile) parseEntriesV2(limit int) error {
	data := ix.data
	off := headerLen
	for i := range ix.entries {
		if limit-off < entryFixed {
			return corruptf("entry %d truncated", i)
		}
		flags := binary.BigEndian.Uint16(data[off+flagsOffset:])
		hdr := entryFixed
		if flags&flagExtended != 0 {
			hdr += 2
		}
		nameOff := off + hdr
		if nameOff >= limit {
			return corruptf("entry %d truncated", i)
		}
		nameLen := int(flags & flagNameMask)
		if nameLen == flagNameMask {
			// The name is too long for the 12-bit field: it ends at the NUL.
			n := bytes.IndexByte(data[nameOff:limit], 0)
			if n < 0 {
				return corruptf("entry %d: unterminated name", i)
			}
			nameLen = n
		}
		size := (hdr + nameLen + 8) &^ 7
		if size > limit-off {
			return corruptf("entry %d truncated", i)
		}
		if bytes.IndexByte(data[nameOff:nameOff+nameLen], 0) >= 0 {
			return corruptf("entry %d: NUL in name", i)
		}
		ix.entries[i] = entry{
			start:   uint32(off),
			end:     uint32(off + size),
			nameOff: uint32(nameOff),
			nameLen: uint32(nameLen),
			hdrLen:  uint8(hdr),
			stage:   uint8(flags & flagStageMask >> flagStageShift),
		}
		off += size
	}
	ix.entriesEnd = off
	return nil
}

// parseEntriesV4 walks version 4 entries: fixed header, optional extended
// flags, then the name as "strip N bytes from the previous name" (varint)
// and a NUL-terminated suffix; no padding. Names are rebuilt into ix.names.
func (ix *indexFile) parseEntriesV4(limit int) error {
	data := ix.data
	off := headerLen
	var prevOff, prevLen int
	for i := range ix.entries {
		if limit-off < entryFixed {
			return corruptf("entry %d truncated", i)
		}
		flags := binary.BigEndian.Uint16(data[off+flagsOffset:])
		hdr := entryFixed
		if flags&flagExtended != 0 {
			hdr += 2
		}
		p := off + hdr
		if p >= limit {
			return corruptf("entry %d truncated", i)
		}
		strip, n := decodeVarint(data[p:limit])
		if n <= 0 {
			return corruptf("entry %d: bad name prefix length", i)
		}
		if strip > uint64(prevLen) {
			return corruptf("entry %d strips %d bytes from a %d-byte name", i, strip, prevLen)
		}
		p += n
		suffixLen := bytes.IndexByte(data[p:limit], 0)
		if suffixLen < 0 {
			return corruptf("entry %d: unterminated name", i)
		}
		keep := prevLen - int(strip)
		if len(ix.names)+keep+suffixLen > maxNamesFactor*len(data) {
			// Refuse rather than rebuild them all in memory.
			return corruptf("entry %d: names too long", i)
		}
		nameOff := len(ix.names)
		if ix.names == nil {
			ix.names = make([]byte, 0, 64*len(ix.entries))
		}
		ix.names = append(ix.names, ix.names[prevOff:prevOff+keep]...)
		ix.names = append(ix.names, data[p:p+suffixLen]...)
		nameLen := keep + suffixLen
		if want := int(flags & flagNameMask); want != flagNameMask && want != nameLen {
			// git trusts the length field when it is below 0xFFF.
			return corruptf("entry %d: name length %d, flags say %d", i, nameLen, want)
		}
		end := p + suffixLen + 1
		ix.entries[i] = entry{
			start:   uint32(off),
			end:     uint32(end),
			nameOff: uint32(nameOff),
			nameLen: uint32(nameLen),
			hdrLen:  uint8(hdr),
			stage:   uint8(flags & flagStageMask >> flagStageShift),
		}
		prevOff, prevLen = nameOff, nameLen
		off = end
	}
	ix.entriesEnd = off
	return nil
}

// checkOrder enforces the order git itself checks when it reads an index
// (read-cache.c check_ce_order): names ascending, and several entries of one
// name only as unmerged stages in ascending order.
func (ix *indexFile) checkOrder() error {
	for i := 1; i < len(ix.entries); i++ {
		prev, cur := ix.name(i-1), ix.name(i)
		switch c := bytes.Compare(prev, cur); {
		case c > 0:
			return corruptf("entries out of order: %q before %q", prev, cur)
		case c == 0:
			ps, cs := ix.entries[i-1].stage, ix.entries[i].stage
			if ps == 0 || cs == 0 {
				return corruptf("multiple stage entries for merged file %q", cur)
			}
			if ps > cs {
				return corruptf("unordered stage entries for %q", cur)
			}
		}
	}
	return nil
}

// decodeVarint decodes git's offset varint (as in OFS_DELTA and index v4
// names). It returns the number of bytes read, or 0 if b is truncated or the
// value overflows.
func decodeVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v := uint64(c & 0x7f)
	n := 1
	for c&0x80 != 0 {
		if n >= len(b) || v >= 1<<56 {
			return 0, 0
		}
		v++
		c = b[n]
		n++
		v = v<<7 | uint64(c&0x7f)
	}
	return v, n
}

// appendVarint appends v in git's offset varint encoding.
func appendVarint(b []byte, v uint64) []byte {
	var buf [16]byte
	pos := len(buf) - 1
	buf[pos] = byte(v & 0x7f)
	for v >>= 7; v != 0; v >>= 7 {
		v--
		pos--
		buf[pos] = 0x80 | byte(v&0x7f)
	}
	return append(b, buf[pos:]...)
}
