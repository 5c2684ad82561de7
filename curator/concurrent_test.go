package curator

import (
	"errors"
	"strings"
	"testing"
)

// TestWriterDuringRun has a person write while a run works: the run's
// merge keeps their writes, to an entry the run also changes and to a new
// one, and the run's own changes land too.
func TestWriterDuringRun(t *testing.T) {
	v, c := fixtureVault(t, "testdata/fixture.txtar")
	writeDuringRun := func() {
		if _, _, err := v.Write(t.Context(), "contacts/sarah-chen", "Partner at Example Ventures.\n\nMet her again in May.\n"); err != nil {
			t.Error(err)
		}
		put(t, v, "knowledge/new-during-run", "---\ntitle: New during the run\ntype: note\n---\nWritten while the curator ran.\n")
	}
	res, err := Run(t.Context(), Options{Vault: v, Now: c.Now, OnPlanned: writeDuringRun})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.Conflicts != 0 {
		t.Errorf("%d conflicts", res.Run.Conflicts)
	}
	files := entryFiles(t, v)
	sarah := files["contacts/sarah-chen.md"]
	for _, want := range []string{"Met her again in May.", "Prefers email over calls.", "contacts/sarah"} {
		if !strings.Contains(sarah, want) {
			t.Errorf("contacts/sarah-chen lacks %q:\n%s", want, sarah)
		}
	}
	if _, ok := files["knowledge/new-during-run.md"]; !ok {
		t.Error("the entry written during the run is gone")
	}
	if _, ok := files["contacts/sarah.md"]; ok {
		t.Error("the merged duplicate is still there")
	}
}

// TestOneRunAtATime: a run while another holds the lock is refused (and
// RunIfDue says so without failing).
func TestOneRunAtATime(t *testing.T) {
	v, c := testVault(t)
	unlock, err := lockRuns(v.Root())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(t.Context(), Options{Vault: v, Now: c.Now}); !errors.Is(err, ErrBusy) {
		t.Errorf("a second run: %v", err)
	}
	if _, ran, why, err := RunIfDue(t.Context(), Options{Vault: v, Now: c.Now}); ran || err != nil || why != ErrBusy.Error() {
		t.Errorf("RunIfDue: %v %v %q", ran, err, why)
	}
	unlock()
	if _, err := Run(t.Context(), Options{Vault: v, Now: c.Now}); err != nil {
		t.Error(err)
	}
}
