package index

import (
	"fmt"
	"slices"
	"testing"
	"time"

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

// TestLatestInATimeByWhenItHappened: a listing of a time lists the latest
// to happen first, not the latest filed: a fact learned on Monday and filed
// on Wednesday of the next week comes after Friday's note, and a limit of
// one keeps Friday's.
func TestLatestInATimeByWhenItHappened(t *testing.T) {
	_, ix := searchVault(t, map[string]string{
		"knowledge/monday.md":    "---\ntitle: Monday\nconversation: \"abc@2026-01-19T09:00:00Z\"\ncreated: 2026-01-28T10:00:00Z\nupdated: 2026-01-28T10:00:00Z\n---\nLearned on Monday.\n",
		"knowledge/wednesday.md": "---\ntitle: Wednesday\nupdated: 2026-01-21T10:00:00Z\n---\nWritten on Wednesday.\n",
		"knowledge/friday.md":    "---\ntitle: Friday\nupdated: 2026-01-23T10:00:00Z\n---\nWritten on Friday.\n",
	})
	since, until := time.Date(2026, 1, 19, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 26, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		limit int
		want  []string
	}{
		{10, []string{"knowledge/friday", "knowledge/wednesday", "knowledge/monday"}},
		{1, []string{"knowledge/friday"}},
	} {
		l, err := ix.Latest(t.Context(), Listing{Since: since, Until: until, Limit: tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		if got := names(l); !slices.Equal(got, tc.want) {
			t.Errorf("limit %d: %q, want %q", tc.limit, got, tc.want)
		}
	}
}
