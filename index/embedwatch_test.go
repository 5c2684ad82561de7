package index

import (
	"context"
	"testing"

	"github.com/ctx0/ctx0/vaulttest"
)

// lengthEmbedder embeds a text as its length and its count of spaces: a
// model of no meaning, deterministic, that counts the texts it is sent.
type lengthEmbedder struct{ sent int }

func (e *lengthEmbedder) Model() string { return "length-2" }

func (e *lengthEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.sent += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		spaces := 0
		for _, r := range t {
			if r == ' ' {
				spaces++
			}
		}
		out[i] = []float32{float32(len(t)), float32(spaces)}
	}
	return out, nil
}

func TestEmbedAfterCatchesUpThenFollowsChanges(t *testing.T) {
	v := vaulttest.New(t)
	ix := openIndex(t, v, nil)
	e := &lengthEmbedder{}
	var reports []Report
	var embeds []EmbedReport
	report := ix.EmbedAfter(t.Context(), e, func(r Report) { reports = append(reports, r) }, func(r EmbedReport, err error) {
		if err != nil {
			t.Fatal(err)
		}
		embeds = append(embeds, r)
	})

	// The first report embeds what is due, changed or not: the watch
	// catching up.
	report(ix.LastCheck())
	if len(embeds) != 1 || embeds[0].Entries == 0 || e.sent == 0 {
		t.Fatalf("first report: embeddings %+v, %d texts sent; want the vault embedded", embeds, e.sent)
	}
	// A report of no change embeds nothing.
	report(Report{Check: CheckPaths})
	if len(embeds) != 1 {
		t.Fatalf("a report of no change embedded: %+v", embeds)
	}
	// A change is embedded after it is reported.
	writeFile(t, v, "knowledge/deploy.md", "---\ntitle: Deploy\n---\nThe staging deploy key lives in 1Password.\n")
	rep, err := ix.Refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	report(rep)
	if len(embeds) != 2 || embeds[1].Entries != 1 {
		t.Fatalf("after a change: embeddings %+v, want one entry embedded", embeds)
	}
	if len(reports) != 3 {
		t.Errorf("%d reports passed on, want 3", len(reports))
	}

	// Without an embedder, reports pass straight through.
	n := 0
	plain := ix.EmbedAfter(t.Context(), nil, func(Report) { n++ }, nil)
	plain(rep)
	if n != 1 {
		t.Errorf("without an embedder: %d reports passed on, want 1", n)
	}
}
