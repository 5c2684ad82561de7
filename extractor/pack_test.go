package extractor

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// TestCompact checks that an entry is quoted without the lines its item's
// line says already: its title again, and where it was learned; and that a
// passage that only says its title still says it.
func TestCompact(t *testing.T) {
	for _, c := range []struct{ name, title, passage, want string }{
		{"provenance", "Use one codex queue",
			"Use one codex queue: the auth volume is shared by the workers.\nLearned 2025-11-13 in [[episodes/2025-11/2025-11-13]] (project [[projects/moonmind]]).",
			"Use one codex queue: the auth volume is shared by the workers."},
		{"error of a fix titled by it", "Fix: There's an issue with the winston logger (Bash npm start)",
			"Error: There's an issue with the winston logger (Bash `npm start`)\nFix: import the logger directly.",
			"Fix: import the logger directly."},
		{"heading that is the title", "Espresso brew ratio",
			"# Espresso brew ratio\n18 g of coffee in, 36 g out.",
			"18 g of coffee in, 36 g out."},
		{"a statement that is its title", "Remove the queue separation and have a codex queue",
			"Remove the queue separation and have a codex queue\nLearned 2025-11-13 in [[episodes/2025-11/2025-11-13]] (project [[projects/moonmind]]).",
			"Remove the queue separation and have a codex queue"},
		{"short lines kept", "Espresso ratio", "## Ratio\n18 g in.", "## Ratio\n18 g in."},
		{"a line that differs in a word kept", "Espresso ratio is 1:2", "Espresso ratio is 1:3\nLearned 2025-11-13 in [[episodes/2025-11/2025-11-13]].", "Espresso ratio is 1:3"},
		{"a line that tells more kept", "Espresso ratio", "The espresso ratio is 1:2, 18 g in and 36 g out.", "The espresso ratio is 1:2, 18 g in and 36 g out."},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := compact(c.title, c.passage); got != c.want {
				t.Errorf("compact(%q, %q) = %q, want %q", c.title, c.passage, got, c.want)
			}
		})
	}
}

// TestDiversifyFoldsEntryWithoutItsProvenance checks that an entry filed
// from a conversation is likened to that conversation's passage by what
// it says, not by where it was learned: the decision of the Gemini
// pomodoro session, whose passage quotes the ideas and the choice, adds
// nothing beside it.
func TestDiversifyFoldsEntryWithoutItsProvenance(t *testing.T) {
	r := &retrieval{t: analyze("how long is the long break in the pomodoro app?")}
	r.match = matcher{t: r.t}
	conv := "0b23371a@2025-10-21T10:00:00Z"
	session := &candidate{kind: "session", name: "conversation:2", conv: conv, score: 1, passage: passage{text: "" +
		"assistant: Here are a few ideas to enhance the app: * **Customizable timer durations:** Let users set their own times for work and break sessions. * **Sound notifications:** Replace the alert with a subtle sound to signal the end of a session. * **Visual progress bar:** Show the remaining time visually. * **Long breaks:** After a few Pomodoros, offer a longer break. * **Task list:** Add a simple to-do list for each session. Do any of these sound interesting to you?\n" +
		"user: Add a visual progress bar and long breaks suggestions\n" +
		"assistant: …I'll also implement a `sessionsSinceLongBreak` counter; after four work sessions, the next break will be a 15-minute \"Long…"}}
	decision := &candidate{kind: "entry", typ: "decision", name: "decisions/add-a-visual-progress-bar-and-long-breaks-suggestions", conv: conv, score: 0.58, passage: passage{text: "" +
		"Add a visual progress bar and long breaks suggestions\n## Why\n" +
		"Chosen among the ideas offered: Customizable timer durations; Sound notifications; Visual progress bar; Long breaks; Task list\n" +
		"Learned 2025-10-21 in [[episodes/2025-10/2025-10-21]] (project [[projects/gemini]])."}}
	for _, c := range []*candidate{session, decision} {
		c.held = r.match.matched(c.title + "\n" + c.passage.text)
	}
	out, omitted := diversify([]*candidate{session, decision})
	if len(out) != 1 || out[0] != session {
		var names []string
		for _, c := range out {
			names = append(names, c.name)
		}
		t.Errorf("diversify kept %v (omitted %v), want the conversation alone", names, omitted)
	}
}

// TestRetrieveLeavesOutWhatHoldsOnlyItsName checks that an entry in a
// bundle for the name the question says holds more of the question than
// that name: a project's overview does not stand beside the decision that
// answers, but is the answer when the question asks of the project alone;
// a person's entry, what is known of them, stays.
func TestRetrieveLeavesOutWhatHoldsOnlyItsName(t *testing.T) {
	v := vaulttest.New(t, vault.WithClock(now))
	files := map[string]string{
		"projects/moonmind.md":                "---\ntype: project\ntitle: MoonMind\n---\n\n## Overview\nWork in `github.com/MoonLadderStudios/MoonMind`.\n",
		"decisions/one-shared-codex-queue.md": "---\ntype: decision\ntitle: One shared codex queue for the MoonMind workers\n---\n\nThe workers pull from a single shared queue: the named queues left jobs with no consumer.\n",
		"contacts/sarah-chen.md":              "---\ntype: contact\ntitle: Sarah Chen\n---\n\nPrefers Slack for anything about scheduling.\n",
		"notes/standup.md":                    "---\ntype: note\ntitle: Standup\n---\n\nSarah Chen asked to be contacted before the review.\n",
	}
	for name, body := range files {
		if err := writeFile(filepath.Join(v.Root(), filepath.FromSlash(name)), []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, v.Root())
	m := open(t, v)
	for _, c := range []struct {
		q         string
		want, not string
	}{
		{"what did we decide about the queues in MoonMind?", "decisions/one-shared-codex-queue", "projects/moonmind"},
		{"MoonMind", "projects/moonmind", ""},
		{"how does Sarah like to be contacted?", "contacts/sarah-chen", ""},
	} {
		b, err := Retrieve(t.Context(), m, Request{Query: c.q})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, it := range b.Items {
			names = append(names, it.Name)
		}
		if !slices.Contains(names, c.want) || c.not != "" && slices.Contains(names, c.not) {
			t.Errorf("%q: items %v, want %s and not %q\n%s", c.q, names, c.want, c.not, b.Text())
		}
		if strings.Contains(b.Text(), "Learned ") {
			t.Errorf("%q: the bundle quotes where an entry was learned:\n%s", c.q, b.Text())
		}
	}
}

// TestTextSaysASessionOnce checks that a bundle's text names a past
// session once: a later passage of it points to the first.
func TestTextSaysASessionOnce(t *testing.T) {
	b := Bundle{Query: "where does Kenji live now?", Items: []Item{
		{Kind: "session", Title: "claude-code session synth-p2 in ~/src/cinder", Source: "ctx0 conversation show 72", Passage: "user: Kenji moved to Valencia."},
		{Kind: "session", Title: "codex session 019a7ae6 in ~/src/other", Source: "ctx0 conversation show 3", Passage: "user: Kenji called."},
		{Kind: "session", Title: "claude-code session synth-p2 in ~/src/cinder", Source: "ctx0 conversation show 70", Passage: "user: Kenji moved to Marseille."},
		{Kind: "entry", Title: "claude-code session synth-p2 in ~/src/cinder", Source: "notes/x.md", Passage: "An entry titled alike."},
	}}
	text := b.Text()
	for _, want := range []string{
		"[1] claude-code session synth-p2 in ~/src/cinder ctx0 conversation show 72\n",
		"[2] codex session 019a7ae6 in ~/src/other ctx0 conversation show 3\n",
		"[3] same session as [1] ctx0 conversation show 70\n",
		"[4] claude-code session synth-p2 in ~/src/cinder notes/x.md\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}
