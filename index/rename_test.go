package index

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// TestRenameRewritesEveryLink renames an entry that other entries link to
// in every way there is, some of them written by ctx0 and some with plain
// file operations after the index last saw them, and checks that the
// rename through the index (which reads only the entries that link to the
// old name) leaves the same files and commits the same paths as a rename
// that reads every file (a vault without an index).
func TestRenameRewritesEveryLink(t *testing.T) {
	withIndex, pathsIndex := renameScenario(t, true)
	scanned, pathsScan := renameScenario(t, false)
	if !slices.Equal(pathsIndex, pathsScan) {
		t.Errorf("the rename committed %v through the index, %v reading every file", pathsIndex, pathsScan)
	}
	wantRewritten := []string{"d.md", "inbox/new-file.md", "notes/by-name.md", "notes/by-slug.md", "notes/edited-in-place.md",
		"notes/front.md", "notes/markdown.md", "people/sarah-chen.md", "people/sarah-lee.md"}
	if !slices.Equal(pathsIndex, wantRewritten) {
		t.Errorf("the rename committed %v, want %v", pathsIndex, wantRewritten)
	}
	for rel, want := range scanned {
		if got := withIndex[rel]; got != want {
			t.Errorf("%s after the rename through the index:\n%s\nreading every file:\n%s", rel, got, want)
		}
	}
	if len(withIndex) != len(scanned) {
		t.Errorf("%d files through the index, %d reading every file", len(withIndex), len(scanned))
	}
}

// renameScenario builds the same vault of links, renames people/sarah-chen
// to people/sarah-lee, and returns the entry files afterwards and the
// paths the rename committed.
func renameScenario(t *testing.T, indexed bool) (map[string]string, []string) {
	t.Helper()
	ctx := t.Context()
	v := vaulttest.New(t)
	if indexed {
		openIndex(t, v, nil)
	}
	add := func(name, body string, links ...string) {
		t.Helper()
		m := vault.Meta{Type: "note"}
		if name == "people/sarah-chen" {
			m.Aliases = []string{"Sarah"}
		}
		if _, _, err := v.Add(ctx, vault.AddOptions{Name: name, Meta: m, Body: &body}); err != nil {
			t.Fatal(err)
		}
		if len(links) > 0 {
			if _, _, err := v.Set(ctx, name, "links", links[0]); err != nil {
				t.Fatal(err)
			}
		}
	}
	add("people/sarah-chen", "Partner at Example Ventures.\n")
	add("notes/by-name", "Met [[people/sarah-chen]] today.\n")
	add("notes/by-slug", "See [[sarah-chen|Sarah]] and [[people/sarah-chen#Contact]].\n")
	add("notes/markdown", "Her [card](../people/sarah-chen.md) and [[other]].\n")
	add("notes/front", "Linked in the frontmatter only.\n", "people/sarah-chen")
	add("notes/by-alias", "By alias: [[Sarah]], which still resolves.\n")
	add("notes/unrelated", "No link here, [[people/sarah]] is another name.\n")
	add("notes/edited-in-place", "Nothing yet.\n")
	// Changes made by other tools after the index saw the vault: an entry
	// edited in place and new files. The vault is first made an hour old,
	// so that the index trusts its folders' mtimes (see racyWindow) and
	// only a check of every file finds the edit in place.
	age(t, v.Root(), time.Now().Add(-time.Hour))
	if _, _, err := v.List(ctx, vault.Filter{}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(v.Root(), "notes", "edited-in-place.md")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(append(data, "Now linked: [[sarah-chen]].\n"...)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, v, "inbox/new-file.md", "---\ntitle: New file\n---\nWritten by an editor: [[people/sarah-chen]].\n")
	writeFile(t, v, "d.md", "---\ntitle: D\n---\nFrom the root: [Sarah](people/sarah-chen.md).\n")
	runGit(t, v, "add", "inbox/new-file.md", "notes/edited-in-place.md", "d.md")
	runGit(t, v, "commit", "-q", "-m", "edits by hand")

	_, c, err := v.Rename(ctx, "people/sarah-chen", "sarah-lee")
	if err != nil {
		t.Fatal(err)
	}
	paths := slices.Clone(c.Paths)
	slices.Sort(paths)
	files := map[string]string{}
	if err := v.Walk(ctx, func(name string, _ os.FileInfo) error {
		data, err := os.ReadFile(filepath.Join(v.Root(), filepath.FromSlash(name)+".md"))
		files[name+".md"] = string(data)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return files, paths
}

// age sets the mtime of every file and folder of the vault (but .git) to t,
// files first.
func age(t *testing.T, root string, at time.Time) {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			dirs = append(dirs, p)
			return nil
		}
		return os.Chtimes(p, at, at)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range slices.Backward(dirs) {
		if err := os.Chtimes(d, at, at); err != nil {
			t.Fatal(err)
		}
	}
}
