package vault

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestLooseObjectLevels: a write stores its trees uncompressed (zlib's
// stored blocks) and its blobs compressed at git's level, and the real git
// reads both as the objects they are.
func TestLooseObjectLevels(t *testing.T) {
	v := testVault(t)
	text := []byte(strings.Repeat("A line of an entry that compresses well.\n", 40))
	blob, err := v.storeBlob(text)
	if err != nil {
		t.Fatal(err)
	}
	var entries []object.TreeEntry
	for i := range 200 {
		entries = append(entries, object.TreeEntry{Name: fmt.Sprintf("entry-%03d.md", i), Mode: filemode.Regular, Hash: blob})
	}
	tree, err := v.storeTree(entries)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		h      plumbing.Hash
		typ    string
		stored bool // uncompressed: the file is larger than the object
	}{
		{blob, "blob", false},
		{tree, "tree", true},
	} {
		name := tc.h.String()
		raw, err := os.ReadFile(filepath.Join(v.gitDir, "objects", name[:2], name[2:]))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := zlib.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s %s: %v", tc.typ, name, err)
		}
		content, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.typ, name, err)
		}
		if stored := len(raw) > len(content); stored != tc.stored {
			t.Errorf("%s %s: %d bytes on disk for %d of object, stored uncompressed %v, want %v", tc.typ, name, len(raw), len(content), stored, tc.stored)
		}
		if got := strings.TrimSpace(runGit(t, v, "cat-file", "-t", name)); got != tc.typ {
			t.Errorf("git cat-file -t %s = %q, want %s", name, got, tc.typ)
		}
	}
	if got := runGit(t, v, "ls-tree", tree.String()); strings.Count(got, blob.String()) != 200 {
		t.Errorf("git ls-tree %s:\n%s", tree, got)
	}
	runGit(t, v, "fsck", "--strict")
}
