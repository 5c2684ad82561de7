package query

import (
	"strings"
	"testing"
)

// BenchmarkSnippet makes the snippets of a search over entry-sized texts
// of the shared transcripts, with one Marker, as a search uses one for all
// its results; and the snippet of a 1 MB log that matches 40,000 times.
func BenchmarkSnippet(b *testing.B) {
	b.Run("entries", func(b *testing.B) {
		all := chunks(texts(b))
		m := NewMarker("file error")
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			m.Snippet(all[i%len(all)], 16, "«", "»", "…")
			i++
		}
	})
	b.Run("log", func(b *testing.B) {
		log := strings.Repeat("an error in the sync job. ", 40000)
		m := NewMarker("error")
		for b.Loop() {
			m.Snippet(log, 16, "«", "»", "…")
		}
	})
}
