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

// BenchmarkCover finds the cover of a question in entry-sized texts of the
// shared transcripts, as a search does for each of its best rows.
func BenchmarkCover(b *testing.B) {
	all := chunks(texts(b))
	m := NewMarker("why did the file error come back after the test run?")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m.Cover(all[i%len(all)])
		i++
	}
}
