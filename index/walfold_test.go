package index

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// TestWALHelperProcess is run by TestLogLeftByCommandsStaysBounded in a
// process of its own: it adds entries to the vault in $CTX0_TEST_WAL_VAULT,
// brings the index up to date and exits without closing it, as a ctx0
// command does.
func TestWALHelperProcess(t *testing.T) {
	root := os.Getenv("CTX0_TEST_WAL_VAULT")
	if root == "" {
		t.Skip("a helper of TestLogLeftByCommandsStaysBounded")
	}
	v, err := vault.Open(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(t.Context(), v)
	if err != nil {
		t.Fatal(err)
	}
	take := os.Getenv("CTX0_TEST_WAL_TAKE")
	for i := range 20 {
		p := fmt.Sprintf("%s/knowledge/t%s-%02d.md", root, take, i)
		if err := os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("Take %s word%02d fills the log. ", take, i), 100)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ix.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	os.Exit(0) // without closing the index
}

// TestLogLeftByCommandsStaysBounded: processes that write the index and
// exit without closing it, one after the other, leave a write-ahead log
// that the next one to open the index empties once it passes walLimit,
// rather than one that grows with every command and that every process
// reads whole when it opens the index.
func TestLogLeftByCommandsStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	v := vaulttest.New(t)
	writeFile(t, v, "knowledge/seed.md", "A seed.\n")
	ix := openIndex(t, v, nil)
	if _, err := ix.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	wal := ix.Path() + "-wal"
	var sizes []int64
	for take := range 16 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWALHelperProcess$")
		cmd.Env = append(os.Environ(), "CTX0_TEST_WAL_VAULT="+v.Root(), fmt.Sprintf("CTX0_TEST_WAL_TAKE=%02d", take))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("helper process: %v\n%s", err, out)
		}
		fi, err := os.Stat(wal)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, fi.Size())
	}
	var grew int64
	for _, s := range sizes {
		grew = max(grew, s)
	}
	// A process's writes come on top of what it found, at most walLimit.
	if grew > 3*walLimit {
		t.Errorf("the log after each process: %d bytes, want it emptied once past %d", sizes, walLimit)
	}
	if total := sizes[len(sizes)-1]; total == 0 && grew == 0 {
		t.Fatalf("the helpers wrote nothing to the log: %d", sizes)
	}
}
