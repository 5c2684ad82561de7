package vault

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestLooseObjectLevels: a write stores its trees and its small objects
// uncompressed (zlib's stored blocks) and larger blobs compressed at git's
// level, and the real git reads them all as the objects they are.
func TestLooseObjectLevels(t *testing.T) {
	v := testVault(t)
	small, err := v.storeBlob([]byte(strings.Repeat("A line of an entry that compresses well.\n", 20)))
	if err != nil {
		t.Fatal(err)
	}
	large, err := v.storeBlob([]byte(strings.Repeat("A line of an entry that compresses well.\n", 200)))
	if err != nil {
		t.Fatal(err)
	}
	var entries []object.TreeEntry
	for i := range 200 {
		entries = append(entries, object.TreeEntry{Name: fmt.Sprintf("entry-%03d.md", i), Mode: filemode.Regular, Hash: small})
	}
	tree, err := v.storeTree(entries)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		h      plumbing.Hash
		typ    string
		stored bool // uncompressed: its deflate block is of type 0
	}{
		{small, "blob", true},
		{large, "blob", false},
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
		if stored := raw[2]>>1&3 == 0; stored != tc.stored {
			t.Errorf("%s %s of %d bytes (%d on disk): stored uncompressed %v, want %v", tc.typ, name, len(content), len(raw), stored, tc.stored)
		}
		if got := strings.TrimSpace(runGit(t, v, "cat-file", "-t", name)); got != tc.typ {
			t.Errorf("git cat-file -t %s = %q, want %s", name, got, tc.typ)
		}
	}
	if got := runGit(t, v, "ls-tree", tree.String()); strings.Count(got, small.String()) != 200 {
		t.Errorf("git ls-tree %s:\n%s", tree, got)
	}
	runGit(t, v, "fsck", "--strict")
}

// FuzzDecodeTree: any bytes read as a tree's content give the entries and
// the errors go-git's decoder gives, and entries read back encode to the
// same bytes where go-git's encoder writes those bytes too.
func FuzzDecodeTree(f *testing.F) {
	h := plumbing.NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904")
	good, _ := encodeTree([]object.TreeEntry{
		{Name: "a.md", Mode: filemode.Regular, Hash: h},
		{Name: "a", Mode: filemode.Dir, Hash: h},
	})
	f.Add(good)
	f.Add([]byte("100644 x\x00" + strings.Repeat("\x01", 20)))
	f.Add([]byte("100664 x\x00" + strings.Repeat("\x01", 19)))
	f.Add([]byte("40000 \x00"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeTree(b)
		obj := &plumbing.MemoryObject{}
		obj.SetType(plumbing.TreeObject)
		obj.Write(b)
		var want object.Tree
		werr := want.Decode(obj)
		if (err != nil) != (werr != nil) {
			t.Fatalf("decodeTree error %v, go-git's %v", err, werr)
		}
		if err != nil {
			return
		}
		if len(got) != len(want.Entries) {
			t.Fatalf("decodeTree read %d entries, go-git %d", len(got), len(want.Entries))
		}
		for i := range got {
			if got[i] != want.Entries[i] {
				t.Fatalf("entry %d: decodeTree %+v, go-git %+v", i, got[i], want.Entries[i])
			}
		}
		enc, eerr := encodeTree(got)
		genc := &plumbing.MemoryObject{}
		gerr := (&object.Tree{Entries: want.Entries}).Encode(genc)
		if eerr != nil {
			return // out of order or a duplicate: refused, never written
		}
		if gerr != nil {
			t.Fatalf("encodeTree wrote what go-git refuses: %v", gerr)
		}
		r, _ := genc.Reader()
		gb, _ := io.ReadAll(r)
		if !bytes.Equal(enc, gb) {
			t.Fatalf("encodeTree wrote %q, go-git %q", enc, gb)
		}
	})
}

// TestEncodeTreeOrder: entries out of git's order, or twice, are refused;
// a folder sorts as if its name ended in "/".
func TestEncodeTreeOrder(t *testing.T) {
	h := plumbing.NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904")
	file := func(n string) object.TreeEntry { return object.TreeEntry{Name: n, Mode: filemode.Regular, Hash: h} }
	dir := func(n string) object.TreeEntry { return object.TreeEntry{Name: n, Mode: filemode.Dir, Hash: h} }
	for _, tc := range []struct {
		entries []object.TreeEntry
		ok      bool
	}{
		{[]object.TreeEntry{file("a"), file("b")}, true},
		{[]object.TreeEntry{file("b"), file("a")}, false},
		{[]object.TreeEntry{file("a"), file("a")}, false},
		{[]object.TreeEntry{file("foo.md"), dir("foo")}, true}, // "foo/" after "foo."
		{[]object.TreeEntry{dir("foo"), file("foo.md")}, false},
		{[]object.TreeEntry{dir("foo"), file("foo0")}, true}, // "/" before "0"
		{[]object.TreeEntry{file("foo"), file("foo.md")}, true},
	} {
		_, err := encodeTree(tc.entries)
		if (err == nil) != tc.ok {
			t.Errorf("%v: error %v, want ok %v", tc.entries, err, tc.ok)
		}
	}
}

// TestHeadPaths: the journal's finder gives a file's blob at any depth,
// and nothing for a folder, a missing path or the zero commit.
func TestHeadPaths(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	r, err := v.Remember(ctx, RememberOptions{Text: "The deploy key lives in the vault."})
	if err != nil {
		t.Fatal(err)
	}
	head, err := v.head()
	if err != nil {
		t.Fatal(err)
	}
	hp := v.headFiles(head.hash)
	file := EntryPath(r.Name)
	want := strings.TrimSpace(runGit(t, v, "rev-parse", "HEAD:"+file))
	for _, tc := range []struct{ path, want string }{
		{file, want},
		{path.Dir(file), plumbing.ZeroHash.String()},
		{path.Dir(file) + "/missing.md", plumbing.ZeroHash.String()},
		{"no/such/folder/x.md", plumbing.ZeroHash.String()},
	} {
		if got := hp.hash(tc.path).String(); got != tc.want {
			t.Errorf("hash(%q) = %s, want %s", tc.path, got, tc.want)
		}
	}
	if got := v.headFiles(plumbing.ZeroHash).hash(file); !got.IsZero() {
		t.Errorf("hash(%q) in no commit = %s, want zero", file, got)
	}
}
