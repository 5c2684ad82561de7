package vault

import (
	"os"
	"path/filepath"
	"testing"
)

// A file an editor is rewriting in place (truncated, not yet written) when
// a sync commits edits made with other tools must get the editor's write:
// the sync commits the file as it finds it and does not write it again,
// which would put a new file in its place and send the editor's write to
// the old one, which nobody sees.
func TestExternalEditKeepsWriteInProgress(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	p := filepath.Join(v.Root(), "knowledge", "by-hand.md")
	commitExternal := func() {
		t.Helper()
		unlock, err := v.lock(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer unlock()
		if _, _, err := v.commitExternalLocked(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(p, []byte("---\ntitle: By hand\n---\nFirst version.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	commitExternal()
	editor, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	commitExternal()
	want := "---\ntitle: By hand\n---\nSecond version.\n"
	if _, err := editor.WriteString(want); err != nil {
		t.Fatal(err)
	}
	if err := editor.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(p); err != nil || string(got) != want {
		t.Fatalf("after the editor's write the file holds %q (%v), want %q", got, err, want)
	}
	commitExternal()
	if got := runGit(t, v, "show", "HEAD:knowledge/by-hand.md"); got != want {
		t.Errorf("HEAD has %q, want %q", got, want)
	}
	checkClean(t, v)
}
