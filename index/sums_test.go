package index

import (
	"encoding/binary"
	"hash/fnv"
	"testing"
)

// TestNameSumIsFNV: the folder check's sum of a name and an inode number is
// FNV-1a over the name, a NUL and the number's eight bytes (little endian),
// whether hashed whole or in the parts of a folder, "/" and a base name;
// indexes already written hold sums made with hash/fnv.
func TestNameSumIsFNV(t *testing.T) {
	for _, tc := range []struct {
		folder, base string
		ino          uint64
	}{
		{"knowledge", "a", 1},
		{"knowledge", "benchmark-memory-number-1-the-deploy-key", 1<<63 + 12345},
		{"episodes/2026-01", "é-ü", 0},
		{"a", "", 0xffffffffffffffff},
	} {
		name := tc.folder + "/" + tc.base
		h := fnv.New64a()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], tc.ino)
		h.Write([]byte(name))
		h.Write([]byte{0})
		h.Write(b[:])
		want := h.Sum64()
		if got := nameSum(name, tc.ino); got != want {
			t.Errorf("nameSum(%q, %d) = %x, want %x", name, tc.ino, got, want)
		}
		parts := nameSumFrom(fnvString(fnvString(fnvString(fnvOffset, tc.folder), "/"), tc.base), tc.ino)
		if parts != want {
			t.Errorf("nameSum of %q in parts = %x, want %x", name, parts, want)
		}
	}
}

// TestStampSumIsFNV: the full check's sum of a name and a stamp is FNV-1a
// over the name, a NUL, the size, the mtime and a byte for settled, whether
// hashed whole or from the parts of a folder, "/" and a base name; indexes
// already written hold sums made with hash/fnv.
func TestStampSumIsFNV(t *testing.T) {
	for _, tc := range []struct {
		folder, base string
		s            stamp
		settled      bool
	}{
		{"knowledge", "a", stamp{size: 1, mtime: 2}, true},
		{"knowledge", "benchmark-memory-number-1-the-deploy-key", stamp{size: 4012, mtime: 1764400000123456789}, false},
		{"episodes/2026-01", "é-ü", stamp{size: -1, mtime: -1}, true},
	} {
		name := tc.folder + "/" + tc.base
		h := fnv.New64a()
		var b [17]byte
		binary.LittleEndian.PutUint64(b[0:], uint64(tc.s.size))
		binary.LittleEndian.PutUint64(b[8:], uint64(tc.s.mtime))
		if tc.settled {
			b[16] = 1
		}
		h.Write([]byte(name))
		h.Write([]byte{0})
		h.Write(b[:])
		want := h.Sum64()
		if got := stampSum(name, tc.s, tc.settled); got != want {
			t.Errorf("stampSum(%q, %+v, %v) = %x, want %x", name, tc.s, tc.settled, got, want)
		}
		parts := stampSumFrom(fnvString(fnvString(fnvString(fnvOffset, tc.folder), "/"), tc.base), tc.s, tc.settled)
		if parts != want {
			t.Errorf("stampSum of %q in parts = %x, want %x", name, parts, want)
		}
	}
}
