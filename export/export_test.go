package export

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/internal/gittest"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
	"github.com/ctx0/ctx0/vaulttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// clock is the time of the fixture's commits and of its exports.
var clock = time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)

func now() time.Time { return clock }

// fixture makes a vault of the entries in testdata/vault and the learned
// queries in testdata/queries.yaml, committed with the git binary.
func fixture(t *testing.T) *vault.Vault {
	t.Helper()
	gittest.Require(t)
	v := vaulttest.New(t, vault.WithClock(now))
	err := filepath.WalkDir("testdata/vault", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("testdata/vault", p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, v, filepath.ToSlash(rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	q, err := os.ReadFile("testdata/queries.yaml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, v, queriesFile, string(q))
	commit(t, v, clock, "fixture")
	return v
}

// writeFile writes a file of the vault as a person's editor would.
func writeFile(t *testing.T, v *vault.Vault, rel, content string) {
	t.Helper()
	p := filepath.Join(v.Root(), filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// commit commits everything in the work tree with the git binary, dated when.
func commit(t *testing.T, v *vault.Vault, when time.Time, msg string) {
	t.Helper()
	runGit(t, v, when, "add", "-A")
	runGit(t, v, when, "commit", "-q", "-m", msg)
}

func runGit(t *testing.T, v *vault.Vault, when time.Time, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = v.Root()
	date := when.Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(),
		"GIT_AUTHOR_NAME=p", "GIT_AUTHOR_EMAIL=p@p", "GIT_COMMITTER_NAME=p", "GIT_COMMITTER_EMAIL=p@p",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// exportTo exports v into a new folder and returns it.
func exportTo(t *testing.T, v *vault.Vault, o Options) (string, Result) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "export")
	o.Now = now
	res, err := Folder(t.Context(), v, out, o)
	if err != nil {
		t.Fatal(err)
	}
	return out, res
}

// readTree reads every file under dir, by slash-separated relative path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// scrub replaces what changes from run to run (the commit's hash) so that
// golden files stay put.
func scrub(text, commit string) string {
	return strings.NewReplacer(commit, "COMMIT", commit[:12], "COMMIT").Replace(text)
}

// TestGolden checks a whole default export of the fixture vault, and the
// markdown document, against testdata/golden (rewrite with -update).
func TestGolden(t *testing.T) {
	v := fixture(t)
	out, res := exportTo(t, v, Options{})
	got := readTree(t, out)
	golden := filepath.Join("testdata", "golden", "folder")
	if *update {
		os.RemoveAll(golden)
		for p, data := range got {
			writeGolden(t, filepath.Join(golden, filepath.FromSlash(p)), scrub(data, res.Commit))
		}
	}
	want := readTree(t, golden)
	for p, data := range got {
		if w, ok := want[p]; !ok {
			t.Errorf("export has %s, golden has not", p)
		} else if g := scrub(data, res.Commit); g != w {
			t.Errorf("%s differs from golden:\n--- got\n%s\n--- want\n%s", p, g, w)
		}
	}
	for p := range want {
		if _, ok := got[p]; !ok {
			t.Errorf("golden has %s, export has not", p)
		}
	}

	var doc bytes.Buffer
	if _, err := Markdown(t.Context(), v, &doc, Options{Now: now}); err != nil {
		t.Fatal(err)
	}
	goldenDoc := filepath.Join("testdata", "golden", "all.md")
	if *update {
		writeGolden(t, goldenDoc, scrub(doc.String(), res.Commit))
	}
	if w, err := os.ReadFile(goldenDoc); err != nil {
		t.Fatal(err)
	} else if g := scrub(doc.String(), res.Commit); g != string(w) {
		t.Errorf("markdown document differs from %s:\n%s", goldenDoc, g)
	}
}

func writeGolden(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLinksLeadToFiles: every relative link of an export, nested or flat,
// with versions, leads to a file of the export, and every entry can be
// reached from CONTEXT.md by following the indexes.
func TestLinksLeadToFiles(t *testing.T) {
	v := fixture(t)
	writeFile(t, v, "contacts/sam.md", strings.Replace(readFile(t, v.Root(), "contacts/sam.md"), "Analyst", "Senior analyst", 1))
	commit(t, v, clock.Add(time.Hour), "promote sam")
	for _, o := range []Options{{}, {Flatten: true, Versions: true}, {All: true, Minimal: true}, {Scope: []string{"projects"}}} {
		out, res := exportTo(t, v, o)
		if res.Links.Rewritten == 0 {
			t.Errorf("%+v: no link rewritten", o)
		}
		files := readTree(t, out)
		checked := 0
		for p, data := range files {
			if !strings.HasSuffix(p, ".md") {
				continue
			}
			body := data
			if e, err := entry.Parse([]byte(data)); err == nil {
				body = e.Body()
			}
			for _, l := range entry.Links([]byte(body)) {
				if l.Kind != entry.Markdown {
					continue
				}
				target := path.Join(path.Dir(p), l.Target)
				if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(target))); err != nil {
					t.Errorf("%+v: %s links to %s, which is not a file of the export", o, p, l.Target)
				}
				checked++
			}
		}
		if checked < 10 {
			t.Errorf("%+v: only %d links checked", o, checked)
		}
		// A newcomer reaches every entry from CONTEXT.md through the indexes.
		reached := map[string]bool{}
		var visit func(p string)
		visit = func(p string) {
			if reached[p] {
				return
			}
			reached[p] = true
			if !strings.HasSuffix(p, indexFile) && p != guideFile {
				return
			}
			for _, l := range entry.Links([]byte(files[p])) {
				if l.Kind == entry.Markdown {
					visit(path.Join(path.Dir(p), l.Target))
				}
			}
		}
		visit(guideFile)
		for p := range files {
			if strings.HasSuffix(p, ".md") && !strings.HasPrefix(p, versionsDir) && !reached[p] {
				t.Errorf("%+v: %s cannot be reached from CONTEXT.md", o, p)
			}
		}
	}
}

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
