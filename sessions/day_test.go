package sessions

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/index/query"
)

// TestSearchWeighsTheAskedDay: "who is coming with me to the investor demo
// on 18 May?" finds first the conversation whose reply to "When is it?"
// names that day, above one about the investor demo of 27 May that says
// the question's other words in one sentence, and one whose "18 June"
// holds the day's number: search --sessions reads the day as retrieve
// does. The day is said two turns after the investor demo, in another
// search block, so it is the conversation that names it.
func TestSearchWeighsTheAskedDay(t *testing.T) {
	s, _ := testStore(t)
	dir := t.TempDir()
	start := time.Date(2023, 4, 15, 14, 0, 0, 0, time.UTC)
	var files []File
	write := func(id string, texts ...string) {
		var b strings.Builder
		for i, text := range texts {
			role := "user"
			if i%2 == 1 {
				role = "assistant"
			}
			b.WriteString(line(id, role, text, start.Add(time.Duration(len(files))*24*time.Hour+time.Duration(i)*time.Minute)))
		}
		files = append(files, writeFile(t, dir, id+".jsonl", b.String()))
	}
	write("zoe", "Let's refactor the retry logic, it's duplicated in three places.", "Measure first, then decide.", "Sure, later then.",
		"Can you keep track of something for me? Zoe is coming along to my investor demo.",
		"Of course. When is it?", "Thursday 18 May 2023, at 10:30.", "Noted, 10:30 on 18 May.")
	write("aisha", "Reminder for later: my investor demo is on Saturday 27 May 2023, at 10:30, and Aisha is coming with me.",
		"Noted, Aisha is coming with you to the investor demo on 27 May.")
	write("tomas", "Can you keep track of something for me? Tomás is coming along to my product launch.",
		"Of course. When is it?", "Sunday 18 June 2023, at 10:30.", "Noted.")
	for i := range 6 {
		write(fmt.Sprintf("filler-%d", i), "Let's refactor the retry logic, it's duplicated in three places.", "Measure first, then decide.")
	}
	ingest(t, s, files, Options{})

	q := "who is coming with me to the investor demo on 18 May?"
	hits, err := s.Search(t.Context(), Query{Text: q, Plan: query.Parse(q, testNow)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hits {
		got = append(got, h.Session)
	}
	if len(got) < 3 || got[0] != "zoe" || slices.Index(got, "tomas") < slices.Index(got, "aisha") {
		t.Errorf("got the sessions %q, want zoe's first, then aisha's above tomas's; hits %+v", got, hits)
	}
	// Read as typed, by a program (query.Plain), the day is not weighed.
	plain, err := s.Search(t.Context(), Query{Text: q})
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) == 0 || plain[0].Session != "aisha" {
		t.Errorf("as typed: got %+v, want aisha's first", plain)
	}
}
