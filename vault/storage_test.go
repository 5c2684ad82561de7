package vault

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
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
