package index

import (
	"context"
	"runtime"
	"testing"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// A write in a process whose watcher runs (the watcher that takes other
// processes' writes, the MCP server's, the daemon's) syncs with that
// watcher instead of listing again the folder its previous write changed;
// a file another program adds meanwhile is found all the same.
func TestWriteBesideItsWatcherListsNoFolder(t *testing.T) {
	ctx := t.Context()
	v := vaulttest.New(t)
	ix := openIndex(t, v, nil)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- ix.Watch(wctx, nil) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	for ix.localWatcher() == nil {
		select {
		case err := <-done:
			t.Fatal(err)
		default:
			runtime.Gosched()
		}
	}
	remember := func(text string) vault.Remembered {
		t.Helper()
		r, err := v.Remember(ctx, vault.RememberOptions{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	remember("The deploy window opens at nine.")
	remember("The billing run starts at ten.")
	if _, err := ix.Pin(ctx); err != nil {
		t.Fatal(err)
	}
	if rep := ix.LastCheck(); rep.Check != CheckWatcher || rep.Checked != 0 {
		t.Errorf("a write's check after the previous write: %s, %d files compared; want %s, none", rep.Check, rep.Checked, CheckWatcher)
	}

	writeFile(t, v, "knowledge/by-hand.md", "---\ntitle: By hand\n---\nThe pager rotation changes on Monday.\n")
	if r := remember("The pager rotation changes on Monday."); !r.Duplicate {
		t.Errorf("a text another program saved meanwhile was saved again as %s", r.Name)
	}
}
