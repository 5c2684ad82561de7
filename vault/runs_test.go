package vault

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const (
	runAlpha       = "---\ntitle: Alpha\ntype: fact\ntags: [a]\n---\nOne.\nTwo.\nThree.\n"
	runAlphaTags   = "---\ntitle: Alpha\ntype: fact\ntags: [a, b]\n---\nOne.\nTwo.\nThree.\n"
	runAlphaBody   = "---\ntitle: Alpha\ntype: fact\ntags: [a]\n---\nOne.\nTwo.\nThree, edited.\n"
	runAlphaBoth   = "---\ntitle: Alpha\ntype: fact\ntags: [a, b]\n---\nOne.\nTwo.\nThree, edited.\n"
	runAlphaByRun  = "---\ntitle: By the run\ntype: fact\ntags: [a]\n---\nOne.\nTwo.\nThree.\n"
	runAlphaByUser = "---\ntitle: By the user\ntype: fact\ntags: [a]\n---\nOne.\nTwo.\nThree.\n"
	runBeta        = "---\ntitle: Beta\n---\nThe beta entry.\n"
)

// runVault is a vault holding knowledge/alpha.md and knowledge/beta.md,
// and the commit that added them.
func runVault(t *testing.T) (*Vault, string) {
	t.Helper()
	v := testVault(t)
	c, err := v.apply(t.Context(), "add alpha and beta", []change{
		{path: "knowledge/alpha.md", data: []byte(runAlpha)},
		{path: "knowledge/beta.md", data: []byte(runBeta)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return v, c.Hash
}

func readWorkFile(t *testing.T, v *Vault, p string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(v.Root(), filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestTreeAtReadsAnOlderCommit(t *testing.T) {
	ctx := t.Context()
	v, base := runVault(t)
	// The branch and the work tree move on.
	if _, err := v.apply(ctx, "move on", []change{
		{path: "knowledge/alpha.md", data: []byte(runAlphaTags)},
		{path: "knowledge/beta.md"},
		{path: "knowledge/gamma.md", data: []byte("---\ntitle: Gamma\n---\nv2 only\n")},
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v.Root(), "knowledge", "alpha.md"), []byte(runAlphaBody), 0o644); err != nil {
		t.Fatal(err)
	}

	tr, err := v.TreeAt(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Commit() != base {
		t.Errorf("Commit() = %s, want %s", tr.Commit(), base)
	}
	reads := []struct {
		path string
		want string
		err  error
	}{
		{"knowledge/alpha.md", runAlpha, nil},
		{"knowledge/beta.md", runBeta, nil},
		{"knowledge/gamma.md", "", fs.ErrNotExist},
		{"knowledge", "", fs.ErrNotExist}, // a folder is not a file
		{"../x.md", "", fs.ErrInvalid},
		{"/etc/passwd", "", fs.ErrInvalid},
	}
	for _, r := range reads {
		got, err := tr.Read(ctx, r.path)
		if !errors.Is(err, r.err) || (r.err == nil && string(got) != r.want) {
			t.Errorf("Read(%q) = %q, %v; want %q, %v", r.path, got, err, r.want, r.err)
		}
	}

	lists := []struct {
		dir  string
		want []string
	}{
		{"knowledge", []string{"knowledge/.gitkeep", "knowledge/alpha.md", "knowledge/beta.md"}},
		{"knowledge/", []string{"knowledge/.gitkeep", "knowledge/alpha.md", "knowledge/beta.md"}},
		{"nowhere", []string{}},
	}
	for _, l := range lists {
		got, err := tr.List(ctx, l.dir)
		if err != nil || !slices.Equal(got, l.want) {
			t.Errorf("List(%q) = %q, %v; want %q", l.dir, got, err, l.want)
		}
	}
	all, err := tr.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(runGit(t, v, "ls-tree", "-r", "--name-only", base))
	slices.Sort(want)
	if !slices.Equal(all, want) {
		t.Errorf("List(\"\") = %q\nwant (git ls-tree) %q", all, want)
	}

	ms, err := tr.Grep(ctx, regexp.MustCompile(`^(Three|The beta)`), "knowledge")
	if err != nil {
		t.Fatal(err)
	}
	wantMatches := []GrepMatch{{"knowledge/alpha.md", 8, "Three."}, {"knowledge/beta.md", 4, "The beta entry."}}
	if !slices.Equal(ms, wantMatches) {
		t.Errorf("Grep = %+v, want %+v", ms, wantMatches)
	}

	head, err := v.TreeAt(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(runGit(t, v, "rev-parse", "HEAD")); head.Commit() != want {
		t.Errorf("TreeAt(\"\") = %s, want HEAD %s", head.Commit(), want)
	}
	if _, err := v.TreeAt(ctx, "no-such-rev"); err == nil {
		t.Error("TreeAt(no-such-rev) succeeded")
	}
}

func TestCommitRunLeavesTheBranchAlone(t *testing.T) {
	ctx := t.Context()
	v, base := runVault(t)
	index, err := os.ReadFile(filepath.Join(v.Root(), ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	newEntry := "---\ntitle: New\n---\nFrom the run.\n"
	c, err := v.CommitRun(ctx, "r1", base, map[string][]byte{
		"knowledge/alpha.md": []byte(runAlphaTags),
		"knowledge/beta.md":  nil,
		"knowledge/new.md":   []byte(newEntry),
	}, "librarian run r1")
	if err != nil {
		t.Fatal(err)
	}

	// Read before any git command: git status rewrites the index when it
	// finds entries written in the second the index was.
	if after, _ := os.ReadFile(filepath.Join(v.Root(), ".git", "index")); string(after) != string(index) {
		t.Error(".git/index changed")
	}
	checkClean(t, v)
	if head := strings.TrimSpace(runGit(t, v, "rev-parse", "HEAD")); head != base {
		t.Errorf("HEAD moved to %s", head)
	}
	if got := readWorkFile(t, v, "knowledge/alpha.md"); got != runAlpha {
		t.Errorf("work tree alpha.md = %q", got)
	}
	if _, err := os.Stat(filepath.Join(v.Root(), "knowledge", "new.md")); err == nil {
		t.Error("the run's new entry reached the work tree")
	}

	if got := strings.TrimSpace(runGit(t, v, "rev-parse", RunRefPrefix+"r1")); got != c {
		t.Errorf("%sr1 = %s, want %s", RunRefPrefix, got, c)
	}
	if parents := strings.TrimSpace(runGit(t, v, "log", "-1", "--format=%P", c)); parents != base {
		t.Errorf("run commit's parents = %q, want only the base %s", parents, base)
	}
	if got := runGit(t, v, "show", c+":knowledge/new.md"); got != newEntry {
		t.Errorf("git show new.md = %q", got)
	}
	if got := runGit(t, v, "diff", "--name-status", base, c); got != "M\tknowledge/alpha.md\nD\tknowledge/beta.md\nA\tknowledge/new.md\n" {
		t.Errorf("git diff --name-status base run:\n%s", got)
	}

	if _, err := v.CommitRun(ctx, "r1", base, map[string][]byte{"knowledge/x.md": []byte("x\n")}, "again"); err == nil {
		t.Error("a second commit on the same run id succeeded")
	}
}

func TestCommitRunRefusesBadPaths(t *testing.T) {
	ctx := t.Context()
	v, base := runVault(t)
	objects := runGit(t, v, "count-objects")
	good := []byte("---\ntitle: Fine\n---\nfine\n")
	bad := []struct {
		name string
		path string
		data []byte
	}{
		{"absolute", "/etc/passwd.md", good},
		{"parent", "../outside.md", good},
		{"parent inside", "knowledge/../../outside.md", good},
		{"git", ".git/config", good},
		{"git entry-like", ".git/x.md", good},
		{"ctx0", ".ctx0/config.yaml", good},
		{"ctx0 entry-like", ".ctx0/conflicts/x.md", good},
		{"not an entry", "knowledge/notes.txt", good},
		{"the guide", "CONTEXT.md", good},
		{"not normalized", "Knowledge/Some Thing.md", good},
		{"empty segment", "knowledge//x.md", good},
		{"backslash", `knowledge\x.md`, good},
		{"delete outside", "../outside.md", nil},
		{"binary content", "knowledge/bin.md", []byte("a\x00b")},
		{"invalid UTF-8", "knowledge/bad.md", []byte("\xff\xfe")},
	}
	for i, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			id := "bad" + string(rune('a'+i))
			// A good file next to the bad one is not written either.
			_, err := v.CommitRun(ctx, id, base, map[string][]byte{"knowledge/good.md": good, b.path: b.data}, "bad")
			if err == nil {
				t.Fatalf("CommitRun(%q) succeeded", b.path)
			}
			if out, _ := runGitErr(v, "rev-parse", "--verify", "-q", RunRefPrefix+id); out != "" {
				t.Errorf("ref %s was made", id)
			}
		})
	}
	if after := runGit(t, v, "count-objects"); after != objects {
		t.Errorf("objects were written: %q, then %q", objects, after)
	}
	for _, id := range []string{"", "a/b", "..", "x.lock", "-x", "a b"} {
		if _, err := v.CommitRun(ctx, id, base, map[string][]byte{"knowledge/good.md": good}, "bad id"); err == nil {
			t.Errorf("run id %q accepted", id)
		}
	}
	checkClean(t, v)
}

// runGitErr runs git and returns its output and error, for commands
// expected to fail.
func runGitErr(v *Vault, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = v.Root()
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	return string(out), err
}

// recordingCatalog hears what writes changed, as the index does.
type recordingCatalog struct {
	Catalog
	changed []string
}

func (r *recordingCatalog) Changed(_ context.Context, paths []string) error {
	r.changed = append(r.changed, paths...)
	return nil
}

func TestMergeRun(t *testing.T) {
	tests := []struct {
		name      string
		run       map[string][]byte
		meanwhile func(t *testing.T, v *Vault) // the user's writes while the run works
		kind      string
		want      map[string]string // files after the merge
		conflicts int
		external  bool
	}{{
		name: "fast-forward when the branch has not moved",
		run:  map[string][]byte{"knowledge/alpha.md": []byte(runAlphaTags), "knowledge/beta.md": nil},
		kind: "fast-forward",
		want: map[string]string{"knowledge/alpha.md": runAlphaTags, "knowledge/beta.md": ""},
	}, {
		name: "one entry edited on both sides: both edits survive",
		run:  map[string][]byte{"knowledge/alpha.md": []byte(runAlphaTags)},
		meanwhile: func(t *testing.T, v *Vault) {
			if _, err := v.apply(t.Context(), "user edit", []change{{path: "knowledge/alpha.md", data: []byte(runAlphaBody)}}); err != nil {
				t.Fatal(err)
			}
		},
		kind: "merged",
		want: map[string]string{"knowledge/alpha.md": runAlphaBoth},
	}, {
		name: "different entries: both survive",
		run:  map[string][]byte{"knowledge/from-run.md": []byte("---\ntitle: Run\n---\nrun\n")},
		meanwhile: func(t *testing.T, v *Vault) {
			if _, err := v.apply(t.Context(), "user add", []change{{path: "knowledge/from-user.md", data: []byte("---\ntitle: User\n---\nuser\n")}}); err != nil {
				t.Fatal(err)
			}
		},
		kind: "merged",
		want: map[string]string{
			"knowledge/from-run.md":  "---\ntitle: Run\n---\nrun\n",
			"knowledge/from-user.md": "---\ntitle: User\n---\nuser\n",
			"knowledge/alpha.md":     runAlpha,
		},
	}, {
		name: "an uncommitted edit by another tool is merged, not lost",
		run:  map[string][]byte{"knowledge/alpha.md": []byte(runAlphaTags)},
		meanwhile: func(t *testing.T, v *Vault) {
			if err := os.WriteFile(filepath.Join(v.Root(), "knowledge", "alpha.md"), []byte(runAlphaBody), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		kind:     "merged",
		want:     map[string]string{"knowledge/alpha.md": runAlphaBoth},
		external: true,
	}, {
		name: "a scalar changed on both sides: the branch's stays, the run's is a conflict",
		run:  map[string][]byte{"knowledge/alpha.md": []byte(runAlphaByRun)},
		meanwhile: func(t *testing.T, v *Vault) {
			if _, err := v.apply(t.Context(), "user title", []change{{path: "knowledge/alpha.md", data: []byte(runAlphaByUser)}}); err != nil {
				t.Fatal(err)
			}
		},
		kind:      "merged",
		want:      map[string]string{"knowledge/alpha.md": runAlphaByUser},
		conflicts: 1,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			v, base := runVault(t)
			cat := &recordingCatalog{Catalog: v.catalog}
			v.SetCatalog(cat)
			run, err := v.CommitRun(ctx, "run1", base, tt.run, "run1")
			if err != nil {
				t.Fatal(err)
			}
			if tt.meanwhile != nil {
				tt.meanwhile(t, v)
			}
			before := strings.TrimSpace(runGit(t, v, "rev-parse", "HEAD"))
			res, err := v.MergeRun(ctx, run, "run run1")
			if err != nil {
				t.Fatal(err)
			}
			checkClean(t, v)
			if res.External != nil {
				before = res.External.Hash // the edits were committed first; the merge starts there
			}
			if res.Kind != tt.kind || res.Conflicts != tt.conflicts || (res.External != nil) != tt.external {
				t.Errorf("MergeRun = %+v; want kind %s, %d conflict(s), external edits %v", res, tt.kind, tt.conflicts, tt.external)
			}
			head := strings.TrimSpace(runGit(t, v, "rev-parse", "HEAD"))
			if res.Commit != head {
				t.Errorf("result commit %s, HEAD %s", res.Commit, head)
			}
			switch tt.kind {
			case "fast-forward":
				if head != run {
					t.Errorf("HEAD = %s, want the run's commit %s", head, run)
				}
			case "merged":
				if parents := strings.TrimSpace(runGit(t, v, "log", "-1", "--format=%P", "HEAD")); parents != before+" "+run {
					t.Errorf("merge parents = %q, want %s %s", parents, before, run)
				}
			}
			for p, want := range tt.want {
				data, err := os.ReadFile(filepath.Join(v.Root(), filepath.FromSlash(p)))
				if want == "" {
					if !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s still exists", p)
					}
					continue
				}
				if string(data) != want {
					t.Errorf("%s =\n%s\nwant\n%s", p, data, want)
				}
				if got := runGit(t, v, "show", "HEAD:"+p); got != want {
					t.Errorf("HEAD:%s = %q", p, got)
				}
			}
			cs, _, err := v.Conflicts(ctx)
			if err != nil || len(cs) != tt.conflicts {
				t.Errorf("Conflicts() = %+v, %v; want %d", cs, err, tt.conflicts)
			}
			wantChanged := strings.Fields(runGit(t, v, "diff", "--name-only", before, head))
			if !slices.Equal(res.Changed, wantChanged) {
				t.Errorf("Changed = %q, want (git diff) %q", res.Changed, wantChanged)
			}
			for _, p := range res.Changed {
				if !slices.Contains(cat.changed, p) {
					t.Errorf("the catalog did not hear of %s (heard %q)", p, cat.changed)
				}
			}
			// Merging again changes nothing.
			again, err := v.MergeRun(ctx, run, "run run1")
			if err != nil || again.Kind != "up-to-date" || len(again.Changed) != 0 {
				t.Errorf("second MergeRun = %+v, %v", again, err)
			}
		})
	}
}

func TestDiffShowsWhatARunChanged(t *testing.T) {
	ctx := t.Context()
	v, base := runVault(t)
	run, err := v.CommitRun(ctx, "d1", base, map[string][]byte{
		"knowledge/alpha.md": []byte(runAlphaTags),
		"knowledge/beta.md":  nil,
		"knowledge/new.md":   []byte("---\ntitle: New\n---\nnew\n"),
	}, "d1")
	if err != nil {
		t.Fatal(err)
	}
	d, err := v.Diff(ctx, base, run)
	if err != nil {
		t.Fatal(err)
	}
	want := []FileChange{{"knowledge/alpha.md", "changed"}, {"knowledge/beta.md", "deleted"}, {"knowledge/new.md", "added"}}
	if !slices.Equal(d.Files, want) {
		t.Errorf("Files = %+v, want %+v", d.Files, want)
	}
	for _, line := range []string{"-tags: [a]", "+tags: [a, b]", "-The beta entry.", "+new", "+++ b/knowledge/new.md"} {
		if !strings.Contains(d.Patch, line+"\n") {
			t.Errorf("patch lacks %q:\n%s", line, d.Patch)
		}
	}
}

func TestCommitRunKeepsTheNameOfAnEntryMadeByHand(t *testing.T) {
	ctx := t.Context()
	v, _ := runVault(t)
	// A person's editor names files as it likes; a run may update them.
	c, err := v.apply(ctx, "by hand", []change{{path: "Ideas/My Plan.md", data: []byte("plan\n")}})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := v.TreeAt(ctx, c.Hash)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		path string
		data []byte
		ok   bool
	}{
		{"Ideas/My Plan.md", []byte("plan, updated\n"), true},
		{"Ideas/My Plan.md", nil, true},
		{"Ideas/Other Plan.md", []byte("new\n"), false}, // a new file gets a normalized name
		{"ideas/other-plan.md", []byte("new\n"), true},
	}
	for _, ch := range checks {
		if err := tr.CheckWrite(ch.path, ch.data); (err == nil) != ch.ok {
			t.Errorf("CheckWrite(%q, %q) = %v, want ok %v", ch.path, ch.data, err, ch.ok)
		}
	}
	run, err := v.CommitRun(ctx, "hand", c.Hash, map[string][]byte{"Ideas/My Plan.md": []byte("plan, updated\n")}, "update")
	if err != nil {
		t.Fatal(err)
	}
	if got := runGit(t, v, "show", run+":Ideas/My Plan.md"); got != "plan, updated\n" {
		t.Errorf("run commit holds %q", got)
	}
}
