package vault

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ctx0/ctx0/internal/gittest"
)

// TestSyncHostileCollaborator: a collaborator with a plain git clone of the
// remote pushes what ctx0 cannot take, each case once; the victim's sync
// sets it aside with a record and merges the rest, its machine-local state
// is as it was, nothing of it is tracked, and the next honest change on
// either side still converges, with git fsck --strict clean everywhere.
func TestSyncHostileCollaborator(t *testing.T) {
	cases := []struct {
		name string
		// victim prepares the victim's vault before the push, push is what
		// the collaborator does.
		victim func(t *testing.T, v *Vault)
		push   func(c *gittest.Collaborator)
		// setAside are the paths the sync must set aside.
		setAside []string
		// fsck is false where the pushed objects themselves break git's
		// rules, so no repository holding them passes git fsck.
		fsck bool
		// status is what git status shows on the victim: its own files
		// that ctx0 does not commit.
		status string
		// unignored: git no longer ignores the victim's machine-local
		// state, which doctor reports and Repair mends.
		unignored bool
	}{{
		name: "machine-local state force-added",
		push: func(c *gittest.Collaborator) {
			c.Write(".ctx0/state/ingest.db", "not a database")
			c.Write(".ctx0/index.db", "not an index")
			c.Push("share my sessions", ".ctx0/state/ingest.db", ".ctx0/index.db")
		},
		setAside: []string{".ctx0/index.db", ".ctx0/state"},
		fsck:     true,
	}, {
		name: "submodule gitlink",
		push: func(c *gittest.Collaborator) {
			c.Repo("projects/tool")
			c.Push("add the tool", "projects/tool")
		},
		setAside: []string{"projects/tool"},
		fsck:     true,
	}, {
		name: "file here, folder there",
		victim: func(t *testing.T, v *Vault) {
			writeTestFile(t, v, "knowledge/foo.md", "Foo", "a file here")
		},
		push: func(c *gittest.Collaborator) {
			c.Write("knowledge/foo.md/bar.md", "---\ntitle: Bar\ntype: note\n---\nin a folder there\n")
			c.Push("a folder")
		},
		setAside: []string{"knowledge/foo.md/bar.md"},
		fsck:     true,
	}, {
		name: "folder here, file there",
		victim: func(t *testing.T, v *Vault) {
			writeTestFile(t, v, "knowledge/foo/bar.md", "Bar", "in a folder here")
		},
		push: func(c *gittest.Collaborator) {
			c.Write("knowledge/foo", "a file there\n")
			c.Push("a file")
		},
		setAside: []string{"knowledge/foo"},
		fsck:     true,
	}, {
		name: "a .gitignore that ignores nothing",
		push: func(c *gittest.Collaborator) {
			c.Write(".gitignore", "# nothing\n")
			c.Push("ignore nothing")
		},
		fsck:      true,
		status:    "?? .ctx0/lock\n?? .ctx0/state/",
		unignored: true,
	}, {
		name: "a path through a link here",
		victim: func(t *testing.T, v *Vault) {
			if err := os.Symlink(t.TempDir(), filepath.Join(v.root, "knowledge", "elsewhere")); err != nil {
				t.Skip(err)
			}
		},
		push: func(c *gittest.Collaborator) {
			c.Write("knowledge/elsewhere/x.md", "---\ntitle: X\ntype: note\n---\nthrough the link\n")
			c.Push("through a link")
		},
		setAside: []string{"knowledge/elsewhere/x.md"},
		fsck:     true,
		status:   "?? knowledge/elsewhere",
	}, {
		name: "names that differ only in case",
		victim: func(t *testing.T, v *Vault) {
			writeTestFile(t, v, "knowledge/foo.md", "Foo", "lower case here")
		},
		push: func(c *gittest.Collaborator) {
			c.Write("knowledge/Foo.md", "---\ntitle: Foo\ntype: note\n---\nupper case there\n")
			c.Push("upper case")
		},
		setAside: []string{"knowledge/Foo.md"},
		fsck:     true,
	}, {
		name: "a .git path made with git's plumbing",
		push: func(c *gittest.Collaborator) {
			// git add refuses such a path; a hand-made tree does not.
			blob := c.Git("hash-object", "-w", filepath.Join(c.Dir, "CONTEXT.md"))
			hooks := mktree(c, "100644 blob "+blob+"\tpost-checkout")
			dotgit := mktree(c, "040000 tree "+hooks+"\thooks")
			head := c.Git("ls-tree", "HEAD")
			knowledge := ""
			for _, l := range strings.Split(head, "\n") {
				if strings.HasSuffix(l, "\tknowledge") {
					knowledge = strings.Fields(l)[2]
				}
			}
			sub := c.Git("ls-tree", knowledge)
			kn := mktree(c, sub+"\n040000 tree "+dotgit+"\t.GIT")
			var root []string
			for _, l := range strings.Split(head, "\n") {
				if strings.HasSuffix(l, "\tknowledge") {
					l = "040000 tree " + kn + "\tknowledge"
				}
				root = append(root, l)
			}
			tree := mktree(c, strings.Join(root, "\n"))
			commit := c.Git("commit-tree", tree, "-p", "HEAD", "-m", "hooks for everyone")
			c.Git("push", "-q", "origin", commit+":refs/heads/main")
		},
		setAside: []string{"knowledge/.GIT"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			v, url := sharedVault(t)
			local := filepath.Join(v.root, ".ctx0", "state", "ingest.db")
			if err := os.WriteFile(local, []byte("the victim's sessions"), 0o644); err != nil {
				t.Fatal(err)
			}
			c := gittest.Clone(t, url)
			if tc.victim != nil {
				tc.victim(t, v)
			}
			tc.push(c)
			if tc.victim == nil {
				// A new machine's clone of the remote as it is now leaves
				// out the same, and starts clean.
				fresh, err := Clone(ctx, url, filepath.Join(t.TempDir(), "fresh"), WithClock(v.now))
				if err != nil {
					t.Fatalf("clone after the push: %v", err)
				}
				asides, _, err := fresh.SetAsides(ctx)
				if err != nil || len(asides) != len(tc.setAside) {
					t.Fatalf("the clone set aside %v, %v; want %q", asides, err, tc.setAside)
				}
				for _, p := range tc.setAside {
					if p == ".ctx0/state" { // the clone's own state is there
						p += "/ingest.db"
					}
					if _, err := os.Lstat(filepath.Join(fresh.root, filepath.FromSlash(p))); err == nil {
						t.Errorf("the clone wrote %s", p)
					}
				}
				if st := runGit(t, fresh, "status", "--porcelain"); st != "" {
					t.Errorf("git status on the clone:\n%s", st)
				}
			}
			res, err := v.Sync(ctx, SyncOptions{})
			if err != nil {
				t.Fatalf("sync after the push: %v", err)
			}
			var got []string
			for _, s := range res.SetAside {
				got = append(got, s.Path)
			}
			if !slices.Equal(got, tc.setAside) {
				t.Fatalf("set aside %q, want %q", got, tc.setAside)
			}
			listed, bad, err := v.SetAsides(ctx)
			if err != nil || len(bad) > 0 || len(listed) != len(tc.setAside) {
				t.Fatalf("SetAsides = %v, %v, %v; want %d records", listed, bad, err, len(tc.setAside))
			}
			if data, err := os.ReadFile(local); err != nil || string(data) != "the victim's sessions" {
				t.Fatalf("the victim's session store: %q, %v", data, err)
			}
			tracked := strings.Fields(runGit(t, v, "ls-tree", "-r", "--name-only", "HEAD"))
			for _, p := range tc.setAside {
				fi, err := os.Stat(filepath.Join(v.root, filepath.FromSlash(p)))
				ours := err == nil && fi.IsDir() // the victim's own folder, not the change
				for _, f := range tracked {
					if f == p || (!ours && strings.HasPrefix(f, p+"/")) {
						t.Errorf("HEAD tracks %s after the sync", f)
					}
				}
			}
			if st := strings.TrimSpace(runGit(t, v, "status", "--porcelain")); st != tc.status {
				t.Errorf("git status after the sync:\n%s", st)
			}
			// The next honest change converges, both ways.
			c.Pull()
			c.Write("knowledge/honest.md", "---\ntitle: Honest\ntype: note\n---\nfrom the collaborator\n")
			c.Push("an honest note", "knowledge/honest.md")
			if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
				t.Fatalf("sync after an honest change: %v", err)
			}
			writeTestFile(t, v, "knowledge/reply.md", "Reply", "from the victim")
			if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
				t.Fatalf("sync of the victim's honest change: %v", err)
			}
			c.Pull()
			if vh, ch := strings.TrimSpace(runGit(t, v, "rev-parse", "HEAD^{tree}")), c.Git("rev-parse", "HEAD^{tree}"); vh != ch {
				t.Fatalf("the clones differ after honest changes: %s vs %s", vh, ch)
			}
			if _, err := os.Stat(filepath.Join(v.root, "knowledge", "honest.md")); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(runGit(t, v, "ls-tree", "-r", "--name-only", "HEAD", ".ctx0")); got != ".ctx0/config.yaml" {
				t.Fatalf("HEAD tracks under .ctx0:\n%s", got)
			}
			if data, err := os.ReadFile(local); err != nil || string(data) != "the victim's sessions" {
				t.Fatalf("the victim's session store after converging: %q, %v", data, err)
			}
			problems, err := v.CheckGit(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if tc.unignored {
				if len(problems) == 0 || problems[len(problems)-1].File != ".gitignore" {
					t.Fatalf("CheckGit = %v, want .gitignore", problems)
				}
				problems = problems[:len(problems)-1]
				if _, err := v.Repair(ctx); err != nil {
					t.Fatal(err)
				}
				tc.status = ""
			}
			if len(problems) != len(tc.setAside) {
				t.Errorf("CheckGit = %v, want one problem per change set aside", problems)
			}
			for _, s := range listed {
				if ok, err := v.DismissSetAside(s.ID); !ok || err != nil {
					t.Fatalf("dismiss %s: %v, %v", s.ID, ok, err)
				}
			}
			if problems, err := v.CheckGit(ctx); err != nil || len(problems) > 0 {
				t.Errorf("CheckGit after dismissing = %v, %v", problems, err)
			}
			if st := strings.TrimSpace(runGit(t, v, "status", "--porcelain")); st != tc.status {
				t.Errorf("git status at the end:\n%s", st)
			}
			if tc.fsck {
				for _, dir := range []string{v.root, c.Dir, url} {
					gittest.Run(t, dir, "fsck", "--strict")
				}
			}
		})
	}
}

// TestSyncUntracksMachineLocal: machine-local state that a person
// force-added and committed is untracked by the next sync, its file kept,
// and never pushed again.
func TestSyncUntracksMachineLocal(t *testing.T) {
	ctx := t.Context()
	v, url := sharedVault(t)
	local := filepath.Join(v.root, ".ctx0", "state", "ingest.db")
	if err := os.WriteFile(local, []byte("sessions"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, v, "add", "-f", ".ctx0/state/ingest.db")
	runGit(t, v, "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-q", "-m", "oops")
	if err := os.WriteFile(local, []byte("more sessions"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := v.Sync(ctx, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.External == nil || !slices.Equal(res.External.Untracked, []string{".ctx0/state/ingest.db"}) {
		t.Fatalf("external edits = %+v, want .ctx0/state/ingest.db untracked", res.External)
	}
	if data, _ := os.ReadFile(local); string(data) != "more sessions" {
		t.Fatalf("the session store: %q", data)
	}
	if got := gittest.Run(t, url, "ls-tree", "-r", "--name-only", "main", ".ctx0"); got != ".ctx0/config.yaml" {
		t.Fatalf("the remote tracks:\n%s", got)
	}
	gittest.CheckClean(t, v.root)
}

// TestSyncSkipsNestedRepository: a git repository inside the vault is
// skipped as git skips it, and reported; its files are never committed.
func TestSyncSkipsNestedRepository(t *testing.T) {
	ctx := t.Context()
	v, url := sharedVault(t)
	gittest.Repo(t, filepath.Join(v.root, "projects", "tool"))
	writeTestFile(t, v, "knowledge/beside.md", "Beside", "an entry beside it")
	res, err := v.Sync(ctx, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Nested, []string{"projects/tool"}) {
		t.Fatalf("nested = %q", res.Nested)
	}
	if res.External == nil || !slices.Equal(res.External.Paths, []string{"knowledge/beside.md"}) {
		t.Fatalf("external edits = %+v", res.External)
	}
	if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatalf("the next sync: %v", err)
	}
	if got := strings.TrimSpace(runGit(t, v, "ls-tree", "-r", "--name-only", "HEAD", "projects")); got != "projects/.gitkeep" {
		t.Fatalf("HEAD tracks under projects:\n%s", got)
	}
	problems, err := v.CheckGit(ctx)
	if err != nil || len(problems) != 1 || problems[0].File != "projects/tool" {
		t.Fatalf("CheckGit = %v, %v; want the nested repository", problems, err)
	}
	runGit(t, v, "fsck", "--strict")
	gittest.Run(t, url, "fsck", "--strict")
}

// mktree makes a tree object from git ls-tree lines, as git mktree does,
// which checks no names.
func mktree(c *gittest.Collaborator, entries string) string {
	return gittest.RunInput(c.T(), c.Dir, strings.TrimSpace(entries)+"\n", "mktree", "--missing")
}

// writeTestFile writes an entry file as another tool would, uncommitted.
func writeTestFile(t *testing.T, v *Vault, rel, title, body string) {
	t.Helper()
	p := filepath.Join(v.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	data := "---\ntitle: " + title + "\ntype: note\n---\n" + body + "\n"
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRepairUntracksLeftOut: what an older ctx0 committed that ctx0 must
// not track (a nested repository's files and its .git, machine-local
// state) is reported by CheckGit and untracked by Repair, files kept; only
// the nested repository itself stays reported, with what to do.
func TestRepairUntracksLeftOut(t *testing.T) {
	ctx := t.Context()
	v := testVault(t)
	nested := filepath.Join(v.root, "projects", "tool")
	gittest.Repo(t, nested)
	local := filepath.Join(v.root, ".ctx0", "state", "ingest.db")
	if err := os.WriteFile(local, []byte("sessions"), 0o644); err != nil {
		t.Fatal(err)
	}
	// What an older ctx0's sync committed (it failed to stage it).
	edits := map[string]plumbing.Hash{}
	for _, rel := range []string{"projects/tool/README", "projects/tool/.git/config", "projects/tool/.git/HEAD", ".ctx0/state/ingest.db"} {
		data, err := os.ReadFile(filepath.Join(v.root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		if edits[rel], err = v.storeBlob(data); err != nil {
			t.Fatal(err)
		}
	}
	head, err := v.head()
	if err != nil {
		t.Fatal(err)
	}
	base := v.headFiles(head.hash).root
	tree, err := v.writeTree(ctx, base, edits)
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.newCommit(tree, []plumbing.Hash{head.hash}, "external edits by an older ctx0")
	if err != nil {
		t.Fatal(err)
	}
	if err := v.updateRef(ctx, head, c, v.signature(), "old", nil); err != nil {
		t.Fatal(err)
	}
	problems, err := v.CheckGit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, p := range problems {
		files = append(files, p.File)
	}
	slices.Sort(files)
	// projects/tool/README also shows as unstaged: the older ctx0 failed
	// to stage its commit.
	if want := []string{".ctx0/state", "projects/tool", "projects/tool", "projects/tool/README"}; !slices.Equal(files, want) {
		t.Fatalf("CheckGit found %q, want %q: %v", files, want, problems)
	}
	done, err := v.Repair(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 {
		t.Fatalf("Repair = %q, want the state folder and the nested repository untracked", done)
	}
	if got := strings.TrimSpace(runGit(t, v, "ls-tree", "-r", "--name-only", "HEAD", ".ctx0", "projects")); got != ".ctx0/config.yaml\nprojects/.gitkeep" {
		t.Fatalf("HEAD tracks:\n%s", got)
	}
	for _, p := range []string{local, filepath.Join(nested, "README"), filepath.Join(nested, ".git", "config")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("Repair removed a file: %v", err)
		}
	}
	problems, err = v.CheckGit(ctx)
	if err != nil || len(problems) != 1 || problems[0].File != "projects/tool" {
		t.Fatalf("CheckGit after Repair = %v, %v; want only the nested repository", problems, err)
	}
	if st := strings.TrimSpace(runGit(t, v, "status", "--porcelain")); st != "?? projects/tool/" {
		t.Fatalf("git status after Repair:\n%s", st)
	}
}
