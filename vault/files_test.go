package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/redact/redacttest"
)

// TestEditFiles: files addressed by exact path keep their names, two
// names that normalize alike stay two files, a plain text file is redacted
// as text, each edit set is one commit, and what leaves the vault, is
// hidden or goes through a link is refused with nothing written.
func TestEditFiles(t *testing.T) {
	v := testVault(t)
	ctx := t.Context()
	before := strings.TrimSpace(runGit(t, v, "rev-list", "--count", "HEAD"))
	put := func(files ...string) error {
		_, err := v.EditFiles(ctx, func() (string, []FileEdit, error) {
			var edits []FileEdit
			for i := 0; i < len(files); i += 2 {
				edits = append(edits, FileEdit{Path: files[i], Data: []byte(files[i+1])})
			}
			return "edit files", edits, nil
		})
		return err
	}
	if err := put("a_b.txt", "first file", "a-b.txt", "second file", "Project_Plan.md", "plan"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a_b.txt": "first file", "a-b.txt": "second file", "Project_Plan.md": "plan"} {
		got, err := ReadFile(v.Root(), name)
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if got := strings.TrimSpace(runGit(t, v, "rev-list", "--count", "HEAD")); got == before {
		t.Fatal("no commit")
	}
	checkClean(t, v)

	secrets, _ := redacttest.Corpus(t)
	if err := put("notes/keys.txt", joined(secrets)); err != nil {
		t.Fatal(err)
	}
	data, err := ReadFile(v.Root(), "notes/keys.txt")
	if err != nil {
		t.Fatal(err)
	}
	committed := runGit(t, v, "show", "HEAD:notes/keys.txt")
	for _, c := range secrets {
		if s := c.Leaks(string(data)); s != "" {
			t.Errorf("%s: the file holds %q", c.Name, s)
		}
		if s := c.Leaks(committed); s != "" {
			t.Errorf("%s: the commit holds %q", c.Name, s)
		}
	}

	// Removing two files is one commit, and their folder goes.
	n := runGit(t, v, "rev-list", "--count", "HEAD")
	if _, err := v.EditFiles(ctx, func() (string, []FileEdit, error) {
		return "remove", []FileEdit{{Path: "notes/keys.txt"}, {Path: "a_b.txt"}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := runGit(t, v, "rev-list", "--count", "HEAD"); got == n {
		t.Fatal("no commit")
	}
	if got := runGit(t, v, "show", "--name-only", "--format=", "HEAD"); got != "a_b.txt\nnotes/keys.txt\n" {
		t.Errorf("the removal commit changed %q", got)
	}
	if _, err := os.Stat(filepath.Join(v.Root(), "notes")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("notes/ is still there: %v", err)
	}
	checkClean(t, v)

	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(v.Root(), "link")); err != nil {
		t.Fatal(err)
	}
	head := runGit(t, v, "rev-parse", "HEAD")
	for _, c := range []struct {
		path string
		want error
	}{
		{"../x.txt", ErrOutside},
		{"a/../../x.txt", ErrOutside},
		{"/etc/x.txt", ErrOutside},
		{".git/config", ErrHidden},
		{".gitattributes", ErrHidden},
		{"notes/.ctx0/x", ErrHidden},
		{"link/x.txt", ErrLink},
	} {
		if err := put("ok.txt", "fine", c.path, "x"); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.path, err, c.want)
		}
	}
	if got := runGit(t, v, "rev-parse", "HEAD"); got != head {
		t.Error("a refused edit made a commit")
	}
	if _, err := os.Stat(filepath.Join(v.Root(), "ok.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused edit wrote the other file")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("wrote through the link: %v", entries)
	}
	if err := put("bad.md", "---\ntitle: [\n---\nbody"); err == nil {
		t.Error("an entry with broken frontmatter was written")
	}
}
