package vault

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// linkedVault is a vault with, made by hand, a link to a file outside it,
// a link to a folder outside it, and a link to a file inside it.
func linkedVault(t testing.TB) (v *Vault, outside string) {
	t.Helper()
	v, _, err := Init(t.Context(), t.TempDir(), WithClock(func() time.Time { return time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC) }))
	if err != nil {
		t.Fatal(err)
	}
	outside = t.TempDir()
	if err := os.MkdirAll(filepath.Join(outside, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	secret := []byte("---\ntitle: Outside\n---\nsecret zebra\n")
	for _, p := range []string{"secret.md", "dir/inner.md"} {
		if err := os.WriteFile(filepath.Join(outside, p), secret, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"knowledge/link-outside.md": filepath.Join(outside, "secret.md"),
		"projects/outdir":           filepath.Join(outside, "dir"),
		"knowledge/link-inside.md":  "../me.md",
	} {
		if err := os.Symlink(target, filepath.Join(v.Root(), filepath.FromSlash(link))); err != nil {
			t.Skipf("symlink: %v", err)
		}
	}
	return v, outside
}

func TestCheckPath(t *testing.T) {
	v, _ := linkedVault(t)
	tests := []struct {
		rel  string
		want error // nil: allowed
	}{
		{"me.md", nil},
		{"knowledge", nil},
		{"knowledge/new.md", nil},
		{"brand/new/folder/x.md", nil},
		{"", nil},
		{"knowledge/link-outside.md", ErrLink},
		{"knowledge/link-inside.md", ErrLink},
		{"projects/outdir", ErrLink},
		{"projects/outdir/inner.md", ErrLink},
		{"projects/outdir/new/deeper.md", ErrLink},
		{"../x.md", ErrOutside},
		{"knowledge/../../x.md", ErrOutside},
		{"/etc/passwd", ErrOutside},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			err := CheckPath(v.Root(), tt.rel)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("CheckPath(%q) = %v, want %v", tt.rel, err, tt.want)
			}
		})
	}
}

// Every way into the files refuses the links: reads, writes, the
// catalog's listing and imports; nothing is written outside the vault,
// the link is not replaced, and nothing is committed.
func TestLinksRefusedEverywhere(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("checks the repository with the git binary")
	}
	v, outside := linkedVault(t)
	ctx := t.Context()
	head := runGit(t, v, "rev-parse", "HEAD")
	body := "pwned"
	for _, ref := range []string{"knowledge/link-outside", "knowledge/link-inside", "projects/outdir/inner"} {
		if _, err := v.Read(ctx, ref); !errors.Is(err, ErrLink) {
			t.Errorf("Read(%s) = %v, want ErrLink", ref, err)
		}
		if _, err := v.Get(ctx, ref); err == nil {
			t.Errorf("Get(%s) read through a link", ref)
		}
		if _, _, err := v.Set(ctx, ref, "title", "Changed"); err == nil {
			t.Errorf("Set(%s) wrote through a link", ref)
		}
	}
	if _, _, err := v.Add(ctx, AddOptions{Name: "projects/outdir/pwned", Body: &body}); !errors.Is(err, ErrLink) {
		t.Errorf("Add through a linked folder = %v, want ErrLink", err)
	}
	if _, err := v.Import(ctx, []ImportFile{{Name: "projects/outdir/imported", Data: []byte("---\ntitle: x\n---\nx\n")}}, "test"); !errors.Is(err, ErrLink) {
		t.Errorf("Import through a linked folder = %v, want ErrLink", err)
	}
	if _, err := v.Create(ctx, "knowledge/link-outside", []byte("---\ntitle: x\n---\nx\n")); err == nil {
		t.Error("Create over a link succeeded")
	}
	for _, p := range []string{"dir/pwned.md", "dir/imported.md"} {
		if _, err := os.Stat(filepath.Join(outside, p)); err == nil {
			t.Errorf("%s written outside the vault", p)
		}
	}
	if fi, err := os.Lstat(filepath.Join(v.Root(), "knowledge", "link-outside.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if got := runGit(t, v, "rev-parse", "HEAD"); got != head {
		t.Errorf("committed through a link:\n%s", runGit(t, v, "log", "--stat", "-1"))
	}
	var names []string
	if err := v.Walk(ctx, func(name string, _ os.FileInfo) error { names = append(names, name); return nil }); err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(names, func(n string) bool { return strings.Contains(n, "link") || strings.Contains(n, "outdir") }); i >= 0 {
		t.Errorf("Walk listed %s", names[i])
	}
	// Links in folders that are not ctx0's (an editor's, git's) are not
	// listed.
	if err := os.MkdirAll(filepath.Join(v.Root(), ".obsidian"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(v.Root(), ".obsidian", "plugins")); err != nil {
		t.Fatal(err)
	}
	links, err := v.Links(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"knowledge/link-inside.md": false, "knowledge/link-outside.md": true, "projects/outdir": true}
	if len(links) != len(want) {
		t.Errorf("Links = %+v", links)
	}
	for _, l := range links {
		if out, ok := want[l.Path]; !ok || out != l.Outside {
			t.Errorf("Links: %+v, want outside %v", l, out)
		}
	}
}

// FuzzCheckPath: a path CheckPath lets through never leads out of the
// vault: the part of it that exists resolves, links followed, to a place
// inside the vault, and the part that does not exist climbs no higher.
func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"me.md", "knowledge/link-outside.md", "projects/outdir/x.md", "../x", "a/../../b",
		"knowledge/./link-inside.md", "/etc/passwd", "knowledge//x.md", "projects/outdir", `..\x`, "knowledge/link-outside.md/x"} {
		f.Add(s)
	}
	v, _ := linkedVault(f)
	realRoot, err := filepath.EvalSymlinks(v.Root())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		if CheckPath(v.Root(), rel) != nil {
			return
		}
		p := filepath.Join(v.Root(), filepath.FromSlash(rel))
		// The longest part that exists.
		q := p
		for {
			if _, err := os.Lstat(q); err == nil || q == v.Root() || filepath.Dir(q) == q {
				break
			}
			q = filepath.Dir(q)
		}
		real, err := filepath.EvalSymlinks(q)
		if err != nil {
			return // a part that is not a folder: opening fails, nothing leaks
		}
		if r, err := filepath.Rel(realRoot, real); err != nil || !filepath.IsLocal(r) && r != "." {
			t.Fatalf("CheckPath let %q through, which resolves to %s", rel, real)
		}
		if r, err := filepath.Rel(v.Root(), p); err != nil || !filepath.IsLocal(r) && r != "." {
			t.Fatalf("CheckPath let %q through, which leaves the vault as %s", rel, p)
		}
	})
}

// ReadFile reads what is in the vault, says when a file is missing as
// os.ReadFile does, and refuses what CheckPath refuses.
func TestReadFile(t *testing.T) {
	v, _ := linkedVault(t)
	if data, err := ReadFile(v.Root(), "me.md"); err != nil || !strings.Contains(string(data), "title:") {
		t.Errorf("ReadFile(me.md) = %q, %v", data, err)
	}
	if _, err := ReadFile(v.Root(), "knowledge/missing.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	for _, rel := range []string{"knowledge/link-outside.md", "projects/outdir/inner.md", "../x.md"} {
		if data, err := ReadFile(v.Root(), rel); err == nil {
			t.Errorf("ReadFile(%s) read %q", rel, data)
		}
	}
}
