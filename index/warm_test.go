package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/vaulttest"
)

// However many session-start hooks find the index missing, one build is
// started; once the index is there, none is, and the marker goes.
func TestEnsureBuildingStartsOnce(t *testing.T) {
	v := vaulttest.New(t)
	starts := 0
	start := func() error { starts++; return nil }
	for range 5 {
		present, err := EnsureBuilding(v.Root(), start)
		if err != nil || present {
			t.Fatalf("EnsureBuilding on a vault without an index = %v, %v", present, err)
		}
	}
	if starts != 1 {
		t.Errorf("%d builds started, want 1", starts)
	}
	openIndex(t, v, nil)
	present, err := EnsureBuilding(v.Root(), start)
	if err != nil || !present || starts != 1 {
		t.Errorf("with the index built: present %v, err %v, %d builds started", present, err, starts)
	}
	if _, err := os.Stat(filepath.Join(v.Root(), filepath.FromSlash(File)) + "-starting"); !os.IsNotExist(err) {
		t.Errorf("the start marker is left: %v", err)
	}
}

// The files of builds killed midway are removed by the next build.
func TestRebuildRemovesAbandonedBuilds(t *testing.T) {
	v := vaulttest.New(t)
	ix := openIndex(t, v, nil)
	for _, pid := range []string{"999999", "12"} {
		if err := os.WriteFile(ix.Path()+"-new-"+pid, []byte("half an index"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ix.Rebuild(t.Context()); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Dir(ix.Path()))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), "-new-") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
