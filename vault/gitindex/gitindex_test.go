package gitindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// change is one path ctx0 changes: written to the work tree and staged, or
// unstaged (and deleted from the work tree unless keep).
type change struct {
	path    string
	content string
	mode    filemode.FileMode // zero means filemode.Regular
	remove  bool
	keep    bool
}

type scenario struct {
	name string
	// setup builds the repository; it runs the same way in the repository
	// Apply updates and in its twin, which `git add` and `git rm` update.
	setup func(r *gitRepo)
	// prepare changes the work tree before the changes are written (for
	// example removing a directory a file replaces).
	prepare   func(r *gitRepo)
	changes   []change
	wantExts  []string // extensions the index must have before Apply
	wantState string   // expected `git status --porcelain` after, if set
}

func conflictSetup(r *gitRepo) {
	r.commitFiles("base", "f.md", "base\n", "g.md", "base\n", "h.md", "base\n", "del.md", "base\n", "keep.md", "k\n")
	r.git("checkout", "-q", "-b", "other")
	r.write("f.md", "theirs\n")
	r.write("g.md", "theirs\n")
	r.write("h.md", "theirs\n")
	r.removeAll("del.md")
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "theirs")
	r.git("checkout", "-q", "main")
	r.commitFiles("ours", "f.md", "ours\n", "g.md", "ours\n", "h.md", "ours\n", "del.md", "ours\n")
	if _, _, code := r.run("merge", "-q", "other"); code == 0 {
		r.tb.Fatal("merge did not conflict")
	}
	// A conflict resolved by git itself leaves a resolve-undo record.
	r.write("h.md", "h resolved\n")
	r.git("add", "h.md")
}

var scenarios = []scenario{
	{
		name:      "add new file",
		setup:     func(r *gitRepo) { r.commitFiles("base", "a.md", "a\n", "notes/x.md", "x\n") },
		changes:   []change{{path: "notes/y.md", content: "y\n"}},
		wantExts:  []string{"TREE"},
		wantState: "A  notes/y.md\n",
	},
	{
		name:      "modify file",
		setup:     func(r *gitRepo) { r.commitFiles("base", "a.md", "a\n", "notes/x.md", "x\n") },
		changes:   []change{{path: "a.md", content: "a changed\n"}},
		wantState: "M  a.md\n",
	},
	{
		name:      "remove file",
		setup:     func(r *gitRepo) { r.commitFiles("base", "a.md", "a\n", "notes/x.md", "x\n", "notes/z.md", "z\n") },
		changes:   []change{{path: "notes/x.md", remove: true}},
		wantState: "D  notes/x.md\n",
	},
	{
		name:      "unstage but keep the file",
		setup:     func(r *gitRepo) { r.commitFiles("base", "a.md", "a\n", "notes/x.md", "x\n") },
		changes:   []change{{path: "notes/x.md", remove: true, keep: true}},
		wantState: "D  notes/x.md\n?? notes/\n",
	},
	{
		name:      "remove a path not in the index",
		setup:     func(r *gitRepo) { r.commitFiles("base", "a.md", "a\n") },
		changes:   []change{{path: "nope.md", remove: true}},
		wantState: "",
	},
	{
		name:  "new nested directories",
		setup: func(r *gitRepo) { r.commitFiles("base", "a.md", "a\n", "deep/x.md", "x\n", "z.md", "z\n") },
		changes: []change{
			{path: "deep/er/and/deeper/file.md", content: "f\n"},
			{path: "deep/other.md", content: "o\n"},
			{path: "new/dir/n.md", content: "n\n"},
		},
		wantState: "A  deep/er/and/deeper/file.md\nA  deep/other.md\nA  new/dir/n.md\n",
	},
	{
		name: "several paths at once",
		setup: func(r *gitRepo) {
			r.commitFiles("base", "a.md", "a\n", "b/1.md", "1\n", "b/2.md", "2\n", "c/3.md", "3\n", "d.md", "d\n")
		},
		changes: []change{
			{path: "a.md", content: "a2\n"},
			{path: "b/0.md", content: "0\n"},
			{path: "b/2.md", remove: true},
			{path: "c/3.md", content: "33\n"},
			{path: "c/4.md", content: "4\n"},
			{path: "d.md", remove: true},
			{path: "e.md", content: "e\n"},
		},
		wantState: "M  a.md\nA  b/0.md\nD  b/2.md\nM  c/3.md\nA  c/4.md\nD  d.md\nA  e.md\n",
	},
	{
		name: "paths that sort around each other",
		setup: func(r *gitRepo) {
			r.commitFiles("base", "a-b", "1\n", "a.b", "2\n", "a/c", "3\n", "a0", "4\n", "ab", "5\n", "b", "6\n")
		},
		changes: []change{
			{path: "a/b", content: "new\n"},
			{path: "a-b", content: "1 changed\n"},
			{path: "a.a", content: "7\n"},
			{path: "a0", remove: true},
		},
		wantState: "M  a-b\nA  a.a\nA  a/b\nD  a0\n",
	},
	{
		name: "file replaces directory",
		setup: func(r *gitRepo) {
			r.commitFiles("base", "a/b", "1\n", "a/c/d", "2\n", "a-b", "3\n", "a.b", "4\n", "a0", "5\n")
		},
		prepare: func(r *gitRepo) { r.removeAll("a") },
		changes: []change{{path: "a", content: "now a file\n"}},
		// git add a displaces a/b and a/c/d, as Apply must.
		wantState: "A  a\nD  a/b\nD  a/c/d\n",
	},
	{
		name:      "directory replaces file",
		setup:     func(r *gitRepo) { r.commitFiles("base", "a", "1\n", "a-b", "2\n", "a.b", "3\n", "b", "4\n") },
		prepare:   func(r *gitRepo) { r.removeAll("a") },
		changes:   []change{{path: "a/b/c", content: "deep\n"}},
		wantState: "D  a\nA  a/b/c\n",
	},
	{
		name:  "merge conflict",
		setup: conflictSetup,
		changes: []change{
			{path: "f.md", content: "f resolved\n"},
			{path: "del.md", remove: true},
			{path: "e.md", content: "e\n"},
		},
		wantExts:  []string{"TREE", "REUC"},
		wantState: "D  del.md\nA  e.md\nM  f.md\nUU g.md\nM  h.md\n",
	},
	{
		name: "index version 3 with extended flags",
		setup: func(r *gitRepo) {
			r.commitFiles("base", "a.md", "a\n", "au.md", "au\n", "sw.md", "sw\n", "z.md", "z\n")
			r.git("update-index", "--index-version", "3")
			r.write("ita.md", "ita\n")
			r.write("ita2.md", "ita2\n")
			r.git("add", "-N", "ita.md", "ita2.md")
			r.git("update-index", "--skip-worktree", "sw.md")
			r.git("update-index", "--assume-unchanged", "au.md")
		},
		changes: []change{
			{path: "b.md", content: "b\n"},
			{path: "ita.md", content: "ita staged\n"},
			{path: "sw0.md", content: "next to a skip-worktree entry\n"},
			{path: "z.md", content: "z2\n"},
		},
		wantState: "A  b.md\nA  ita.md\n A ita2.md\nA  sw0.md\nM  z.md\n",
	},
	{
		name: "index version 4",
		setup: func(r *gitRepo) {
			r.commitFiles("base", "dir/aaa.md", "1\n", "dir/aab.md", "2\n", "dir/aac.md", "3\n", "dir/sub/x.md", "4\n",
				"other.md", "5\n", "zz/long/path/name.md", "6\n")
			r.git("update-index", "--index-version", "4")
			r.git("update-index", "--skip-worktree", "dir/aac.md")
			r.git("update-index", "--assume-unchanged", "other.md")
		},
		changes: []change{
			{path: "0first.md", content: "0\n"},
			{path: "dir/aaab.md", content: "7\n"},
			{path: "dir/aab.md", remove: true},
			{path: "dir/sub/x.md", content: "44\n"},
			{path: "zz/long/path/name2.md", content: "8\n"},
		},
		wantState: "A  0first.md\nA  dir/aaab.md\nD  dir/aab.md\nM  dir/sub/x.md\nA  zz/long/path/name2.md\n",
	},
	{
		name: "index version 4 first and last entries",
		setup: func(r *gitRepo) {
			r.commitFiles("base", "a.md", "1\n", "b.md", "2\n", "c/d.md", "3\n", "z.md", "4\n")
			r.git("update-index", "--index-version", "4")
		},
		changes: []change{
			{path: "a.md", remove: true},
			{path: "c/d.md", content: "33\n"},
			{path: "z.md", content: "44\n"},
		},
		wantState: "D  a.md\nM  c/d.md\nM  z.md\n",
	},
	{
		name: "index version 4 merge conflict",
		setup: func(r *gitRepo) {
			conflictSetup(r)
			r.git("update-index", "--index-version", "4")
		},
		changes:   []change{{path: "g.md", content: "g resolved\n"}},
		wantState: "UD del.md\nUU f.md\nM  g.md\nM  h.md\n",
	},
	{
		name: "untracked cache",
		setup: func(r *gitRepo) {
			r.git("config", "core.untrackedCache", "true")
			r.commitFiles("base", "a.md", "a\n", "d/b.md", "b\n")
			r.write("u.md", "u\n")
			r.write("d/u2.md", "u2\n")
			r.git("update-index", "--untracked-cache")
			r.git("status", "--porcelain")
		},
		changes: []change{
			{path: "u.md", content: "u\n"},
			{path: "d/new.md", content: "n\n"},
		},
		wantExts:  []string{"TREE", "UNTR"},
		wantState: "A  d/new.md\nA  u.md\n?? d/u2.md\n",
	},
	{
		name:  "missing index",
		setup: func(r *gitRepo) {},
		changes: []change{
			{path: "a.md", content: "a\n"},
			{path: "dir/b.md", content: "b\n"},
			{path: "gone.md", remove: true},
		},
		wantState: "A  a.md\nA  dir/b.md\n",
	},
	{
		name:  "modes",
		setup: func(r *gitRepo) { r.commitFiles("base", "a.md", "a\n", "tool.sh", "#!/bin/sh\n") },
		changes: []change{
			{path: "tool.sh", content: "#!/bin/sh\n", mode: filemode.Executable},
			{path: "run.sh", content: "#!/bin/sh\necho\n", mode: filemode.Executable},
			{path: "link", content: "a.md", mode: filemode.Symlink},
		},
		wantState: "A  link\nA  run.sh\nM  tool.sh\n",
	},
}

func TestApplyScenarios(t *testing.T) {
	requireGit(t)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			runScenario(t, sc)
		})
	}
}

func runScenario(t *testing.T, sc scenario) {
	if runtime.GOOS == "windows" && sc.name == "modes" {
		t.Skip("no executable bit or symlinks")
	}
	a, b := newRepo(t), newRepo(t)
	sc.setup(a)
	sc.setup(b)

	before, err := os.ReadFile(a.indexPath())
	hadIndex := err == nil
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	version := uint32(2)
	if hadIndex {
		version = binary.BigEndian.Uint32(before[4:8])
		sigs := extensionSigs(t, before)
		for _, want := range sc.wantExts {
			if !slices.Contains(sigs, want) {
				t.Fatalf("setup: index extensions %q lack %q", sigs, want)
			}
		}
	}
	beforeDebug := debugBlocks(a.git("ls-files", "-s", "--debug"))
	if sc.prepare != nil {
		sc.prepare(a)
		sc.prepare(b)
	}

	// Make the changes in both work trees; stage them with Apply in a and
	// with git in b.
	past := time.Now().Add(-time.Hour)
	var updates []Update
	var adds, removes []string
	changed := map[string]bool{}
	for _, c := range sc.changes {
		changed[c.path] = true
		if c.remove {
			if !c.keep {
				a.removeAll(c.path)
				b.removeAll(c.path)
			}
			updates = append(updates, Update{Path: c.path, Remove: true})
			removes = append(removes, c.path)
			continue
		}
		mode := c.mode
		if mode == 0 {
			mode = filemode.Regular
		}
		for _, r := range []*gitRepo{a, b} {
			full := filepath.Join(r.dir, filepath.FromSlash(c.path))
			if mode == filemode.Symlink {
				r.removeAll(c.path)
				if err := os.Symlink(c.content, full); err != nil {
					t.Fatal(err)
				}
				continue
			}
			r.write(c.path, c.content)
			if mode == filemode.Executable {
				if err := os.Chmod(full, 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
		full := filepath.Join(a.dir, filepath.FromSlash(c.path))
		if mode != filemode.Symlink {
			// An mtime well before the index's makes the entry not
			// racily clean, so git trusts our stat data alone.
			if err := os.Chtimes(full, past, past); err != nil {
				t.Fatal(err)
			}
		}
		hash := writeBlob(t, a, []byte(c.content))
		info, err := os.Lstat(full)
		if err != nil {
			t.Fatal(err)
		}
		updates = append(updates, Update{Path: c.path, Hash: hash, Mode: mode, Info: info})
		adds = append(adds, c.path)
	}

	if err := Apply(context.Background(), a.gitDir(), updates); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if len(removes) > 0 {
		b.git(append([]string{"rm", "-q", "-f", "--cached", "--ignore-unmatch", "--"}, removes...)...)
	}
	if len(adds) > 0 {
		b.git(append([]string{"add", "--"}, adds...)...)
	}

	if _, err := os.Stat(a.indexPath() + ".lock"); !os.IsNotExist(err) {
		t.Errorf("index.lock left behind: %v", err)
	}
	after := a.readIndex()
	if got := binary.BigEndian.Uint32(after[4:8]); got != version {
		t.Errorf("index version %d, want %d", got, version)
	}
	sigs := extensionSigs(t, after)
	for _, sig := range sigs {
		if sig != "TREE" && sig != "REUC" {
			t.Errorf("extension %q kept", sig)
		}
	}
	if hadTree := hadIndex && extensionPayload(t, before, "TREE") != nil; hadTree != slices.Contains(sigs, "TREE") {
		t.Errorf("TREE before %v, after %v", hadTree, slices.Contains(sigs, "TREE"))
	}
	// git invalidates the cache tree along the same paths: the extensions
	// must be the same bytes.
	bIndex := b.readIndex()
	for _, sig := range []string{"TREE", "REUC"} {
		if got, want := extensionPayload(t, after, sig), extensionPayload(t, bIndex, sig); !bytes.Equal(got, want) {
			t.Errorf("%s extension differs from git's:\n got %q\nwant %q", sig, got, want)
		}
	}

	same := func(args ...string) string {
		t.Helper()
		got, want := a.git(args...), b.git(args...)
		if got != want {
			t.Errorf("git %s:\n got:\n%s\nwant (git add):\n%s", strings.Join(args, " "), got, want)
		}
		return got
	}
	same("ls-files", "-s", "-v")
	same("ls-files", "--resolve-undo")
	same("diff-files", "--name-status")

	// Stat data: git must not see the updated files as changed.
	// git diff-files does not refresh: a stat mismatch shows as a change.
	afterDebug := debugBlocks(a.git("ls-files", "-s", "--debug"))
	if len(adds) > 0 {
		if out, errOut, code := a.run(append([]string{"diff-files", "--"}, adds...)...); code != 0 || out != "" {
			t.Errorf("git diff-files: exit %d (stat data not fresh)\n%s%s", code, out, errOut)
		}
	}
	for _, p := range adds {
		checkStat(t, filepath.Join(a.dir, filepath.FromSlash(p)), afterDebug[p+" 0"])
	}
	// Untouched entries keep their bytes, stat data and flags included.
	for key, block := range beforeDebug {
		path, _, _ := strings.Cut(key, " ")
		if changed[path] {
			continue
		}
		if got, ok := afterDebug[key]; ok && got != block {
			t.Errorf("untouched entry changed:\n%s\nbecame\n%s", block, got)
		}
	}

	status := same("status", "--porcelain")
	if sc.wantState != "" || len(sc.changes) == 0 {
		if status != sc.wantState {
			t.Errorf("status:\n%s\nwant\n%s", status, sc.wantState)
		}
	}
	same("diff", "--cached", "--name-status")
	if a.git("ls-files", "-u") == "" {
		same("write-tree")
	}
	if out, errOut, code := a.run("fsck", "--no-dangling", "--no-progress"); code != 0 || strings.Contains(out+errOut, "error") {
		t.Errorf("git fsck: exit %d\n%s%s", code, out, errOut)
	}
}

// writeBlob stores data in the repository with git and checks that go-git
// computes the same hash.
func writeBlob(t *testing.T, r *gitRepo, data []byte) plumbing.Hash {
	t.Helper()
	cmd := r.command("hash-object", "-w", "--stdin")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git hash-object: %v", err)
	}
	want := plumbing.ComputeHash(plumbing.BlobObject, data)
	if got := strings.TrimSpace(string(out)); got != want.String() {
		t.Fatalf("git hash-object gave %s, go-git %s", got, want)
	}
	return want
}
