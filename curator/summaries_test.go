package curator

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/agent"
	"github.com/ctx0/ctx0/templates"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
	"github.com/ctx0/ctx0/vaulttest"
)

// note creates a note written at the clock's time.
func note(t *testing.T, v *vault.Vault, c *clock, name, text string) {
	t.Helper()
	at := c.Now().UTC().Format(time.RFC3339)
	put(t, v, name, fmt.Sprintf("---\ntitle: %s\ntype: note\nsource: agent\ncreated: %s\nupdated: %s\n---\n%s\n", vault.Slug(name), at, at, text))
}

func settings(t *testing.T, v *vault.Vault, yaml string) {
	t.Helper()
	if _, err := v.EditSettings(t.Context(), "config.yaml", "settings", func([]byte) ([]byte, error) { return []byte(yaml), nil }); err != nil {
		t.Fatal(err)
	}
}

// liveSummaries lists the summaries in use, by tag.
func liveSummaries(t *testing.T, v *vault.Vault) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for p, data := range entryFiles(t, v) {
		e, err := entry.Parse([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if e.Type() != SummaryType || !e.Archived().IsZero() {
			continue
		}
		for _, tag := range e.Tags() {
			out[tag] = append(out[tag], strings.TrimSuffix(p, ".md"))
		}
	}
	for _, l := range out {
		slices.Sort(l)
	}
	return out
}

func curate(t *testing.T, v *vault.Vault, c *clock, sessionEnd bool) Result {
	t.Helper()
	res, err := Run(t.Context(), Options{Vault: v, Now: c.Now, SessionEnd: sessionEnd})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// summaryScenario makes summaries over three days: incremental ones
// after N new entries and at a session's end; on the third day the
// incremental ones older than a day, at least two, are rolled up into a
// compacted summary and archived. It returns the live summaries by tag.
func summaryScenario(t *testing.T) (*vault.Vault, *clock, map[string][]string) {
	t.Helper()
	c := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	v := vaulttest.New(t, vault.WithClock(c.Now))
	settings(t, v, "curator:\n  summarize_after: 3\n")
	curate(t, v, c, false) // one entry (me.md) waits: below the threshold
	for i := range 3 {
		note(t, v, c, fmt.Sprintf("knowledge/day1-%d", i), fmt.Sprintf("Day one, fact number %d about the billing service.", i))
	}
	res := curate(t, v, c, false)
	if got := liveSummaries(t, v); len(got[TagIncremental]) != 1 {
		t.Fatalf("after three entries: %v\n%s", got, changeLines(res))
	}
	c.Add(25 * time.Hour)
	note(t, v, c, "knowledge/day2-0", "Day two: the deploy moved to Fridays.")
	if res := curate(t, v, c, false); len(res.Changes) != 0 {
		t.Fatalf("one entry made a summary:\n%s", changeLines(res))
	}
	res = curate(t, v, c, true)
	if got := liveSummaries(t, v); len(got[TagIncremental]) != 2 {
		t.Fatalf("at a session's end: %v\n%s", got, changeLines(res))
	}
	c.Add(25 * time.Hour)
	note(t, v, c, "knowledge/day3-0", "Day three: Priya owns the daemon now.")
	res = curate(t, v, c, true)
	got := liveSummaries(t, v)
	if len(got[TagCompacted]) != 1 || len(got[TagIncremental]) != 1 {
		t.Fatalf("after two days: %v\n%s", got, changeLines(res))
	}
	compacted := entryFiles(t, v)[got[TagCompacted][0]+".md"]
	for _, want := range []string{"Day one, fact number 0", "Day two: the deploy moved to Fridays.", "covers: [archive/summaries/"} {
		if !strings.Contains(compacted, want) {
			t.Errorf("the compacted summary lacks %q:\n%s", want, compacted)
		}
	}
	return v, c, got
}

// TestSummaries: after the scenario, two more days roll the compacted
// summary up into the next one, which keeps what both said.
func TestSummaries(t *testing.T) {
	v, c, got := summaryScenario(t)
	c.Add(time.Hour)
	note(t, v, c, "knowledge/after", "After the summaries: the new office is in Lisbon.")
	for range 2 {
		c.Add(25 * time.Hour)
		note(t, v, c, fmt.Sprintf("knowledge/later-%d", c.Now().Day()), "A later fact of the day, about the release train.")
		curate(t, v, c, true)
	}
	got2 := liveSummaries(t, v)
	if len(got2[TagCompacted]) != 1 || got2[TagCompacted][0] == got[TagCompacted][0] {
		t.Errorf("after four days: %v (before %v)", got2, got)
	}
	if next := entryFiles(t, v)[got2[TagCompacted][0]+".md"]; !strings.Contains(next, "Day one, fact number 0") || !strings.Contains(next, "Lisbon") {
		t.Errorf("the second compacted summary lost the first's or the latest facts:\n%s", next)
	}
}

// TestDue: --if-due's decision, without running.
func TestDue(t *testing.T) {
	v, c := testVault(t)
	cfg := DefaultConfig()
	cfg.SummarizeAfter = 3
	due := func(sessionEnd bool) bool {
		t.Helper()
		d, why, err := Due(t.Context(), v, cfg, c.Now(), sessionEnd)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("due %v: %s", d, why)
		return d
	}
	if !due(false) {
		t.Error("a vault never curated is not due")
	}
	res, ran, _, err := RunIfDue(t.Context(), Options{Vault: v, Config: &cfg, Now: c.Now})
	if err != nil || !ran || res.Run == nil {
		t.Fatalf("RunIfDue: %v, %v", ran, err)
	}
	if due(false) || due(true) {
		t.Error("due right after a run")
	}
	if _, ran, why, err := RunIfDue(t.Context(), Options{Vault: v, Config: &cfg, Now: c.Now}); ran || err != nil || why == "" {
		t.Errorf("RunIfDue ran when nothing was due: %v %v %q", ran, err, why)
	}
	c.Add(time.Minute)
	note(t, v, c, "knowledge/a", "First new fact of the morning.")
	note(t, v, c, "knowledge/b", "Second new fact of the morning.")
	if due(false) {
		t.Error("due after 2 of 3 entries")
	}
	if !due(true) {
		t.Error("not due at a session's end with entries written")
	}
	note(t, v, c, "knowledge/c", "Third new fact of the morning.")
	if !due(false) {
		t.Error("not due after 3 entries")
	}
	if _, ran, _, err := RunIfDue(t.Context(), Options{Vault: v, Config: &cfg, Now: c.Now}); !ran || err != nil {
		t.Fatalf("RunIfDue: %v, %v", ran, err)
	}
	c.Add(23 * time.Hour)
	if due(false) {
		t.Error("due before a day passed")
	}
	c.Add(time.Hour)
	if !due(false) {
		t.Error("not due a day after the last run")
	}
}

// TestFirstRunOnABigVault: entries beyond what one summary covers make
// more summaries, each a small file.
func TestFirstRunOnABigVault(t *testing.T) {
	v, c := testVault(t)
	s, err := agent.Begin(t.Context(), v, agent.Options{Kind: "test", Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	for i := range maxCovers + 50 {
		if err := s.Write(fmt.Sprintf("knowledge/n-%03d.md", i), fmt.Appendf(nil, "---\ntitle: N %d\ntype: note\ncreated: 2026-04-01T09:00:00Z\n---\nNote number %d of many.\n", i, i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Finish(t.Context(), "many"); err != nil {
		t.Fatal(err)
	}
	curate(t, v, c, false)
	got := liveSummaries(t, v)[TagIncremental]
	if len(got) != 2 {
		t.Fatalf("summaries %v", got)
	}
	for _, n := range got {
		if f := entryFiles(t, v)[n+".md"]; len(f) > 16000 {
			t.Errorf("%s is %d bytes", n, len(f))
		}
	}
}

// TestChangedEntriesAreSummarizedAgain: an entry changed after a summary
// covered it waits for the next summary, once, which tells what it says
// now; a clock ahead does not make it wait forever.
func TestChangedEntriesAreSummarizedAgain(t *testing.T) {
	v, c, before := summaryScenario(t)
	c.Add(time.Hour)
	if _, _, err := v.Write(t.Context(), "knowledge/day1-0", "Day one, fact number 0 was wrong: billing runs on Tuesdays."); err != nil {
		t.Fatal(err)
	}
	res := curate(t, v, c, true)
	after := liveSummaries(t, v)
	var fresh string
	for _, n := range after[TagIncremental] {
		if !slices.Contains(before[TagIncremental], n) {
			fresh = n
		}
	}
	if fresh == "" {
		t.Fatalf("no new summary for the changed entry: %v\n%s", after, changeLines(res))
	}
	text := entryFiles(t, v)[fresh+".md"]
	if !strings.Contains(text, "billing runs on Tuesdays") || !strings.Contains(text, "knowledge/day1-0") {
		t.Errorf("the new summary does not tell what the entry says now:\n%s", text)
	}
	c.Add(time.Hour)
	if res := curate(t, v, c, true); len(res.Changes) != 0 {
		t.Errorf("a second run changed:\n%s", changeLines(res))
	}
	// An entry dated a year ahead is summarized once, not on every run.
	at := c.Now().AddDate(1, 0, 0).UTC().Format(time.RFC3339)
	put(t, v, "knowledge/ahead", fmt.Sprintf("---\ntitle: ahead\ntype: note\ncreated: %s\nupdated: %s\n---\nDated ahead.\n", at, at))
	curate(t, v, c, true)
	c.Add(time.Hour)
	if res := curate(t, v, c, true); len(res.Changes) != 0 {
		t.Errorf("the entry dated ahead was summarized again:\n%s", changeLines(res))
	}
}

// TestSummariesSkipTemplates: an entry whose body is still the template
// it was made from (me.md of a new vault, a contact made with only a
// title) says nothing yet, and is never summarized; once a person fills it
// in, it is.
func TestSummariesSkipTemplates(t *testing.T) {
	c := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	v := vaulttest.New(t, vault.WithClock(c.Now))
	at := c.Now().UTC().Format(time.RFC3339)
	put(t, v, "contacts/sarah-chen", "---\ntitle: Sarah Chen\ntype: contact\ncreated: "+at+"\nupdated: "+at+"\n---\n"+templates.Body("contact"))
	if res := curate(t, v, c, true); len(liveSummaries(t, v)[TagIncremental]) != 0 {
		t.Fatalf("templates alone were summarized:\n%s\n%s", changeLines(res), dumpVault(t, v))
	}
	c.Add(time.Hour)
	note(t, v, c, "knowledge/billing", "The billing service retries a failed charge three times.")
	curate(t, v, c, true)
	sums := liveSummaries(t, v)[TagIncremental]
	if len(sums) != 1 {
		t.Fatalf("summaries %v, want one of the note", sums)
	}
	files := entryFiles(t, v)
	s, err := entry.Parse([]byte(files[sums[0]+".md"]))
	if err != nil {
		t.Fatal(err)
	}
	if covers := stringList(s, FieldCovers); !slices.Equal(covers, []string{"knowledge/billing"}) || strings.Contains(s.Body(), "Who the user is") {
		t.Errorf("the summary covers %v and says:\n%s", covers, s.Body())
	}

	// Filled in, me.md is worth a summary.
	c.Add(time.Hour)
	if _, _, err := v.Write(t.Context(), "me", "Sam Rivera, backend engineer at Lumen; prefers short answers.\n"); err != nil {
		t.Fatal(err)
	}
	curate(t, v, c, true)
	var covered []string
	for _, n := range liveSummaries(t, v)[TagIncremental] {
		e, err := entry.Parse([]byte(entryFiles(t, v)[n+".md"]))
		if err != nil {
			t.Fatal(err)
		}
		covered = append(covered, stringList(e, FieldCovers)...)
	}
	if !slices.Contains(covered, "me") || slices.Contains(covered, "contacts/sarah-chen") {
		t.Errorf("covered %v, want me and not the untouched contact", covered)
	}
}

// TestSummaryOfUndatedEntries: a file made by hand has no dates; the
// summary's period starts at the first entry that has one, never at the
// year 1.
func TestSummaryOfUndatedEntries(t *testing.T) {
	c := &clock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	v := vaulttest.New(t, vault.WithClock(c.Now))
	put(t, v, "knowledge/by-hand", "---\ntitle: By hand\ntype: note\n---\nWritten in an editor, without dates.\n")
	c.Add(time.Hour)
	note(t, v, c, "knowledge/billing", "The billing service retries a failed charge three times.")
	curate(t, v, c, true)
	sums := liveSummaries(t, v)[TagIncremental]
	if len(sums) != 1 {
		t.Fatalf("summaries %v, want one", sums)
	}
	s := entryFiles(t, v)[sums[0]+".md"]
	if strings.Contains(s, "0001-01-01") || !strings.Contains(s, "Summary of 2 entries, 2026-03-01 to 2026-03-01") {
		t.Errorf("the summary's period:\n%s", s)
	}
}
