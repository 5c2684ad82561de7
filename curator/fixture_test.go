package curator

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/agent"
	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/internal/golden"
)

// TestFixtureGolden runs the curator offline over a vault with planted
// duplicates, missing links, stale entries and fading preferences: the
// changes and the vault after them match the golden file; a second run
// changes nothing.
func TestFixtureGolden(t *testing.T) {
	v, c := fixtureVault(t, "testdata/fixture.txtar")
	res, err := Run(t.Context(), Options{Vault: v, Provider: llm.Offline{}, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run == nil || res.Run.Status != agent.StatusDone || res.Run.Merged == "" {
		t.Fatalf("run: %+v", res.Run)
	}
	if len(res.Run.Notes) != len(res.Changes) {
		t.Errorf("the run record has %d notes for %d changes", len(res.Run.Notes), len(res.Changes))
	}
	golden.Check(t, "testdata/fixture.golden", []byte(changeLines(res)+"\n"+dumpVault(t, v)), *update)

	before := head(t, v)
	again, err := Run(t.Context(), Options{Vault: v, Provider: llm.Offline{}, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Changes) != 0 || head(t, v) != before {
		t.Errorf("a second run changed something:\n%s", changeLines(again))
	}
}

// TestDryRun plans the same changes as a run and changes nothing: no
// commit, no run record, no state.
func TestDryRun(t *testing.T) {
	v, c := fixtureVault(t, "testdata/fixture.txtar")
	before := head(t, v)
	plan, err := Run(t.Context(), Options{Vault: v, DryRun: true, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	if !plan.DryRun || plan.Run != nil || len(plan.Changes) == 0 {
		t.Fatalf("dry run: %+v", plan)
	}
	if head(t, v) != before {
		t.Error("a dry run moved the branch")
	}
	runs, err := agent.List(t.Context(), v.Root())
	if err != nil || len(runs) != 0 {
		t.Errorf("a dry run recorded runs: %v, %v", runs, err)
	}
	if due, _, _ := Due(t.Context(), v, DefaultConfig(), c.Now(), false); !due {
		t.Error("a dry run counted as a run")
	}
	res, err := Run(t.Context(), Options{Vault: v, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := changeLines(res), changeLines(plan); got != want {
		t.Errorf("the run did not do what the dry run planned:\nplan:\n%s\nrun:\n%s", want, got)
	}
	// The files too: the dry run lists exactly what the run commits, and
	// each is a change it reports (preferences counted for the first time
	// were once written without one).
	committed := gitLines(t, v.Root(), "diff", "--no-renames", "--name-only", before, res.Run.Merged)
	if !slices.Equal(plan.Files, committed) || !slices.Equal(res.Files, committed) {
		t.Errorf("files: the dry run planned %v, the run reported %v and committed %v", plan.Files, res.Files, committed)
	}
	named := map[string]bool{}
	for _, c := range plan.Changes {
		named[c.Entry+".md"], named[c.Other+".md"] = true, true
	}
	for _, f := range plan.Files {
		if !named[f] {
			t.Errorf("%s is written by no change the run reports:\n%s", f, changeLines(plan))
		}
	}
	if !strings.Contains(res.Run.ID, "T") {
		t.Errorf("run id %q", res.Run.ID)
	}
}

// gitLines runs the real git in dir and returns its output's lines.
func gitLines(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.Fields(string(out))
}
