package curator_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ctx0/ctx0/curator"
	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/vault"
)

// TestContextBlockUsesSummaries: the session-start block loads the newest
// compacted summary as context, the incremental ones since as recent, and
// as latest only what changed after them.
func TestContextBlockUsesSummaries(t *testing.T) {
	v, c, got := curator.SummaryScenario(t)
	c.Add(time.Hour)
	curator.Note(t, v, c, "knowledge/after", "After the summaries: the new office is in Lisbon.")
	b := contextBlock(t, v, c.Now)
	sections := map[string][]string{}
	for _, it := range b.Items {
		sections[it.Section] = append(sections[it.Section], it.Name)
	}
	if !slices.Equal(sections["context"], got[curator.TagCompacted]) || !slices.Equal(sections["recent"], got[curator.TagIncremental]) {
		t.Errorf("block sections %v, summaries %v\n%s", sections, got, b.Text)
	}
	if !slices.Equal(sections["latest"], []string{"knowledge/after"}) {
		t.Errorf("latest %v\n%s", sections["latest"], b.Text)
	}
}

// TestContextBlockPreferences: the block's preferences are those above
// the curator's threshold, the most confident first; one that faded below
// it is left out even before a run archives it, and so is it from the
// latest entries. What the user stated stays.
func TestContextBlockPreferences(t *testing.T) {
	v, c := curator.TestVault(t)
	curator.Put(t, v, "preferences/faded", "---\ntitle: Faded\ntype: preference\nsource: librarian\ncreated: 2025-10-01T09:00:00Z\nupdated: 2025-10-01T09:00:00Z\n---\nThe user once liked light mode.\n")
	curator.Put(t, v, "preferences/strong", "---\ntitle: Strong\ntype: preference\nsource: librarian\nobservations: 4\nlast_observed: 2026-04-20T09:00:00Z\ncreated: 2026-01-01T09:00:00Z\nupdated: 2026-04-20T09:00:00Z\n---\nThe user wants short commit subjects.\n")
	curator.Put(t, v, "preferences/new", "---\ntitle: New\ntype: preference\nsource: librarian\ncreated: 2026-04-30T09:00:00Z\nupdated: 2026-04-30T09:00:00Z\n---\nThe user likes tables.\n")
	curator.Put(t, v, "preferences/stated", "---\ntitle: Stated\ntype: preference\nsource: user\ncreated: 2025-01-01T09:00:00Z\nupdated: 2025-01-01T09:00:00Z\n---\nThe user wants dark mode.\n")
	b := contextBlock(t, v, c.Now)
	var prefs, others []string
	for _, it := range b.Items {
		if it.Section == "preferences" {
			prefs = append(prefs, it.Name)
		} else {
			others = append(others, it.Name)
		}
	}
	if want := []string{"preferences/stated", "preferences/strong", "preferences/new"}; !slices.Equal(prefs, want) {
		t.Errorf("preferences %v, want %v\n%s", prefs, want, b.Text)
	}
	if slices.Contains(others, "preferences/faded") {
		t.Errorf("the faded preference is in the block:\n%s", b.Text)
	}
}

// contextBlock builds the context block of v as a session would see it at
// now, through a fresh index.
func contextBlock(t *testing.T, v *vault.Vault, now func() time.Time) extractor.Block {
	t.Helper()
	ix, err := index.Open(t.Context(), v, index.WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	b, err := extractor.Context(t.Context(), extractor.Memory{Vault: v, Index: ix, Now: now}, extractor.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestContextBlockOldStatedPreference: a preference the user stated long
// ago never fades, so it leads the block's preferences however many newer
// observations there are.
func TestContextBlockOldStatedPreference(t *testing.T) {
	v, c := curator.TestVault(t)
	curator.Put(t, v, "preferences/stated", "---\ntitle: Stated\ntype: preference\nsource: user\ncreated: 2025-01-01T09:00:00Z\nupdated: 2025-01-01T09:00:00Z\n---\nThe user wants dark mode.\n")
	for i := range 60 {
		at := c.Now().Add(-time.Duration(60-i) * time.Hour).UTC().Format(time.RFC3339)
		curator.Put(t, v, fmt.Sprintf("preferences/seen-%02d", i), fmt.Sprintf("---\ntitle: Seen %d\ntype: preference\nsource: librarian\ncreated: %s\nupdated: %s\n---\nThe user said %d.\n", i, at, at, i))
	}
	b := contextBlock(t, v, c.Now)
	var prefs []string
	for _, it := range b.Items {
		if it.Section == "preferences" {
			prefs = append(prefs, it.Name)
		}
	}
	if len(prefs) == 0 || prefs[0] != "preferences/stated" {
		t.Errorf("preferences %v, want preferences/stated first\n%s", prefs, b.Text)
	}
}
