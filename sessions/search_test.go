package sessions

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/transcript"
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

// TestSearchTurns: a hit quoted by turns holds the reply that follows the
// user's message that matched, whole, labelled by its speaker; a long
// reply is cut at sentence bounds; the hit is the matched turn's.
func TestSearchTurns(t *testing.T) {
	s, _ := testStore(t)
	dir := t.TempDir()
	start := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	texts := []string{
		"What kind of writing do you enjoy these days?",
		"Thanks! I get my ideas from books, films and even dreams. Lately it is short science fiction about lighthouses.",
		"How did we fix the winston logger error in the capture service?",
		"The error came from the default export. " + strings.Repeat("We looked at the stack trace again. ", 30) + "The fix was to import winston with a named import and to set the log level to verbose in the config.",
	}
	var b strings.Builder
	for i, text := range texts {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		b.WriteString(line("turns", role, text, start.Add(time.Duration(i)*time.Minute)))
	}
	ingest(t, s, []File{writeFile(t, dir, "a/turns.jsonl", b.String())}, Options{})
	for _, c := range []struct {
		q, want string
		not     []string
	}{
		{"what kind of writing do you enjoy?", "user: What kind of writing do you enjoy these days?\nassistant: Thanks! I get my ideas from books, films and even dreams. Lately it is short science fiction about lighthouses.", nil},
		{"how did we fix the winston logger error?", "assistant: …", []string{"User:", "Assistant:", "«"}},
	} {
		hits, err := s.Search(t.Context(), Query{Text: c.q, PassageOnly: true, Turns: true, Snippet: 60})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			t.Fatalf("%q: no hit", c.q)
		}
		h := hits[0]
		if c.want != "" && !strings.Contains(h.Snippet, c.want) {
			t.Errorf("%q: passage %q, want it to hold %q", c.q, h.Snippet, c.want)
		}
		for _, n := range c.not {
			if strings.Contains(h.Snippet, n) {
				t.Errorf("%q: passage %q holds %q", c.q, h.Snippet, n)
			}
		}
		if h.Speaker != transcript.User {
			t.Errorf("%q: hit attributed to %s, want the user's matched turn", c.q, h.Speaker)
		}
	}
	hits, err := s.Search(t.Context(), Query{Text: "how did we fix the winston logger error?", PassageOnly: true, Turns: true, Snippet: 60})
	if err != nil {
		t.Fatal(err)
	}
	if p := hits[0].Snippet; !strings.Contains(p, "verbose") || strings.Count(p, " ") > 70 {
		t.Errorf("the long reply is not cut around what answers: %q", p)
	}
}

// TestTurnsSpeakers: over the real transcripts of all four agents, every
// line of a passage quoted by turns is labelled with the role of the
// message it quotes, as the transcript has it, and holds no other label
// ("user: …User: …"); the assistant's words are never labelled user.
func TestTurnsSpeakers(t *testing.T) {
	s, _ := testStore(t)
	files := publishedFiles(t)
	cursor, err := FindFiles(t.Context(), filepath.Join("..", "transcript", "testdata", "cursor"))
	if err != nil {
		t.Fatal(err)
	}
	ingest(t, s, append(files, cursor...), Options{})
	convs, err := s.Conversations(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	sources := map[transcript.Source]int{}
	for _, c := range convs {
		msgs, err := s.Messages(t.Context(), c.ID)
		if err != nil {
			t.Fatal(err)
		}
		// What each role said in the conversation, on one line.
		said := map[string]string{}
		var asks []string
		for _, m := range msgs {
			var b strings.Builder
			b.WriteString(m.Text)
			for _, x := range m.Tools {
				b.WriteString("\n→ " + x.Name + " " + x.Target)
			}
			said[string(m.Role)] += " " + strings.Join(strings.Fields(b.String()), " ")
			if f := strings.Fields(m.Text); len(f) >= 4 {
				// A question in the words of a message of either speaker.
				asks = append(asks, strings.Join(f[:4], " "))
			}
		}
		for _, q := range asks[:min(len(asks), 6)] {
			hits, err := s.Search(t.Context(), Query{Text: strings.Map(func(r rune) rune {
				if strings.ContainsRune(`"*():^-`, r) {
					return ' '
				}
				return r
			}, q), PassageOnly: true, Turns: true, Snippet: 96})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				if h.Conversation != c.ID {
					continue
				}
				sources[h.Source]++
				for _, line := range strings.Split(h.Snippet, "\n") {
					role, text, ok := strings.Cut(line, ": ")
					if !ok || (role != string(transcript.User) && role != string(transcript.Assistant)) {
						t.Errorf("%s %q: line %q has no speaker", h.Source, q, line)
						continue
					}
					for _, label := range []string{"User: ", "Assistant: ", "user: ", "assistant: "} {
						if strings.HasPrefix(strings.TrimLeft(text, "…"), label) {
							t.Errorf("%s %q: line %q is labelled twice", h.Source, q, line)
						}
					}
					// Its first words are what that speaker said.
					f := strings.Fields(strings.Trim(text, "…"))
					head := strings.Join(f[:min(len(f), 5)], " ")
					if !strings.Contains(said[role], head) {
						t.Errorf("%s %q: line %q is labelled %s; the %s did not say %q", h.Source, q, line, role, role, head)
					}
				}
			}
		}
	}
	for _, src := range []transcript.Source{transcript.ClaudeCode, transcript.Codex, transcript.Gemini, transcript.Cursor} {
		if sources[src] == 0 {
			t.Errorf("no passage of a %s session checked (checked %v)", src, sources)
		}
	}
}

// TestTurnsQuoteWhatAnswers: over the real transcripts, a passage quoted
// by turns holds what answers the question though it is not in the turn
// that holds the question's words: the assistant's next words after its
// own ("Port 8080 is in use. Let me find what's using it:" → "There's
// already a node process on 8080"), the tool calls made before a reply
// ("→ Bash mix phx.server"), the reply after a question said again once
// tool calls found nothing, and the line of a long summary after the
// matched words ("Tests: … → 4 passed", cut at lines).
func TestTurnsQuoteWhatAnswers(t *testing.T) {
	s, _ := testStore(t)
	ingest(t, s, publishedFiles(t), Options{})
	for _, c := range []struct{ q, want string }{
		{"what was using port 8080 when the web server wouldn't start?", "node process"},
		{"how do I start phoenix in the background?", "phx.server"},
		{"why were codex jobs routed to the codex-1 and codex-2 queues?", "leaves those queues with no consumers"},
		{"how many tests passed after adding the rules command?", "4 passed"},
	} {
		hits, err := s.Search(t.Context(), Query{Text: c.q, PassageOnly: true, Turns: true, Snippet: 96, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || !strings.Contains(hits[0].Snippet, c.want) {
			t.Errorf("%q: first passage %+v, want it to hold %q", c.q, hits, c.want)
		}
	}
}

// TestTurnsQuoteTheConclusion: a passage that quotes the exchange after
// the matched turn (Follow, as retrieve's first conversation is quoted)
// ends with the assistant's last words before the user speaks again when
// the exchange goes on past the turns quoted: over a real Cursor
// transcript, the summary that names the PR after many steps of tool calls.
func TestTurnsQuoteTheConclusion(t *testing.T) {
	s, _ := testStore(t)
	cursor, err := FindFiles(t.Context(), filepath.Join("..", "transcript", "testdata", "cursor"))
	if err != nil {
		t.Fatal(err)
	}
	ingest(t, s, append(publishedFiles(t), cursor...), Options{})
	q := "which PR added CLAUDE.md to the luke repo?"
	hits, err := s.Search(t.Context(), Query{Text: q, PassageOnly: true, Turns: true, Snippet: 192, Follow: 6, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || !strings.Contains(hits[0].Snippet, "PR #38") {
		t.Errorf("%q: first passage %+v, want it to hold %q", q, hits, "PR #38")
	}
	// A passage of the reply alone is as it was.
	hits, err = s.Search(t.Context(), Query{Text: q, PassageOnly: true, Turns: true, Snippet: 96, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || strings.Count(hits[0].Snippet, "\n") > 2 {
		t.Errorf("%q: passage of the reply alone %+v, want at most three turns", q, hits)
	}
}
