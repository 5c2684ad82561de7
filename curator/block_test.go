package curator_test

import (
	"slices"
	"testing"
	"time"

	"github.com/ctx0/ctx0/curator"
	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/index"
)

// TestContextBlockUsesSummaries: the session-start block loads the newest
// compacted summary as context, the incremental ones since as recent, and
// as latest only what changed after them.
func TestContextBlockUsesSummaries(t *testing.T) {
	v, c, got := curator.SummaryScenario(t)
	c.Add(time.Hour)
	curator.Note(t, v, c, "knowledge/after", "After the summaries: the new office is in Lisbon.")
	ix, err := index.Open(t.Context(), v, index.WithClock(c.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	b, err := extractor.Context(t.Context(), extractor.Memory{Vault: v, Index: ix, Now: c.Now}, extractor.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
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
