package mcp

import (
	"encoding/binary"
	"errors"
	"os"
)

// ringFile is the file of a limiter: the times of the last n calls it
// counted, as Unix milliseconds (0: no call), in a ring. Little-endian:
//
//	"ctx0ring"  n (uint64)  head (uint64)  n slots (int64 each)
//
// head is the slot of the oldest call, where the next one goes; the slots
// from head on, around the ring, run from the oldest call to the newest.
// A call reads and writes one slot and the head, whatever n.
type ringFile struct {
	f       *os.File
	n, head int64
}

const (
	ringMagic  = "ctx0ring"
	ringHeader = 24
	// ringMax bounds the slots a ring is made again from: a limit this
	// high is no limit, and a damaged size is no reason to read gigabytes.
	ringMax = 1 << 22
)

// readHeader reads the ring's size and head; false when the file is new,
// damaged, or a ring of another size than n.
func (r *ringFile) readHeader(n int) bool {
	var b [ringHeader]byte
	if _, err := r.f.ReadAt(b[:], 0); err != nil || string(b[:8]) != ringMagic {
		return false
	}
	r.n, r.head = int64(binary.LittleEndian.Uint64(b[8:])), int64(binary.LittleEndian.Uint64(b[16:]))
	if r.n <= 0 || r.head < 0 || r.head >= r.n || r.n > 1<<40 {
		r.n, r.head = 0, 0
		return false
	}
	if fi, err := r.f.Stat(); err != nil || fi.Size() < ringHeader+8*r.n {
		r.n, r.head = 0, 0
		return false
	}
	return r.n == int64(n)
}

// times returns the calls of a ring readHeader found of another size,
// oldest first; none when it found no ring, or one too large to read.
func (r *ringFile) times() []int64 {
	if r.n == 0 || r.n > ringMax {
		return nil
	}
	b := make([]byte, 8*r.n)
	if _, err := r.f.ReadAt(b, ringHeader); err != nil {
		return nil
	}
	var out []int64
	for i := range r.n {
		j := (r.head + i) % r.n
		if ms := int64(binary.LittleEndian.Uint64(b[8*j:])); ms != 0 {
			out = append(out, ms)
		}
	}
	return out
}

// reset makes the file a ring of n slots holding keep (oldest first; the
// newest n of them). The file is extended, never truncated: its slots past
// what is written read as zeros, and a longer file's tail is not read.
func (r *ringFile) reset(n int, keep []int64) error {
	if n <= 0 {
		return errors.New("a limit of no calls")
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	r.n, r.head = int64(n), 0
	size := int64(ringHeader) + 8*r.n
	fi, err := r.f.Stat()
	if err != nil {
		return err
	}
	old := fi.Size()
	if old < size {
		if err := r.f.Truncate(size); err != nil {
			return err
		}
	}
	// Every slot the file held is written, in chunks, whether in keep or
	// not: an older ring's calls must not stay behind as this one's. The
	// slots past the old end read as zeros already.
	const chunk = 4096
	b := make([]byte, 8*min(r.n, chunk))
	first := r.n - int64(len(keep)) // the slot of keep[0]
	for start := int64(0); start < r.n; start += chunk {
		end := min(start+chunk, r.n)
		if ringHeader+8*start >= old && end <= first {
			continue
		}
		clear(b)
		for i := start; i < end; i++ {
			if i >= first {
				binary.LittleEndian.PutUint64(b[8*(i-start):], uint64(keep[i-first]))
			}
		}
		if _, err := r.f.WriteAt(b[:8*(end-start)], ringHeader+8*start); err != nil {
			return err
		}
	}
	return r.writeHeader()
}

func (r *ringFile) writeHeader() error {
	var b [ringHeader]byte
	copy(b[:], ringMagic)
	binary.LittleEndian.PutUint64(b[8:], uint64(r.n))
	binary.LittleEndian.PutUint64(b[16:], uint64(r.head))
	_, err := r.f.WriteAt(b[:], 0)
	return err
}

// slot reads the i-th call counted, 0 the oldest.
func (r *ringFile) slot(i int64) (int64, error) {
	var b [8]byte
	if _, err := r.f.ReadAt(b[:], ringHeader+8*((r.head+i)%r.n)); err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(b[:])), nil
}

func (r *ringFile) setSlot(i, ms int64) error {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(ms))
	_, err := r.f.WriteAt(b[:], ringHeader+8*((r.head+i)%r.n))
	return err
}

// oldest is the oldest of the last n calls counted, 0 if fewer were.
func (r *ringFile) oldest() (int64, error) { return r.slot(0) }

// push counts a call at ms in place of the oldest.
func (r *ringFile) push(ms int64) error {
	if err := r.setSlot(0, ms); err != nil {
		return err
	}
	r.head = (r.head + 1) % r.n
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(r.head))
	_, err := r.f.WriteAt(b[:], 16)
	return err
}

// remove forgets the newest call counted at ms, if the ring holds it: the
// calls after it move back one slot, and the slot freed becomes the
// oldest. It looks from the newest call back, and stops at an older one
// (an undo follows its call closely, so it moves few slots).
func (r *ringFile) remove(ms int64) error {
	k := int64(-1)
	for i := r.n - 1; i >= 0; i-- {
		t, err := r.slot(i)
		if err != nil {
			return err
		}
		if t == ms {
			k = i
			break
		}
		if t < ms {
			return nil
		}
	}
	if k < 0 {
		return nil
	}
	for i := k; i < r.n-1; i++ {
		t, err := r.slot(i + 1)
		if err != nil {
			return err
		}
		if err := r.setSlot(i, t); err != nil {
			return err
		}
	}
	if err := r.setSlot(r.n-1, 0); err != nil {
		return err
	}
	r.head = (r.head + r.n - 1) % r.n
	return r.writeHeader()
}
