package extractor

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/eval/synthvault"
	"github.com/ctx0/ctx0/vault"
)

// TestBudgetNeverExceeded is a property test: over random vaults, random
// questions and random budgets, a bundle's text and a context block never
// take more tokens than their budget, and say how many they take.
func TestBudgetNeverExceeded(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the generator commits with the git binary")
	}
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 99))
			m, words := randomVault(t, r)
			for range 25 {
				q := randomQuestion(r, words)
				budget := MinBudget + r.IntN(1200)
				b, err := Retrieve(t.Context(), m, Request{Query: q, Budget: budget})
				if err != nil {
					t.Fatalf("retrieve %q: %v", q, err)
				}
				if n := Tokens(b.Text()); n > budget || n != b.Tokens {
					t.Fatalf("retrieve %q, budget %d: the bundle takes %d tokens and says %d:\n%s", q, budget, n, b.Tokens, b.Text())
				}
			}
			for range 10 {
				budget := MinContextBudget + r.IntN(1700)
				project := []string{"", "github.com/me/alpha", "beta"}[r.IntN(3)]
				b, err := Context(t.Context(), m, ContextOptions{Project: project, Budget: budget})
				if err != nil {
					t.Fatalf("context, budget %d: %v", budget, err)
				}
				if n := Tokens(b.Text); n > budget || n != b.Tokens {
					t.Fatalf("context, budget %d: the block takes %d tokens and says %d:\n%s", budget, n, b.Tokens, b.Text)
				}
			}
		})
	}
}

// randomVault generates a vault of synthetic entries, then adds entries
// with what the generator lacks: pins, projects, links, long paragraphs,
// lists, code, CJK text. It returns the vault's words, to ask about.
func randomVault(t *testing.T, r *rand.Rand) (Memory, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	if err := synthvault.Generate(dir, 40+r.IntN(40), 200+r.IntN(1500), r.Uint64()); err != nil {
		t.Fatal(err)
	}
	var words []string
	sentence := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("%s%d", []string{"alpha", "deploy", "sarah", "queue", "vault", "東京", "naïve", "key"}[r.IntN(8)], r.IntN(5))
			words = append(words, w[i])
		}
		return strings.Join(w, " ") + "."
	}
	for i := range 30 {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: %s\ntype: %s\npinned: %v\n", sentence(2+r.IntN(3)), []string{"note", "contact", "project", "episode"}[r.IntN(4)], r.IntN(4) == 0)
		if p := []string{"", "alpha", "beta", "github.com/me/alpha"}[r.IntN(4)]; p != "" {
			fmt.Fprintf(&b, "project: %s\n", p)
		}
		fmt.Fprintf(&b, "created: 2026-01-%02dT10:00:00Z\n---\n", 1+r.IntN(28))
		for range 1 + r.IntN(5) {
			switch r.IntN(5) {
			case 0:
				b.WriteString(sentence(100 + r.IntN(300)))
			case 1:
				for range 3 + r.IntN(20) {
					b.WriteString("- " + sentence(3+r.IntN(12)) + "\n")
				}
			case 2:
				b.WriteString("```\n" + strings.Repeat("x := f(y) // "+sentence(3)+"\n", 1+r.IntN(40)) + "```")
			case 3:
				fmt.Fprintf(&b, "See [[gen/n%d]] and [[gen/n%d|another]]. %s", r.IntN(30), r.IntN(30), sentence(10))
			default:
				b.WriteString("## " + sentence(3) + "\n" + sentence(5+r.IntN(30)))
			}
			b.WriteString("\n\n")
		}
		if err := writeFile(filepath.Join(dir, "gen", fmt.Sprintf("n%d.md", i)), []byte(b.String())); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, dir)
	v, err := vault.Open(t.Context(), dir, vault.WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	return open(t, v), words
}

// randomQuestion asks about a few of the vault's words, with filler.
func randomQuestion(r *rand.Rand, words []string) string {
	q := []string{"what", "about", "the"}[:r.IntN(4)]
	n := 1 + r.IntN(6)
	if r.IntN(10) == 0 {
		n = 80 // a question pasted whole
	}
	for range n {
		q = append(q, words[r.IntN(len(words))])
	}
	if r.IntN(5) == 0 {
		q = append(q, "NOT", words[r.IntN(len(words))])
	}
	return strings.Join(q, " ")
}

// TestDiversifyAlikeButDifferent checks that passages written alike that
// tell of different people are both kept when the question names the
// second one's (held: the question's terms each holds), and so are
// passages of two conversations however alike, while a copy is left out;
// and that of an entry and the session it was filed from, the entry is
// quoted when it holds what the passage holds.
func TestDiversifyAlikeButDifferent(t *testing.T) {
	say := func(name, hobby string) string {
		return name + " started taking " + hobby + " classes on Thursday evenings, she says it's the best part of her week. Thursday " + hobby + " sounds like a great way to unwind."
	}
	mk := func(name, text string, score float64, held ...int) *candidate {
		return &candidate{kind: "session", name: name, score: score, passage: passage{text: text}, held: held}
	}
	conv := func(c *candidate, ref string) *candidate { c.conv = ref; return c }
	entryOf := func(name, text string, score float64, held ...int) *candidate {
		c := mk(name, text, score, held...)
		c.kind = "entry"
		return c
	}
	episodeOf := func(name, text string, score float64, held ...int) *candidate {
		c := entryOf(name, text, score, held...)
		c.typ = episodeType
		return c
	}
	tests := []struct {
		name string
		cs   []*candidate
		keep []string
	}{
		{"another person, another hobby", []*candidate{
			// "What does Sofia do on Thursday evenings": sofia 0,
			// thursday 1, evenings 2.
			mk("a", say("Mei", "pottery"), 1, 1, 2), mk("b", say("Sofia", "salsa"), 0.9, 0, 1, 2),
			mk("c", "The build broke again this morning, something about the cache config.", 0.5),
		}, []string{"a", "b", "c"}},
		{"a change of mind, told in another conversation", []*candidate{
			// "What does Mei do on Thursday evenings", asked of two
			// days on which she took up a hobby.
			conv(mk("a", say("Mei", "pottery"), 1, 1, 2), "s1@1"), conv(mk("b", say("Mei", "chess"), 0.9, 1, 2), "s2@2"),
		}, []string{"a", "b"}},
		{"a copy", []*candidate{
			mk("a", say("Mei", "pottery"), 1, 1, 2), mk("b", say("Mei", "pottery"), 0.9, 1, 2),
			mk("c", "The build broke again this morning, something about the cache config.", 0.5),
		}, []string{"a", "c"}},
		// "what commit message convention do I use": commit 0, message
		// 1, convention 2. The session ranks first; the preference filed
		// from it holds every word the session's passage does.
		{"an entry filed from the session it answers with", []*candidate{
			conv(mk("conversation:3", "user: use the conventional commit convention for the commit message", 1, 0, 1, 2), "s3@1"),
			conv(entryOf("preferences/conventional-commits", "Always use the conventional-commits convention for the log message.", 0.8, 0, 1, 2), "s3@1"),
			mk("c", "The build broke again this morning, something about the cache config.", 0.5),
		}, []string{"preferences/conventional-commits", "c"}},
		{"an entry that holds less than the session's passage", []*candidate{
			conv(mk("conversation:3", "user: use the conventional commit convention for the commit message", 1, 0, 1, 2), "s3@1"),
			conv(entryOf("preferences/conventional-commits", "Always use conventional commits.", 0.8, 0), "s3@1"),
		}, []string{"conversation:3"}},
		{"the conversation's episode", []*candidate{
			conv(mk("conversation:3", "user: use the conventional commit convention for the commit message", 1, 0, 1, 2), "s3@1"),
			conv(episodeOf("episodes/2025-07/2025-07-22", "Done: staged the changes; commit message in the conventional commit convention; pushed.", 0.8, 0, 1, 2), "s3@1"),
		}, []string{"conversation:3"}},
		{"two entries filed from one conversation", []*candidate{
			conv(entryOf("decisions/async-await", "Make async/await the primary documented API.", 1, 0), "s9@1"),
			conv(entryOf("decisions/entry-points", "Keep several specialized request entry points.", 0.9, 1), "s9@1"),
			conv(mk("conversation:9", "user: make async/await primary and keep the entry points", 0.8, 0, 1), "s9@1"),
		}, []string{"decisions/async-await", "decisions/entry-points"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := diversify(tt.cs)
			var got []string
			for _, c := range out {
				got = append(got, c.name)
			}
			if !slices.Equal(got, tt.keep) {
				t.Errorf("kept %v, want %v", got, tt.keep)
			}
		})
	}
}
