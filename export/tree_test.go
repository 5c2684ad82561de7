package export

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// mtimes records the modification time of every file under dir.
func mtimes(t *testing.T, dir string) map[string]time.Time {
	t.Helper()
	out := map[string]time.Time{}
	for p := range readTree(t, dir) {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		out[p] = fi.ModTime()
	}
	return out
}

// age sets every file under dir a day back, so a rewrite shows in its mtime
// whatever the file system's time resolution.
func age(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-24 * time.Hour)
	for p := range readTree(t, dir) {
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIncremental: an export with nothing new writes nothing, not even the
// folder; after a change, only the files that changed are written, and the
// files of entries that are gone are removed.
func TestIncremental(t *testing.T) {
	v := fixture(t)
	out, _ := exportTo(t, v, Options{})
	age(t, out)
	before := mtimes(t, out)
	dir, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}

	later := func() time.Time { return clock.Add(time.Hour) }
	res, err := Folder(t.Context(), v, out, Options{Now: later})
	if err != nil {
		t.Fatal(err)
	}
	if res.Written != 0 || res.Removed != 0 || res.Unchanged != len(before) {
		t.Errorf("second export: %+v, want nothing written", res)
	}
	if after := mtimes(t, out); !maps.Equal(before, after) {
		t.Errorf("second export changed mtimes")
	}
	if fi, err := os.Stat(out); err != nil || !os.SameFile(dir, fi) {
		t.Errorf("second export replaced the folder")
	}
	if s := readFile(t, out, statsFile); !strings.Contains(s, `"exported_at": "2026-01-28T10:00:00Z"`) {
		t.Errorf("an export with nothing new changed the export's time:\n%s", s)
	}

	writeFile(t, v, "contacts/sam.md", strings.Replace(readFile(t, v.Root(), "contacts/sam.md"), "Analyst", "Partner", 1))
	if err := os.Remove(filepath.Join(v.Root(), "inbox", "scratch-idea.md")); err != nil {
		t.Fatal(err)
	}
	commit(t, v, clock.Add(time.Hour), "promote sam, drop the idea")
	res, err = Folder(t.Context(), v, out, Options{Now: later})
	if err != nil {
		t.Fatal(err)
	}
	after := mtimes(t, out)
	var written []string
	for p, m := range after {
		if !m.Equal(before[p]) {
			written = append(written, p)
		}
	}
	slices.Sort(written)
	want := []string{".ctx0/stats.json", "CONTEXT.md", "_index.md", "contacts/_index.md", "contacts/sam.md"}
	if !slices.Equal(written, want) {
		t.Errorf("rewrote %v, want %v", written, want)
	}
	for _, gone := range []string{"inbox/scratch-idea.md", "inbox/_index.md"} {
		if _, ok := after[gone]; ok {
			t.Errorf("%s is still in the export", gone)
		}
	}
	if res.Written != len(want) || res.Removed != 2 || res.Unchanged != len(after)-len(want) {
		t.Errorf("third export: %+v", res)
	}
	if s := readFile(t, out, guideFile); !strings.Contains(s, "made on 2026-01-28 11:00 UTC") {
		t.Errorf("CONTEXT.md does not give the new export's time")
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(out), buildPrefix(filepath.Base(out))+"*"))
	if len(leftovers) > 0 {
		t.Errorf("left beside the export: %v", leftovers)
	}
}

// TestRefuses: never into, inside or around the vault; not over a folder
// of other files unless forced; never over a repository.
func TestRefuses(t *testing.T) {
	v := fixture(t)
	ctx := t.Context()
	for _, out := range []string{v.Root(), filepath.Join(v.Root(), "contacts"), filepath.Join(v.Root(), "new"), filepath.Dir(v.Root())} {
		if _, err := Folder(ctx, v, out, Options{Force: true}); !errors.Is(err, ErrIntoVault) {
			t.Errorf("export to %s: err = %v, want ErrIntoVault", out, err)
		}
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(v.Root(), link); err != nil {
		t.Fatal(err)
	}
	if _, err := Folder(ctx, v, filepath.Join(link, "sub"), Options{}); !errors.Is(err, ErrIntoVault) {
		t.Errorf("export through a symbolic link into the vault: err = %v", err)
	}

	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Folder(ctx, v, other, Options{}); !errors.Is(err, ErrNotExport) {
		t.Errorf("export over a folder of other files: err = %v, want ErrNotExport", err)
	}
	if _, err := os.Stat(filepath.Join(other, "notes.txt")); err != nil {
		t.Errorf("a refused export touched the folder: %v", err)
	}
	if _, err := Folder(ctx, v, other, Options{Force: true}); err != nil {
		t.Errorf("forced export: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "notes.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a forced export kept the old files: %v", err)
	}

	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Folder(ctx, v, repo, Options{Force: true}); err == nil || !strings.Contains(err.Error(), "repository") {
		t.Errorf("export over a repository: err = %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Folder(ctx, v, file, Options{Force: true}); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("export over a file: err = %v", err)
	}
}

// TestConcurrentExports: exports to one folder queue; it ends up holding
// one whole export, and nothing is left beside it.
func TestConcurrentExports(t *testing.T) {
	v := fixture(t)
	out := filepath.Join(t.TempDir(), "export")
	// What a crashed export leaves behind is cleaned up.
	if err := os.MkdirAll(filepath.Join(filepath.Dir(out), buildPrefix("export")+"123", "contacts"), 0o755); err != nil {
		t.Fatal(err)
	}
	opts := []Options{{Now: now}, {Minimal: true, Now: now}, {Flatten: true, Now: now}, {Now: now}}
	var wg sync.WaitGroup
	for _, o := range opts {
		wg.Go(func() {
			if _, err := Folder(t.Context(), v, out, o); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got := readTree(t, out)
	whole := false
	for _, o := range opts {
		want, _ := exportTo(t, v, o)
		if maps.Equal(got, readTree(t, want)) {
			whole = true
		}
	}
	if !whole {
		t.Errorf("after concurrent exports the folder holds none of them whole: %v", slices.Sorted(maps.Keys(got)))
	}
	entries, err := os.ReadDir(filepath.Dir(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "export" && !strings.HasSuffix(e.Name(), ".lock") {
			t.Errorf("left beside the export: %s", e.Name())
		}
	}
}

// TestSwap: both ways of swapping leave the new folder at the output path
// and the old one at the build path.
func TestSwap(t *testing.T) {
	for name, swap := range map[string]func(tmp, out string) error{
		"exchange": func(tmp, out string) error { return swap(tmp, out, true) },
		"renames":  swapByRenames,
	} {
		dir := t.TempDir()
		tmp, out := filepath.Join(dir, "tmp"), filepath.Join(dir, "out")
		for p, data := range map[string]string{"tmp/f": "new", "out/f": "old"} {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, p), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := swap(tmp, out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := readFile(t, dir, "out/f") + readFile(t, dir, "tmp/f"); got != "newold" {
			t.Errorf("%s: out/f + tmp/f = %q, want newold", name, got)
		}
	}
}
