package vault

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/revlist"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

func mustTree(t *testing.T, c *object.Commit) *object.Tree {
	t.Helper()
	tree, err := c.Tree()
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// The goroutines of one process share a vault's repository (the daemon's
// sync, worker and index; the MCP server's requests): reading objects
// while another goroutine makes the repository list its packs again, as
// every sync and every write lock does, must neither crash the process nor
// fail a read.
func TestObjectsReadWhilePacksReload(t *testing.T) {
	ctx := t.Context()
	a, url := sharedVault(t)
	for i := range 20 {
		if _, err := a.Remember(ctx, RememberOptions{Text: fmt.Sprintf("Fact %d, read from a pack.", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "b")
	if _, err := Clone(ctx, url, dir); err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, dir) // its objects are in the pack the clone fetched
	if err != nil {
		t.Fatal(err)
	}
	head, err := b.head()
	if err != nil {
		t.Fatal(err)
	}
	c, err := object.GetCommit(b.repo.Storer, head.hash)
	if err != nil {
		t.Fatal(err)
	}
	var hashes []plumbing.Hash
	err = walkFiles(ctx, mustTree(t, c), func(_ string, e object.TreeEntry) { hashes = append(hashes, e.Hash) })
	if err != nil {
		t.Fatal(err)
	}
	// HasEncodedObject reads the pack indexes every time: a read of an
	// object may be answered from go-git's cache of objects.
	const rounds = 300
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 4 {
		wg.Go(func() {
			for range rounds {
				for _, h := range hashes {
					if err := b.repo.Storer.HasEncodedObject(h); err != nil {
						errs <- fmt.Errorf("object %s: %w", h, err)
						return
					}
				}
			}
		})
	}
	wg.Go(func() {
		for range rounds {
			b.reloadPacks()
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("read HEAD while the packs reload: %v", err)
	}
}

// A fetch writes its pack through the storage's pack writer while the
// other goroutines of the process go on (the daemon's worker and index,
// the MCP server's requests), and any of them taking the write lock makes
// the storage list its packs again. A pack closed after that must neither
// crash the process (go-git adds it to a map that is gone: the daemon's
// sync died there) nor be missing from the objects read next.
func TestPackClosedAfterPacksReload(t *testing.T) {
	ctx := t.Context()
	a := testVault(t)
	for i := range 3 {
		if _, err := a.Remember(ctx, RememberOptions{Text: fmt.Sprintf("Fact %d, fetched in a pack.", i)}); err != nil {
			t.Fatal(err)
		}
	}
	head, err := a.head()
	if err != nil {
		t.Fatal(err)
	}
	// The pack a fetch of a's branch brings: every object of its history.
	hashes, err := revlist.Objects(a.repo.Storer, []plumbing.Hash{head.hash}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var pack bytes.Buffer
	if _, err := packfile.NewEncoder(&pack, a.repo.Storer, false).Encode(hashes, 10); err != nil {
		t.Fatal(err)
	}
	b := testVault(t)
	w, err := b.repo.Storer.(storer.PackfileWriter).PackfileWriter()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w, &pack); err != nil {
		t.Fatal(err)
	}
	b.reloadPacks() // another goroutine's write lock, while the pack comes in
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, h := range hashes {
		if err := b.repo.Storer.HasEncodedObject(h); err != nil {
			t.Errorf("object %s of the pack just written: %v", h, err)
		}
	}
	if _, err := object.GetCommit(b.repo.Storer, head.hash); err != nil {
		t.Errorf("read the fetched commit: %v", err)
	}
	runGit(t, b, "cat-file", "-e", head.hash.String())
	runGit(t, b, "fsck", "--no-dangling")
}

// A write reads HEAD's commit and the trees on its paths, which the writes
// before it left loose: reading them must not load the pack indexes, which
// at 100,000 entries cost more than the rest of the write. An object only
// in a pack is still found.
func TestLooseObjectsReadWithoutPackIndexes(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	first, err := v.Remember(ctx, RememberOptions{Text: "The first fact, soon packed."})
	if err != nil {
		t.Fatal(err)
	}
	runGit(t, v, "gc", "-q")
	if _, err := v.Remember(ctx, RememberOptions{Text: "The second fact, left loose."}); err != nil {
		t.Fatal(err)
	}
	v, err = Open(ctx, v.Root())
	if err != nil {
		t.Fatal(err)
	}
	s := v.repo.Storer.(*sharedStorage)
	head, err := v.head()
	if err != nil {
		t.Fatal(err)
	}
	c, err := object.GetCommit(s, head.hash)
	if err != nil {
		t.Fatal(err)
	}
	tree := mustTree(t, c)
	if s.filled {
		t.Fatal("reading the loose HEAD commit and its tree loaded the pack indexes")
	}
	// The first write's commit is in the pack only.
	packed := plumbing.NewHash(first.Commit.Hash)
	pc, err := object.GetCommit(s, packed)
	if err != nil {
		t.Fatalf("read packed commit %s: %v", packed, err)
	}
	if pc.Hash != packed || !s.filled {
		t.Fatalf("packed commit read as %s, pack indexes loaded: %v", pc.Hash, s.filled)
	}
	// Loose or packed, the objects read are git's.
	var n int
	err = walkFiles(ctx, tree, func(p string, e object.TreeEntry) {
		n++
		want := strings.TrimSpace(runGit(t, v, "cat-file", "-p", e.Hash.String()))
		b, err := object.GetBlob(s, e.Hash)
		if err != nil {
			t.Fatalf("read %s: %v", p, err)
		}
		r, _ := b.Reader()
		got, _ := io.ReadAll(r)
		if strings.TrimSpace(string(got)) != want {
			t.Errorf("%s reads %q, git says %q", p, got, want)
		}
	})
	if err != nil || n == 0 {
		t.Fatalf("walked %d files: %v", n, err)
	}
}

// FuzzReadLoose: any bytes stored as a loose object are read as the object
// they hold, or refused with an error; never a panic, never an object of
// another hash.
func FuzzReadLoose(f *testing.F) {
	f.Add([]byte("blob 5\x00hello"), true)
	f.Add([]byte("tree 0\x00"), true)
	f.Add([]byte("blob 99\x00short"), false)
	f.Add([]byte(""), false)
	f.Fuzz(func(t *testing.T, raw []byte, named bool) {
		h := plumbing.ZeroHash
		if typ, rest, ok := strings.Cut(string(raw), " "); named && ok {
			if size, content, ok := strings.Cut(rest, "\x00"); ok {
				if pt, err := plumbing.ParseObjectType(typ); err == nil && size == fmt.Sprint(len(content)) {
					h = plumbing.ComputeHash(pt, []byte(content))
				}
			}
		}
		dir := t.TempDir()
		name := h.String()
		if err := os.MkdirAll(filepath.Join(dir, name[:2]), 0o755); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		zw := zlib.NewWriter(&b)
		zw.Write(raw)
		zw.Close()
		if err := os.WriteFile(filepath.Join(dir, name[:2], name[2:]), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		obj, err := readLoose(dir, h)
		if err != nil {
			return
		}
		if obj.Hash() != h {
			t.Fatalf("read %s as an object of hash %s", h, obj.Hash())
		}
	})
}
