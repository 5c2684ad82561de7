package query

import "testing"

// BenchmarkSnippet makes the snippets of a search over entry-sized texts
// of the shared transcripts: one Marker, as a search uses one for all its
// results.
func BenchmarkSnippet(b *testing.B) {
	all := chunks(texts(b))
	m := NewMarker("file error")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m.Snippet(all[i%len(all)], 16, "«", "»", "…")
		i++
	}
}
