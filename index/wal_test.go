package index

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/vaulttest"
)

// TestWALFoldedBack: after a batch of updates larger than SQLite's
// automatic checkpoint, the index's write-ahead log is folded back into
// the database and cut down, by the next write while the index stays open
// (as under a watcher) and to nothing when it is closed, instead of
// keeping the size of the largest batch for ever.
func TestWALFoldedBack(t *testing.T) {
	v := vaulttest.New(t)
	body := strings.Repeat("A paragraph about the deploy and its keys, said at length. ", 40)
	const n = 600
	for i := range n {
		writeFile(t, v, fmt.Sprintf("knowledge/e%04d.md", i), fmt.Sprintf("---\ntitle: e%d\n---\n%s\n", i, body))
	}
	ix := openIndex(t, v, nil)
	if _, err := ix.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Every entry changed: one large update batch, through the WAL.
	for i := range n {
		writeFile(t, v, fmt.Sprintf("knowledge/e%04d.md", i), fmt.Sprintf("---\ntitle: e%d\n---\n%s again\n", i, body))
	}
	if _, err := ix.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	wal := ix.path + "-wal"
	big := size(t, wal)
	writeFile(t, v, "knowledge/small.md", "---\ntitle: small\n---\nOne more.\n")
	if _, err := ix.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := size(t, wal); got > walLimit+64<<10 {
		t.Errorf("the WAL is %d bytes after a small write that followed a batch of %d bytes; want at most %d", got, big, walLimit+64<<10)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if got := size(t, wal); got != 0 {
		t.Errorf("the WAL is %d bytes once the index is closed, want 0", got)
	}
}

func size(t *testing.T, p string) int64 {
	t.Helper()
	fi, err := os.Stat(p)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestWALShortBetweenWrites: one small update after another, as
// remembers make them, never let the write-ahead log grow past about
// walPages pages: a process that opens the index reads the whole log to
// rebuild SQLite's index of it, so its length is paid by every command.
func TestWALShortBetweenWrites(t *testing.T) {
	v := vaulttest.New(t)
	body := strings.Repeat("A paragraph about the deploy and its keys, said at length. ", 10)
	for i := range 200 {
		writeFile(t, v, fmt.Sprintf("knowledge/e%04d.md", i), fmt.Sprintf("---\ntitle: e%d\n---\n%s\n", i, body))
	}
	ix := openIndex(t, v, nil)
	if _, err := ix.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	wal := ix.path + "-wal"
	var most int64
	for i := range 150 {
		writeFile(t, v, fmt.Sprintf("knowledge/new%04d.md", i), fmt.Sprintf("---\ntitle: new %d\n---\nFact %d: %s\n", i, i, body))
		if err := ix.Changed(t.Context(), []string{fmt.Sprintf("knowledge/new%04d.md", i)}); err != nil {
			t.Fatal(err)
		}
		most = max(most, size(t, wal))
	}
	if want := int64(walPages*4096 + 256<<10); most > want {
		t.Errorf("the WAL grew to %d bytes over 150 small updates; want at most %d", most, want)
	}
}
