package index

import (
	"testing"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// TestDoctorListsWhatSyncSetAside: a collaborator's plain git push of a
// submodule (gitlink) used to stop every sync while doctor found nothing;
// now the sync sets it aside and doctor says so, with what to do, until
// the person dismisses it.
func TestDoctorListsWhatSyncSetAside(t *testing.T) {
	ctx := t.Context()
	v, _, c := vaulttest.Shared(t)
	ix := openIndex(t, v, nil)
	c.Repo("projects/tool")
	c.Push("add the tool", "projects/tool")
	res, err := v.Sync(ctx, vault.SyncOptions{})
	if err != nil {
		t.Fatalf("sync after a pushed submodule: %v", err)
	}
	if len(res.SetAside) != 1 || res.SetAside[0].Path != "projects/tool" {
		t.Fatalf("set aside %+v, want projects/tool", res.SetAside)
	}
	d, err := ix.Doctor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Problems) != 1 || d.Problems[0].Kind != ProblemGit || d.Problems[0].File != "projects/tool" {
		t.Fatalf("doctor found %+v, want the submodule set aside", d.Problems)
	}
	if ok, err := v.DismissSetAside(res.SetAside[0].ID); !ok || err != nil {
		t.Fatalf("dismiss: %v, %v", ok, err)
	}
	if d, err = ix.Doctor(ctx); err != nil || len(d.Problems) != 0 {
		t.Fatalf("doctor after dismissing: %+v, %v", d.Problems, err)
	}
}
