package index

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// TestLatestPages: pages of a listing, one after the other, are the whole
// listing in order, each entry once.
func TestLatestPages(t *testing.T) {
	ctx := t.Context()
	v := vaulttest.New(t)
	ix := openIndex(t, v, nil)
	for i := range 7 {
		if _, _, err := v.Add(ctx, vault.AddOptions{Name: fmt.Sprintf("notes/n%d", i), Meta: vault.Meta{Type: "note"}}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := ix.Latest(ctx, Listing{Type: "note", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 7 {
		t.Fatalf("%d notes, want 7", len(all))
	}
	var paged []string
	for off := 0; off < 10; off += 3 {
		page, err := ix.Latest(ctx, Listing{Type: "note", Limit: 3, Offset: off})
		if err != nil {
			t.Fatal(err)
		}
		if want := min(3, max(0, 7-off)); len(page) != want {
			t.Errorf("offset %d: %d entries, want %d", off, len(page), want)
		}
		for _, r := range page {
			paged = append(paged, r.Name)
		}
	}
	var whole []string
	for _, r := range all {
		whole = append(whole, r.Name)
	}
	if !slices.Equal(paged, whole) {
		t.Errorf("pages %v, whole listing %v", paged, whole)
	}
}
