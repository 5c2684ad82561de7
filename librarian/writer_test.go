package librarian

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/internal/gittest"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// extraction is an Extraction with empty lists, as a model returns one.
func extraction(title string) Extraction {
	return Extraction{Episode: Episode{Title: title, Request: "r", Done: "d", Outcome: "o"},
		Facts: []Item{}, Preferences: []Item{}, Decisions: []Item{}, People: []Person{}, Projects: []Project{},
		Milestones: []Item{}, Insights: []Item{}, Questions: []Item{}, Resolutions: []Resolution{}, Corrections: []Item{}}
}

func reply(t *testing.T, x Extraction) []byte {
	t.Helper()
	data, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRunUpdatesInsteadOfDuplicating: a fact the vault already holds is
// linked to the new episode, not written again; a preference the user
// changed, and a fact that changed, supersede the entries they replace.
func TestRunUpdatesInsteadOfDuplicating(t *testing.T) {
	v, ix := testVault(t)
	for _, r := range []vault.RememberOptions{
		{Text: "The staging invoices API lives at billing-staging.internal.", Type: "fact"},
		{Text: "The user prefers tabs for indentation in Go files.", Type: "preference"},
		{Text: "Deploys go out on Tuesdays and Thursdays from the release branch.", Type: "fact"},
	} {
		if _, err := v.Remember(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	x := extraction("Indentation and deploys")
	x.Facts = []Item{
		{Text: "The staging invoices API lives at billing-staging.internal", Evidence: Evidence{1, "q"}},
		{Text: "Deploys go out on Tuesdays only from the release branch.", Evidence: Evidence{2, "q"}},
		{Text: "Deploys go out on Tuesdays only from the release branch.", Evidence: Evidence{3, "said twice"}},
	}
	x.Preferences = []Item{{Text: "The user prefers spaces for indentation in Go files.", Replaces: "prefers tabs for indentation", Evidence: Evidence{4, "q"}}}
	st := billing(t, v.Root())
	res, err := Run(t.Context(), Options{Vault: v, Store: st, Provider: &canned{reply: reply(t, x)}, Search: ix, Now: now, Loc: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Filed
	wantCreated := []string{"knowledge/deploys-go-out-on-tuesdays-only-from-the-release-branch", "preferences/the-user-prefers-spaces-for-indentation-in-go-files", "episodes/2026-01/2026-01-27", "projects/billing"}
	wantUpdated := []string{"knowledge/the-staging-invoices-api-lives-at-billing-staging.internal", "knowledge/deploys-go-out-on-tuesdays-and-thursdays", "preferences/the-user-prefers-tabs-for-indentation-in-go-files"}
	slices.Sort(f.Created)
	slices.Sort(f.Updated)
	slices.Sort(wantCreated)
	slices.Sort(wantUpdated)
	if !slices.Equal(f.Created, wantCreated) || !slices.Equal(f.Updated, wantUpdated) {
		t.Fatalf("created %v\nupdated %v\nwant created %v\nupdated %v", f.Created, f.Updated, wantCreated, wantUpdated)
	}
	read := func(name string) *entry.Entry {
		e, err := entry.Parse(readFile(t, filepath.Join(v.Root(), name+".md")))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if e := read("knowledge/the-staging-invoices-api-lives-at-billing-staging.internal"); !slices.Contains(e.LinkNames(), "episodes/2026-01/2026-01-27") || e.Source() != "agent" {
		t.Errorf("the repeated fact: links %v, source %q; want the episode linked and the entry otherwise kept", e.LinkNames(), e.Source())
	}
	for old, by := range map[string]string{
		"knowledge/deploys-go-out-on-tuesdays-and-thursdays":            "knowledge/deploys-go-out-on-tuesdays-only-from-the-release-branch",
		"preferences/the-user-prefers-tabs-for-indentation-in-go-files": "preferences/the-user-prefers-spaces-for-indentation-in-go-files",
	} {
		if got := read(old).SupersededBy(); got != by {
			t.Errorf("%s superseded by %q, want %q", old, got, by)
		}
		if e := read(by); !slices.Contains(e.LinkNames(), old) || !strings.Contains(e.Body(), "Replaces [["+old+"]]") {
			t.Errorf("%s does not link the entry it replaces", by)
		}
	}
	gittest.CheckClean(t, v.Root())
}

// TestRunLimits: an extraction over the run's limits writes what fits,
// cuts what is too long, and says in the episode what it left out.
func TestRunLimits(t *testing.T) {
	v, ix := testVault(t)
	x := extraction("A flood")
	for i := range 40 {
		x.Facts = append(x.Facts, Item{Title: "Fact " + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + strconv.Itoa(i), Text: "Fact number " + strconv.Itoa(i) + " " + strings.Repeat("word ", 10*(i%3)), Evidence: Evidence{i, "q"}})
	}
	x.Insights = []Item{{Text: strings.Repeat("long ", 100), Evidence: Evidence{0, "q"}}}
	st := billing(t, v.Root())
	res, err := Run(t.Context(), Options{Vault: v, Store: st, Provider: &canned{reply: reply(t, x)}, Search: ix, Now: now, Loc: time.UTC,
		Limits: Limits{EntryChars: 300, SectionChars: 900, Files: 10}})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Filed
	if n := len(f.Created) + len(f.Updated); n != 11 {
		t.Errorf("%d entries written, want 10 and the episode", n)
	}
	ep := string(readFile(t, filepath.Join(v.Root(), "episodes", "2026-01", "2026-01-27.md")))
	// 40 facts, an insight and the project: 9 facts fit after the project.
	if !strings.Contains(ep, "Left out:** 32 more entries, over the limit of 10 files") {
		t.Errorf("the episode does not say what was left out:\n%s", ep)
	}
	if len(f.Notes) == 0 {
		t.Error("no notes")
	}
	gittest.CheckClean(t, v.Root())
}

// TestNamesStayInTheirFolder: whatever a transcript or a model calls
// something, its entry is one file in its type's folder.
func TestNamesStayInTheirFolder(t *testing.T) {
	w := &Writer{Config: vault.DefaultConfig()}
	for _, s := range []string{"../../etc/passwd", ".git/config", ".ctx0", "/abs/path", "C:\\win", "a/../../b", "...", "", "\x00", "con", strings.Repeat("x", 500)} {
		n, err := w.name("fact", slugOf(s))
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if !strings.HasPrefix(n, "knowledge/") || strings.Count(n, "/") != 1 || strings.Contains(n, "..") || strings.Contains(n, "/.") {
			t.Errorf("%q names %q", s, n)
		}
		if err := vault.CheckRunFile(n+".md", []byte("---\ntitle: x\n---\n")); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
}
