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
