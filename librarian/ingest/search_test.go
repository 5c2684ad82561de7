package ingest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSearchPoolsConversation: when the only word of a question a
// conversation holds is a person's name, the conversation that talks about
// them across several passages, the answer among them, goes before one
// that names them once in a short passage, which a ranking of each passage
// alone puts first. The lift is the best passage's: the other passages of
// the conversation that talks about them stay below the short one.
func TestSearchPoolsConversation(t *testing.T) {
	s, _ := testStore(t)
	dir := t.TempDir()
	start := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	write := func(name, id string, texts []string) File {
		var b strings.Builder
		for i, text := range texts {
			role := "user"
			if i%2 == 1 {
				role = "assistant"
			}
			b.WriteString(line(id, role, text, start.Add(time.Duration(i)*time.Minute)))
		}
		return writeFile(t, dir, name, b.String())
	}
	filler := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("the migration step %d went through, the tests pass and the logs are clean", i))
		}
		return out
	}
	// Three search blocks of five messages, each naming Mei; the second
	// says where she moved to.
	about := slices.Concat(
		[]string{"Mei called this morning about the trip"}, filler(4),
		[]string{"Mei moved to Lyon last month for the new job"}, filler(4),
		[]string{"I will send Mei the photos from the trip"}, filler(4),
	)
	once := slices.Concat([]string{"ask Mei"}, filler(4), filler(5))
	ingest(t, s, []File{
		write("a/about.jsonl", "about-mei", about),
		write("b/once.jsonl", "names-mei-once", once),
	}, Options{})

	tests := []struct {
		name string
		q    Query
		want []string // the sessions of the hits, in order
	}{
		{"only the name matches", Query{Text: "where does Mei live now?"},
			[]string{"about-mei", "names-mei-once", "about-mei", "about-mei"}},
		{"each passage alone", Query{Text: "where does Mei live now?", PassageOnly: true},
			[]string{"names-mei-once", "about-mei", "about-mei", "about-mei"}},
		{"not a natural query: not ranked again", Query{Text: `"Mei"`},
			[]string{"names-mei-once", "about-mei", "about-mei", "about-mei"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := s.Search(t.Context(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.Session)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Search(%q) gave the sessions %q, want %q; hits %+v", tt.q.Text, got, tt.want, hits)
			}
			for i := 1; i < len(hits); i++ {
				if hits[i].Score > hits[i-1].Score {
					t.Errorf("hit %d scores %v, above hit %d's %v", i, hits[i].Score, i-1, hits[i-1].Score)
				}
			}
		})
	}
}
