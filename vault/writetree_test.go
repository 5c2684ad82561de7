package vault

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestWriteTreeFileAndFolder: a file may take the place of a folder the
// same edits empty, and a folder the place of a deleted file; a file and a
// folder of one name at once are refused, never one written over the
// other.
func TestWriteTreeFileAndFolder(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	blob, err := v.storeBlob([]byte("x\n"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := v.writeTree(ctx, plumbing.ZeroHash, map[string]plumbing.Hash{"a/file": blob, "a/dir/f": blob})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		edits map[string]plumbing.Hash
		want  string // the tree's files, or the error
	}{
		{"file replaces emptied folder", map[string]plumbing.Hash{"a/dir/f": {}, "a/dir": blob}, "a/dir a/file"},
		{"folder replaces deleted file", map[string]plumbing.Hash{"a/file": {}, "a/file/g": blob}, "a/dir/f a/file/g"},
		{"file over a folder", map[string]plumbing.Hash{"a/dir": blob}, "a/dir is a folder, so it cannot be a file"},
		{"folder under a file", map[string]plumbing.Hash{"a/file/g": blob}, "a/file is a file, so it cannot hold a folder"},
		{"both at once", map[string]plumbing.Hash{"b": blob, "b/c": blob}, "b cannot be both a file and a folder"},
		{"removing under a file", map[string]plumbing.Hash{"a/file/g": {}}, "a/dir/f a/file"},
		{"removing a folder whole", map[string]plumbing.Hash{"a/dir": {}}, "a/file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := v.writeTree(ctx, base, tc.edits)
			if err != nil {
				if !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want %q", err, tc.want)
				}
				return
			}
			tree, err := v.repo.TreeObject(h)
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			if err := walkFiles(ctx, tree, func(p string, _ object.TreeEntry) { files = append(files, p) }); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(files, " "); got != tc.want {
				t.Fatalf("files %q, want %q", got, tc.want)
			}
		})
	}
}
