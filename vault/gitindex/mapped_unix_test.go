//go:build unix

package gitindex

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMappedIndexTruncatedUnderTheReader: a tool that truncates the index
// in place while Apply reads its mapping makes the read fail with an
// error, not crash the process.
func TestMappedIndexTruncatedUnderTheReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index")
	data := make([]byte, 1<<20)
	copy(data, "DIRC")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mapped, release, err := readIndexFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var sum int
	err = readMapped(func() error {
		for i := 0; i < len(mapped); i += 4096 {
			sum += int(mapped[i])
		}
		return nil
	})
	if err == nil {
		t.Fatalf("reading a truncated mapping succeeded (sum %d)", sum)
	}
}
