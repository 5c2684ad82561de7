package index

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// TestFolderCheckBesideUnsettledRows covers the check that writes make,
// in a folder that holds a row written too recently to trust (as after a
// ctx0 write): the folder's sum answers without reading every row, and
// still the unsettled row is compared by content, and a file replaced by
// rename, a new file and a removed one are all found.
func TestFolderCheckBesideUnsettledRows(t *testing.T) {
	ctx := t.Context()
	v := vaulttest.New(t)
	for _, n := range []string{"alpha", "bravo", "charlie"} {
		writeFile(t, v, "knowledge/"+n+".md", "---\ntitle: "+n+"\n---\nAbout "+n+".\n")
	}
	ix := openIndex(t, v, nil)
	// Every file indexed so far is long settled.
	ix.now = func() time.Time { return time.Now().Add(time.Hour) }
	if _, err := ix.check(ctx, CheckFull); err != nil {
		t.Fatal(err)
	}
	ix.now = time.Now

	r, err := v.Remember(ctx, vault.RememberOptions{Text: "Kilo is the codename."})
	if err != nil {
		t.Fatal(err)
	}
	// Edited in place with the same size, the mtime put back: only the
	// row's being unsettled says its content must be read again.
	path := filepath.Join(v.Root(), vault.EntryPath(r.Name))
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(string(data[:len(data)-len("Kilo is the codename.\n")])+"Lima is the codename.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.check(ctx, CheckFolders); err != nil {
		t.Fatal(err)
	}
	if got := names(findUnchecked(t, ix, "lima")); !slices.Equal(got, []string{r.Name}) {
		t.Errorf("after an in-place edit of the unsettled entry, search lima = %q, want %s", got, r.Name)
	}

	// Replaced by rename, added, removed.
	tmp := filepath.Join(v.Root(), "knowledge", ".bravo.md.swp")
	if err := os.WriteFile(tmp, []byte("---\ntitle: bravo\n---\nAbout zulu.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(v.Root(), "knowledge", "bravo.md")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, v, "knowledge/delta.md", "About delta.\n")
	if err := os.Remove(filepath.Join(v.Root(), "knowledge", "charlie.md")); err != nil {
		t.Fatal(err)
	}
	rep, err := ix.check(ctx, CheckFolders)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != 1 || rep.Updated != 1 || rep.Removed != 1 {
		t.Errorf("folder check = %+v, want 1 added, 1 updated, 1 removed", rep)
	}
	for q, want := range map[string][]string{"zulu": {"knowledge/bravo"}, "delta": {"knowledge/delta"}, "charlie": {}} {
		if got := names(findUnchecked(t, ix, q)); !slices.Equal(got, want) {
			t.Errorf("search %s = %q, want %q", q, got, want)
		}
	}
}

// findUnchecked searches without the check that a search makes first: it
// shows what the last check left in the index.
func findUnchecked(t *testing.T, ix *Index, q string) []Result {
	t.Helper()
	unchecked := &Index{shared: ix.shared, checked: true}
	rs, err := unchecked.Search(t.Context(), Query{Text: q})
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return rs
}

// An entry read again only because its row is unsettled, its bytes and
// stamp unchanged, is restamped without being indexed again: settled once
// its mtime is old enough to trust, its recency (the date it says it was
// updated, not its mtime) kept.
func TestUnsettledRowWithSameBytesIsRestamped(t *testing.T) {
	ctx := t.Context()
	v := vaulttest.New(t)
	ix := openIndex(t, v, nil)
	writeFile(t, v, "knowledge/kilo.md", "---\ntitle: Kilo\nupdated: 2025-03-01T10:00:00Z\n---\nKilo is the codename.\n")
	if _, err := ix.check(ctx, CheckFull); err != nil {
		t.Fatal(err)
	}
	db, err := ix.handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before, err := loadRows(ctx, db, []string{"knowledge/kilo"})
	if err != nil {
		t.Fatal(err)
	}
	if r := before["knowledge/kilo"]; r.settled || r.recency == "" {
		t.Fatalf("just written: %+v, want an unsettled row with a recency", r)
	}
	ix.now = func() time.Time { return time.Now().Add(time.Hour) }
	rep, err := ix.check(ctx, CheckFull)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Changes() != 0 {
		t.Errorf("check = %+v, want no entry indexed again", rep)
	}
	after, err := loadRows(ctx, db, []string{"knowledge/kilo"})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := after["knowledge/kilo"], before["knowledge/kilo"]; !a.settled || a.recency != b.recency || a.id != b.id {
		t.Errorf("after the window: %+v, want %+v settled, its recency kept", a, b)
	}
}

// TestFolderCheckByNamesBesideRemember covers the folder check that a
// write makes, which compares a folder's names and inode numbers with the
// index instead of statting each file. After a remember alone it stats
// nothing but the entry just written; beside a remember, another program
// adds a file (whose text the remember then finds as a duplicate),
// removes one, renames one, replaces one by a rename and edits one in
// place: the first four are in the index after the write's check, and the
// edit in place after the full check, as the folder check promises.
func TestFolderCheckByNamesBesideRemember(t *testing.T) {
	ctx := t.Context()
	v := vaulttest.New(t)
	const files = 40
	for i := range files {
		writeFile(t, v, fmt.Sprintf("knowledge/f%02d.md", i), fmt.Sprintf("---\ntitle: f%02d\n---\nAbout word%02d.\n", i, i))
	}
	ix := openIndex(t, v, nil)
	ix.now = func() time.Time { return time.Now().Add(time.Hour) }
	if _, err := ix.check(ctx, CheckFull); err != nil {
		t.Fatal(err)
	}
	ix.now = time.Now

	first, err := v.Remember(ctx, vault.RememberOptions{Text: "The first fact stands alone.", Type: "fact"})
	if err != nil {
		t.Fatal(err)
	}
	if vault.Folder(first.Name) != "knowledge" {
		t.Fatalf("remembered %s, want it in knowledge/", first.Name)
	}
	rep, err := ix.check(ctx, CheckFolders)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Checked > 1 || rep.Changes() != 0 {
		t.Errorf("folder check after a remember alone = %+v, want at most the new entry compared and nothing changed", rep)
	}

	dir := filepath.Join(v.Root(), "knowledge")
	writeFile(t, v, "knowledge/added.md", "The xray fact came from another program.\n")
	if err := os.Remove(filepath.Join(dir, "f03.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "f04.md"), filepath.Join(dir, "renamed.md")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, v, "knowledge/.f05.md.swp", "---\ntitle: f05\n---\nAbout yankee.\n")
	if err := os.Rename(filepath.Join(dir, ".f05.md.swp"), filepath.Join(dir, "f05.md")); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "f06.md"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("Now about zebra.\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	dup, err := v.Remember(ctx, vault.RememberOptions{Text: "The xray fact came from another program.", Type: "fact"})
	if err != nil {
		t.Fatal(err)
	}
	if !dup.Duplicate || dup.Name != "knowledge/added" {
		t.Errorf("remember of the added file's text = %+v, want a duplicate of knowledge/added", dup)
	}
	second, err := v.Remember(ctx, vault.RememberOptions{Text: "The second fact stands alone.", Type: "fact"})
	if err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string][]string{
		"xray":   {"knowledge/added"},
		"word03": {},
		"word04": {"knowledge/renamed"},
		"yankee": {"knowledge/f05"},
		"word05": {},
		"second": {second.Name},
	} {
		if got := names(findUnchecked(t, ix, q)); !slices.Equal(got, want) {
			t.Errorf("after the remember, search %s = %q, want %q", q, got, want)
		}
	}
	if _, err := ix.check(ctx, CheckFull); err != nil {
		t.Fatal(err)
	}
	if got := names(findUnchecked(t, ix, "zebra")); !slices.Equal(got, []string{"knowledge/f06"}) {
		t.Errorf("after the full check, search zebra = %q, want knowledge/f06", got)
	}
}
