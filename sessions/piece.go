package sessions

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// stateBytes is how much of a file ingest remembers by hash: its first
// bytes and the bytes before the offset reached. A file whose remembered
// bytes changed was rewritten, not appended to, and is read again.
const stateBytes = 4096

// piece is what one read of a session file holds: the new bytes from off,
// the stateBytes before them, and the file's first stateBytes.
type piece struct {
	buf   []byte // the file from start on
	start int64
	off   int64
	head  []byte
}

// data are the bytes from off on.
func (p piece) data() []byte { return p.buf[p.off-p.start:] }

// end is the offset after the last byte read.
func (p piece) end() int64 { return p.start + int64(len(p.buf)) }

// readPiece reads the file at path from off, about chunk bytes, or more
// when that holds no complete line, never past size.
func readPiece(path string, off, size int64, chunk int) (p piece, err error) {
	f, err := openRegular(path)
	if err != nil {
		return p, fmt.Errorf("read session file: %w", err)
	}
	defer f.Close()
	p.head, err = readAt(f, 0, min(size, stateBytes))
	if err != nil {
		return p, fmt.Errorf("read session file %s: %w", path, err)
	}
	p.start, p.off = max(0, off-stateBytes), off
	for end := min(size, off+int64(chunk)); ; end = min(size, off+2*(end-off)) {
		p.buf, err = readAt(f, p.start, end-p.start)
		if err != nil {
			return p, fmt.Errorf("read session file %s: %w", path, err)
		}
		if p.end() < end || end == size || p.end() < off || bytes.IndexByte(p.data(), '\n') >= 0 {
			return p, nil
		}
		// A line longer than a chunk: read on until it ends.
	}
}

// readAt reads n bytes at off, fewer if the file is shorter.
func readAt(f *os.File, off, n int64) ([]byte, error) {
	b := make([]byte, n)
	got, err := f.ReadAt(b, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:got], nil
}

// sums are the hashes of the remembered bytes of a file read to off: its
// first stateBytes (fewer if off is smaller) and the stateBytes before off.
func (p piece) sums(off int64) (head, tail string) {
	h := p.head[:min(int64(len(p.head)), off)]
	t := p.buf[max(0, off-stateBytes)-p.start : off-p.start]
	return sum(h), sum(t)
}

// prefixIs reports whether the bytes before off are the ones remembered.
func (p piece) prefixIs(head, tail string) bool {
	if int64(len(p.head)) < min(p.off, stateBytes) {
		return false
	}
	h, t := p.sums(p.off)
	return h == head && t == tail
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:16])
}
