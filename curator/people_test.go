package curator

import (
	"strings"
	"testing"

	"github.com/ctx0/ctx0/agent/llm"
)

// TestSamePerson: the curator merges two contacts for one person when the
// evidence is strong (a full name containing the other's title, and the
// short one's text naming the full name or both naming one organisation),
// keeps every fact of both, and links a mention to the longest name it
// matches; contacts that only share a first name stay apart.
func TestSamePerson(t *testing.T) {
	v, c := fixtureVault(t, "testdata/people.txtar")
	res, err := Run(t.Context(), Options{Vault: v, Provider: llm.Offline{}, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	files := entryFiles(t, v)
	for _, tc := range []struct {
		name, file string
		gone       bool
		has        []string
		lacks      []string
	}{
		{name: "the short name is merged away", file: "contacts/maria.md", gone: true},
		{name: "the full name keeps every fact", file: "contacts/maria-okafor.md",
			has: []string{"Partner at Lumen Capital.", "Q1 metrics deck by March 3", "email: maria@lumen.example", "aliases: [contacts/maria, Maria]"}},
		{name: "a mention links the longest name", file: "projects/atlas.md",
			has: []string{"contacts/maria-okafor"}, lacks: []string{"contacts/maria\n", "contacts/maria]", "contacts/maria,"}},
		{name: "a mention of a full name does not link the first name", file: "projects/site.md",
			has: []string{"links: [contacts/alex-kim]"}},
		{name: "the same organisation", file: "contacts/dana.md", gone: true},
		{name: "the same organisation keeps both facts", file: "contacts/dana-ruiz.md",
			has: []string{"Engineering lead at Northwind Traders.", "prefers Slack"}},
		{name: "a first name alone is no evidence", file: "contacts/alex.md", has: []string{"climbing gym"}},
		{name: "the other Alex stays", file: "contacts/alex-kim.md", has: []string{"Designer at Acme."}, lacks: []string{"climbing"}},
		{name: "two full names that fit leave it alone", file: "contacts/sam.md", has: []string{"called about the invoice"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, ok := files[tc.file]
			if ok == tc.gone {
				t.Fatalf("%s: present %v, want %v\n%s", tc.file, ok, !tc.gone, changeLines(res))
			}
			for _, s := range tc.has {
				if !strings.Contains(text, s) {
					t.Errorf("%s lacks %q:\n%s", tc.file, s, text)
				}
			}
			for _, s := range tc.lacks {
				if strings.Contains(text, s) {
					t.Errorf("%s holds %q:\n%s", tc.file, s, text)
				}
			}
		})
	}
}
