package librarian

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/internal/gittest"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/transcript"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// TestPersonFacts: what the user says of someone they name that stays
// true (where they live, where they work, how to reach them, what they
// took up, what they cannot eat, their birthday) is a fact about that
// person; what only sounds like one (a plan, a guess, a question, work
// on files, the assistant's words) is nothing.
func TestPersonFacts(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	conv := func(role transcript.Role, s string) []transcript.Message {
		return []transcript.Message{
			{Role: transcript.User, Time: t0, Text: "Let's plan the week."},
			{Role: transcript.Assistant, Time: t0, Text: "Sure, what's on it?"},
			{Role: role, Time: t0, Text: s},
		}
	}
	for _, tc := range []struct{ said, person, fact string }{
		{"My sister Ana relocated to Berlin last month.", "Ana", "Ana relocated to Berlin"},
		{"Tom lives in Austin now.", "Tom", "Tom lives in Austin"},
		{"Priya started working at Stripe.", "Priya", "Priya started working at Stripe"},
		{"my friend Leo took up climbing", "Leo", "Leo took up climbing"},
		{"Jess hates phone calls, text her instead.", "Jess", "Jess hates phone calls, text her instead"},
		{"Ravi is allergic to peanuts.", "Ravi", "Ravi is allergic to peanuts"},
		{"Mom's birthday is on 3 March.", "Mom", "Mom's birthday is on 3 March"},
		{"Good news: my cousin Marta finally moved to San Francisco.", "Marta", "Marta finally moved to San Francisco"},
		{"Our neighbor Hugo has moved back to Porto.", "Hugo", "Hugo has moved back to Porto"},
		{"Quick update on Kai: he got a new job at Shopify.", "Kai", "Kai got a new job at Shopify"},
		{"Btw, Nina prefers email for anything formal.", "Nina", "Nina prefers email for anything formal"},
		{"My roommate Sam never answers the phone, so message him on Signal.", "Sam", "Sam never answers the phone, so message him on Signal"},
		{"Lena is best reached on WhatsApp.", "Lena", "Lena is best reached on WhatsApp"},
		{"My uncle Pedro picked up woodworking after he retired.", "Pedro", "Pedro picked up woodworking"},
		{"Aisha started learning Japanese this spring.", "Aisha", "Aisha started learning Japanese"},
		{"My flatmate Jonas joined a running club.", "Jonas", "Jonas joined a running club"},
		{"Omar went vegan last year.", "Omar", "Omar went vegan"},
		{"Carla can't eat gluten, she's celiac.", "Carla", "Carla can't eat gluten"},
		{"My partner Alex's birthday is June 14th.", "Alex", "Alex's birthday is June 14th"},
		{"Grace was born on the 2nd of October.", "Grace", "Grace was born on the 2nd of October"},
		{"My aunt Rosa is based in Lyon these days.", "Rosa", "Rosa is based in Lyon"},
		{"Fyi Daniel works for Deloitte now.", "Daniel", "Daniel works for Deloitte"},
		{"My classmate Yuki is really into bouldering.", "Yuki", "Yuki is really into bouldering"},
		{"Big news from my neighbour Inès: she just moved to Madrid for a new job.", "Inès", "Inès just moved to Madrid"},
		{"Heard from my cousin Joao: he finally relocated to Toronto, so we'll visit him in the autumn.", "Joao", "Joao finally relocated to Toronto"},
		{"Ikram started taking pottery classes on Tuesdays.", "Ikram", "Ikram started taking pottery classes"},
		{"My dad is lactose intolerant.", "Dad", "Dad is lactose intolerant"},
		{"Felix prefers to be called rather than emailed.", "Felix", "Felix prefers to be called rather than emailed"},
		{"My brother Luis has a severe shellfish allergy.", "Luis", "Luis has a severe shellfish allergy"},
		{"Sofia and I celebrated, and Sofia's anniversary is on 12 May.", "Sofia", "Sofia's anniversary is on 12 May"},
	} {
		x := Offline(sessions.Conversation{}, conv(transcript.User, tc.said))
		var facts []string
		for _, f := range x.Facts {
			facts = append(facts, f.Text)
		}
		if len(facts) != 1 || !strings.HasPrefix(facts[0], tc.fact) {
			t.Errorf("%q: facts %q, want one opening %q", tc.said, facts, tc.fact)
		}
		if len(x.People) != 1 || x.People[0].Name != tc.person {
			t.Errorf("%q: people %+v, want %s", tc.said, x.People, tc.person)
		}
	}
	for _, said := range []string{
		"I moved the file to src/ and renamed it.",
		"Move the handler to api/ please.",
		"Lisbon is a lovely place.",
		"She might move to Paris next year.",
		"Tom might move to Paris next year.",
		"If Tom moved to Paris, we'd lose our best tester.",
		"Can you ask Tom where he lives?",
		"Does Priya still work at Stripe?",
		"Tom is planning to move to Berlin.",
		"Maybe Ana lives in Porto, I'm not sure.",
		"Docker moved to Buildkit for builds.",
		"Claude prefers shorter prompts.",
		"We moved to Postgres last week.",
		"The config lives in Vault.",
		"Tom moved the meeting to Friday.",
		"Everything lives in S3 now.",
		"Wouldn't it be funny if Jess took up golf?",
		"Sarah will start working at Google in May.",
		"Tom doesn't live in Austin anymore.",
		"I took up the task and fixed the bug.",
		"Config prefers `yaml` over json.",
		"Rename `Tom moved to Austin` in the fixture.",
		"Ana wants to move to Berlin.",
		"If Nora took up chess, she'd beat us all.",
		"We'll see whether Tom moved to Austin after all.",
		"Pretend Ravi is allergic to peanuts and write the menu.",
		"My sister relocated to Berlin.", // no name to file it under
	} {
		x := Offline(sessions.Conversation{}, conv(transcript.User, said))
		if len(x.Facts) > 0 || len(x.People) > 0 {
			t.Errorf("%q: filed facts %+v, people %+v; want none", said, x.Facts, x.People)
		}
	}
	// The assistant's words are never the user's facts.
	x := Offline(sessions.Conversation{}, conv(transcript.Assistant, "Tom lives in Austin now."))
	if len(x.Facts) > 0 || len(x.People) > 0 {
		t.Errorf("the assistant's words: filed facts %+v, people %+v; want none", x.Facts, x.People)
	}
}

// TestPersonFactReplaces: a person fact of a kind that changes replaces
// the entry of that kind about the same person ("Where Mateo lives"),
// and nothing said of someone else, however alike; the person's contact
// holds what was said.
func TestPersonFactReplaces(t *testing.T) {
	v, ix := testVault(t)
	for title, said := range map[string]string{"Where Mateo lives": "Mateo moved to Lisbon", "Where Omar lives": "Omar moved to Krakow", "Omar took up pottery": "Omar took up pottery"} {
		if _, _, err := v.Add(t.Context(), vault.AddOptions{Meta: vault.Meta{Title: title, Type: "fact", Source: "agent"},
			Name: "knowledge/" + slugOf(title), Body: ptr(said + "\n")}); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 1, 27, 9, 0, 0, 0, time.UTC)
	x := Offline(sessions.Conversation{}, []transcript.Message{{Role: transcript.User, Time: t0, Text: "Quick update: my neighbour Mateo lives in Porto now. And my cousin Lina took up pottery."}})
	if len(x.Facts) != 2 || x.Facts[0].Title != "Where Mateo lives" || x.Facts[1].Replaces != "" {
		t.Fatalf("facts %+v, want one titled Where Mateo lives and one that replaces nothing", x.Facts)
	}
	st := billing(t, v.Root())
	if _, err := Run(t.Context(), Options{Vault: v, Store: st, Provider: &canned{reply: reply(t, x)}, Search: ix, Now: now, Loc: time.UTC}); err != nil {
		t.Fatal(err)
	}
	read := func(name string) *entry.Entry {
		e, err := entry.Parse(readFile(t, filepath.Join(v.Root(), name+".md")))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if got := read("knowledge/where-mateo-lives").SupersededBy(); got != "knowledge/where-mateo-lives-2" {
		t.Errorf("where Mateo lived is superseded by %q, want the new entry", got)
	}
	for _, name := range []string{"knowledge/where-omar-lives", "knowledge/omar-took-up-pottery"} {
		if got := read(name).SupersededBy(); got != "" {
			t.Errorf("%s, about someone else, is superseded by %q", name, got)
		}
	}
	if e := read("knowledge/where-mateo-lives-2"); !strings.Contains(e.Body(), "Mateo lives in Porto") || !slices.Contains(e.LinkNames(), "contacts/mateo") {
		t.Errorf("the new fact: links %v, body\n%s", e.LinkNames(), e.Body())
	}
	if e := read("contacts/mateo"); !strings.Contains(e.Body(), "my neighbour Mateo lives in Porto now") {
		t.Errorf("the contact does not hold what was said:\n%s", e.Body())
	}
	gittest.CheckClean(t, v.Root())
}
