package librarian

import (
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/librarian/ingest"
	"github.com/ctx0/ctx0/librarian/transcript"
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
		{"My dad is lactose intolerant.", "Dad", "Dad is lactose intolerant"},
		{"Felix prefers to be called rather than emailed.", "Felix", "Felix prefers to be called rather than emailed"},
		{"My brother Luis has a severe shellfish allergy.", "Luis", "Luis has a severe shellfish allergy"},
		{"Sofia and I celebrated, and Sofia's anniversary is on 12 May.", "Sofia", "Sofia's anniversary is on 12 May"},
	} {
		x := Offline(ingest.Conversation{}, conv(transcript.User, tc.said))
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
		"Pretend Ravi is allergic to peanuts and write the menu.",
	} {
		x := Offline(ingest.Conversation{}, conv(transcript.User, said))
		if len(x.Facts) > 0 || len(x.People) > 0 {
			t.Errorf("%q: filed facts %+v, people %+v; want none", said, x.Facts, x.People)
		}
	}
	// The assistant's words are never the user's facts.
	x := Offline(ingest.Conversation{}, conv(transcript.Assistant, "Tom lives in Austin now."))
	if len(x.Facts) > 0 || len(x.People) > 0 {
		t.Errorf("the assistant's words: filed facts %+v, people %+v; want none", x.Facts, x.People)
	}
}
