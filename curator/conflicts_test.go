package curator

import (
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/agent"
	"github.com/ctx0/ctx0/vault/entry"
)

// TestConflictsNewerSideWins keeps three conflicts aside, as merges of a
// run and a concurrent write do: one where the side left out is clearly
// newer (it is put in place), one where the side kept is (the record
// goes), one where both were written within the hour (left listed).
func TestConflictsNewerSideWins(t *testing.T) {
	v, c := testVault(t)
	c.Set(time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC))
	for _, n := range []string{"knowledge/port", "knowledge/host", "knowledge/region"} {
		put(t, v, n, "---\ntitle: "+n+"\ntype: fact\nvalue: base\ncreated: 2026-04-01T09:00:00Z\nupdated: 2026-04-01T09:00:00Z\n---\nThe setting called "+n+".\n")
	}
	s, err := agent.Begin(t.Context(), v, agent.Options{Kind: "test", Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	runSide := map[string]time.Time{
		"knowledge/port":   time.Date(2026, 4, 3, 9, 0, 0, 0, time.UTC),  // the run's side is newer
		"knowledge/host":   time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC), // the branch's is
		"knowledge/region": time.Date(2026, 4, 2, 9, 10, 0, 0, time.UTC), // too close to tell
	}
	for n, when := range runSide {
		data, err := s.Read(t.Context(), n+".md")
		if err != nil {
			t.Fatal(err)
		}
		e, err := entry.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		e.Set("value", "from-run")
		e.Set(entry.FieldUpdated, when)
		if err := s.Write(n+".md", e.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	c.Set(time.Date(2026, 4, 2, 9, 0, 0, 0, time.UTC))
	for n := range runSide {
		if _, _, err := v.Set(t.Context(), n, "value", "from-branch"); err != nil {
			t.Fatal(err)
		}
	}
	run, err := s.Finish(t.Context(), "test run")
	if err != nil {
		t.Fatal(err)
	}
	records, _, err := v.Conflicts(t.Context())
	if err != nil || run.Conflicts == 0 {
		t.Fatalf("no conflicts kept aside: %v, %v", records, err)
	}
	c.Set(testNow)
	res, err := Run(t.Context(), Options{Vault: v, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	left, _, err := v.Conflicts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range left {
		if r.Entry != "knowledge/region" {
			t.Errorf("conflict %s in %s (%s) still listed", r.ID, r.Entry, r.Field)
		}
	}
	if len(left) == 0 {
		t.Error("the conflict too close to tell was resolved")
	}
	if len(res.Resolved) != len(records)-len(left) {
		t.Errorf("resolved %v of %d records, %d left", res.Resolved, len(records), len(left))
	}
	files := entryFiles(t, v)
	for n, want := range map[string]string{"knowledge/port": "from-run", "knowledge/host": "from-branch"} {
		if !strings.Contains(files[n+".md"], "value: "+want+"\n") {
			t.Errorf("%s after the run:\n%s", n, files[n+".md"])
		}
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "knowledge/region left listed: both sides were updated within 1h0m0s") {
		t.Errorf("notes: %q", res.Notes)
	}
	t.Logf("%s", changeLines(res))
}
