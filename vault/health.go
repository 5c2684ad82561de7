package vault

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/internal/filelock"
	"github.com/ctx0/ctx0/vault/gitindex"
)

// CheckGit looks for what would stop ctx0 from committing, or a person from
// using git, in the vault's repository: a HEAD that does not lead to a
// readable commit, objects of HEAD's tree that are missing, lock files left
// behind, a merge in progress, conflicts that sync kept aside, commits
// whose files git's staging area lacks, what a killed fetch left, pack
// indexes that cannot be read, and what opening the vault repaired of a
// killed ctx0 writer. It returns one problem per finding,
// each with the file that holds it.
func (v *Vault) CheckGit(ctx context.Context) ([]GitProblem, error) {
	var problems []GitProblem
	head, err := v.head()
	if err != nil {
		return append(problems, GitProblem{".git/HEAD", fmt.Sprintf("HEAD: %v", err)}), nil
	}
	if !head.hash.IsZero() {
		problems = append(problems, v.checkTree(ctx, head)...)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, name := range []string{"index.lock", "HEAD.lock", string(head.ref) + ".lock"} {
		fi, err := os.Stat(filepath.Join(v.gitDir, filepath.FromSlash(name)))
		if err == nil && v.now().Sub(fi.ModTime()) > staleLock {
			problems = append(problems, GitProblem{".git/" + name, fmt.Sprintf("the lock file .git/%s was left behind by a git command that stopped; remove it if no git command is running", name)})
		}
	}
	for _, r := range v.recovered {
		problems = append(problems, GitProblem{".git", "repaired after a ctx0 process was killed while writing: " + r})
	}
	if ups, err := v.unstagedCommits(ctx); err != nil {
		problems = append(problems, GitProblem{".git/index", fmt.Sprintf("compare git's staging area with HEAD: %v", err)})
	} else {
		for _, u := range ups {
			problems = append(problems, GitProblem{u.Path, "git's staging area lacks HEAD's version of the file (git status shows it deleted and untracked, and the next git commit would delete it); run ctx0 doctor --fix"})
		}
	}
	temps, nested, err := v.strayTemps(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range temps {
		problems = append(problems, GitProblem{t, "a temporary file left by a ctx0 process that was killed while writing; run ctx0 doctor --fix"})
	}
	for _, n := range nested {
		problems = append(problems, GitProblem{n, fmt.Sprintf("a git repository of its own inside the vault: ctx0 does not commit or sync it; move it out of the vault, or add %s/ to .gitignore", n)})
	}
	problems = append(problems, v.checkLeftOut(ctx, head, nested)...)
	if local, err := v.unignoredLocal(); err != nil {
		problems = append(problems, GitProblem{".gitignore", err.Error()})
	} else if len(local) > 0 {
		problems = append(problems, GitProblem{".gitignore", fmt.Sprintf("git does not ignore machine-local state (%s): ctx0 never commits it, but git status shows it and git add -A would commit it; run ctx0 doctor --fix to add ctx0's lines to .gitignore", strings.Join(local, ", "))})
	}
	problems = append(problems, v.checkFetches()...)
	if _, err := os.Stat(filepath.Join(v.gitDir, "MERGE_HEAD")); err == nil {
		problems = append(problems, GitProblem{".git/MERGE_HEAD", "a git merge is in progress: finish it (git commit) or abort it (git merge --abort)"})
	}
	cs, bad, err := v.Conflicts(ctx)
	if err != nil {
		problems = append(problems, GitProblem{conflictsDir, fmt.Sprintf("read conflicts: %v", err)})
	} else if len(cs) > 0 {
		problems = append(problems, GitProblem{conflictsDir, fmt.Sprintf("%d merge conflicts kept aside by sync wait to be resolved (ctx0 conflicts)", len(cs))})
	}
	for _, b := range bad {
		problems = append(problems, GitProblem{b.File, badRecordAdvice(b)})
	}
	return problems, nil
}

// GitProblem is one thing CheckGit found, with the file that holds it
// (slash-separated, relative to the vault root): the lock file, the entry
// whose object is missing, .git/objects for a commit or tree it cannot read.
type GitProblem struct {
	File    string
	Message string
}

// checkTree reads HEAD's commit and checks that every object of its tree
// is in the repository.
func (v *Vault) checkTree(ctx context.Context, head headState) []GitProblem {
	const objects = ".git/objects"
	c, err := object.GetCommit(v.repo.Storer, head.hash)
	if err != nil {
		return []GitProblem{{objects, fmt.Sprintf("HEAD commit %s: %v", head.hash, err)}}
	}
	t, err := c.Tree()
	if err != nil {
		return []GitProblem{{objects, fmt.Sprintf("tree of HEAD commit %s: %v", head.hash, err)}}
	}
	w := object.NewTreeWalker(t, true, nil)
	w.SkipPathValidation() // paths git refuses are checkLeftOut's to report
	defer w.Close()
	var problems []GitProblem
	for ctx.Err() == nil {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return append(problems, GitProblem{objects, fmt.Sprintf("tree of HEAD commit %s: %v", head.hash, err)})
		}
		if e.Mode == filemode.Dir || e.Mode == filemode.Submodule {
			continue
		}
		if err := v.repo.Storer.HasEncodedObject(e.Hash); err != nil {
			problems = append(problems, GitProblem{name, fmt.Sprintf("object %s of HEAD is missing", e.Hash)})
		}
	}
	return problems
}

// unstagedCommits finds the paths where git's staging area disagrees with
// HEAD while the work-tree file is exactly as HEAD has it: what a writer
// killed between moving the branch and staging leaves (git status shows
// `D` and `??`, or a staged change that undoes the commit), and what a
// person's next `git commit` would turn into a real deletion. It returns
// the updates that stage HEAD's content for them.
func (v *Vault) unstagedCommits(ctx context.Context) ([]gitindex.Update, error) {
	head, err := v.head()
	if err != nil || head.hash.IsZero() {
		return nil, err
	}
	c, err := object.GetCommit(v.repo.Storer, head.hash)
	if err != nil {
		return nil, fmt.Errorf("read HEAD commit %s: %w", head.hash, err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read HEAD tree: %w", err)
	}
	idx, err := v.readGitIndex()
	if err != nil {
		return nil, err
	}
	staged := make(map[string]plumbing.Hash, len(idx.Entries))
	for _, e := range idx.Entries {
		if e.Stage != 0 {
			return nil, nil // a merge in progress: git's to finish, not ours
		}
		staged[e.Name] = e.Hash
	}
	var out []gitindex.Update
	err = walkFiles(ctx, t, func(name string, e object.TreeEntry) {
		if staged[name] == e.Hash || mustNotTrack(name) {
			return
		}
		full := filepath.Join(v.root, filepath.FromSlash(name))
		if h, err := fileBlobHash(full); err != nil || h != e.Hash.String() {
			return
		}
		u := gitindex.Update{Path: name, Hash: e.Hash, Mode: e.Mode}
		if fi, err := os.Lstat(full); err == nil {
			u.Info = fi
		}
		out = append(out, u)
	})
	if err != nil {
		return nil, fmt.Errorf("read HEAD tree: %w", err)
	}
	return out, nil
}

// Repair fixes what CheckGit reports that ctx0 can fix safely, under the
// vault lock: it removes what killed fetches left and rebuilds pack
// indexes that cannot be read (repairFetches), untracks what HEAD must not
// hold (untrackLeftOutLocked), removes temporary files left by killed
// writers (strayTemps), stages the files of commits that git's staging
// area lacks (unstagedCommits) and moves the conflict records it refuses
// into local state (setAsideBadRecords). It returns one line per repair.
func (v *Vault) Repair(ctx context.Context) ([]string, error) {
	unlock, err := v.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Packs first: an index that cannot be read hides every object.
	done, err := v.repairFetches(ctx)
	if err != nil {
		return done, err
	}
	temps, nested, err := v.strayTemps(ctx)
	if err != nil {
		return nil, err
	}
	// Untracked before staging: HEAD's files that must not be tracked are
	// not staged again.
	untracked, err := v.untrackLeftOutLocked(ctx, nested)
	if err != nil {
		return done, err
	}
	done = append(done, untracked...)
	if ignored, err := v.ignoreLocalLocked(ctx); err != nil {
		return done, err
	} else if ignored != "" {
		done = append(done, ignored)
	}
	ups, err := v.unstagedCommits(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range temps {
		if err := os.Remove(filepath.Join(v.root, filepath.FromSlash(t))); err != nil && !errors.Is(err, os.ErrNotExist) {
			return done, fmt.Errorf("remove %s: %w", t, err)
		}
		done = append(done, "removed the temporary file "+t+" left by a killed ctx0")
	}
	if len(ups) > 0 {
		if err := gitindex.ApplyWithLock(ctx, v.gitDir, ups, v.lockGitIndex); err != nil {
			return nil, err
		}
		for _, u := range ups {
			done = append(done, "staged "+u.Path+" as HEAD has it")
		}
	}
	set, err := v.setAsideBadRecords(ctx)
	return append(done, set...), err
}

// checkFetches reports what killed fetches left (fetchLeftovers) and the
// pack indexes that cannot be read. It looks only while no ctx0 fetch
// runs: a running one's files are not yet whole.
func (v *Vault) checkFetches() []GitProblem {
	l, ok, err := filelock.TryExclusive(filepath.Join(v.root, filepath.FromSlash(fetchLockFile)))
	if err != nil || !ok {
		return nil
	}
	defer l.Unlock()
	var problems []GitProblem
	left, err := v.fetchLeftovers()
	if err != nil {
		return []GitProblem{{".git/objects/pack", err.Error()}}
	}
	for _, p := range left {
		problems = append(problems, GitProblem{p, "left by a ctx0 fetch that was killed midway; the next sync removes it, or run ctx0 doctor --fix"})
	}
	broken, err := v.brokenPackIndexes()
	if err != nil {
		return append(problems, GitProblem{".git/objects/pack", err.Error()})
	}
	for _, p := range broken {
		problems = append(problems, GitProblem{p, "the pack index cannot be read, so neither can the objects of its pack (a fetch kept an index a killed fetch had half written); run ctx0 doctor --fix to rebuild it from the pack"})
	}
	return problems
}

// repairFetches, under the fetch lock, removes what killed fetches left
// and rebuilds the pack indexes that cannot be read from their packs.
func (v *Vault) repairFetches(ctx context.Context) ([]string, error) {
	unlock, _, removed, err := v.lockFetch(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var done []string
	for _, p := range removed {
		done = append(done, "removed "+p+", left by a killed fetch")
	}
	broken, err := v.brokenPackIndexes()
	if err != nil {
		return done, err
	}
	for _, p := range broken {
		if err := v.rebuildPackIndex(p); err != nil {
			return done, err
		}
		done = append(done, "rebuilt "+p+" from its pack")
	}
	return done, nil
}

// strayTemps lists, relative to the vault root, the temporary files of
// writeFile in the work tree (outside what git ignores) whose writer is
// gone (staleTemp): git status shows them until they are removed.
// It also returns the folders it left out as git repositories of their own.
func (v *Vault) strayTemps(ctx context.Context) (_, nested []string, _ error) {
	var out []string
	err := v.walkWorkTree(func(_, rel string, d fs.DirEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !atomicfile.IsTemp(d.Name()) || !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err == nil && staleTemp(fi) {
			out = append(out, rel)
		}
		return nil
	}, func(rel string) { nested = append(nested, rel) })
	return out, nested, err
}

// leftOutOfHead lists what HEAD's tree holds that ctx0 must not track
// (checkTakeable), by path, a folder (.git, .ctx0/state) as one path.
// Symbolic links are left to Links, which reports them.
//
// Folders of nested (git repositories of their own in the work tree) that
// HEAD holds are listed too: an older ctx0 committed their files.
func (v *Vault) leftOutOfHead(ctx context.Context, head headState, nested []string) (*object.Tree, map[string]leftOut, error) {
	if head.hash.IsZero() {
		return nil, nil, nil
	}
	c, err := object.GetCommit(v.repo.Storer, head.hash)
	if err != nil {
		return nil, nil, fmt.Errorf("read HEAD commit %s: %w", head.hash, err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, nil, fmt.Errorf("read HEAD tree: %w", err)
	}
	_, left, err := v.takeableTree(ctx, t, map[string]takeable{})
	if err != nil {
		return nil, nil, err
	}
	for p := range left {
		if e, err := findRaw(v.repo.Storer, t, p); err == nil && e.Mode == filemode.Symlink {
			delete(left, p)
		}
	}
	for _, n := range nested {
		if e, err := findRaw(v.repo.Storer, t, n); err == nil && e.Mode == filemode.Dir {
			left[n] = leftOut{e.Hash, fmt.Errorf("%w: %s is a git repository of its own", errNotTakeable, n)}
		}
	}
	for p := range left { // a nested repository's .git goes with it
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, ok := left[d]; ok {
				delete(left, p)
				break
			}
		}
	}
	return t, left, nil
}

// findRaw finds the entry at p in t without go-git's path checks, which
// refuse the very paths this looks for.
func findRaw(s storer.EncodedObjectStorer, t *object.Tree, p string) (object.TreeEntry, error) {
	parts := strings.Split(p, "/")
	for i, name := range parts {
		var found *object.TreeEntry
		for j := range t.Entries {
			if t.Entries[j].Name == name {
				found = &t.Entries[j]
				break
			}
		}
		if found == nil {
			return object.TreeEntry{}, fmt.Errorf("%s: %w", p, object.ErrEntryNotFound)
		}
		if i == len(parts)-1 {
			return *found, nil
		}
		sub, err := object.GetTree(s, found.Hash)
		if err != nil {
			return object.TreeEntry{}, err
		}
		t = sub
	}
	return object.TreeEntry{}, fmt.Errorf("%s: %w", p, object.ErrEntryNotFound)
}

// checkLeftOut reports what HEAD tracks that ctx0 must not, and the
// changes merges set aside on this clone.
func (v *Vault) checkLeftOut(ctx context.Context, head headState, nested []string) []GitProblem {
	var problems []GitProblem
	_, left, err := v.leftOutOfHead(ctx, head, nested)
	if err != nil {
		problems = append(problems, GitProblem{".git/objects", fmt.Sprintf("read HEAD's tree: %v", err)})
	}
	paths := make([]string, 0, len(left))
	for p := range left {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		reason := strings.TrimPrefix(left[p].err.Error(), errNotTakeable.Error()+": ")
		problems = append(problems, GitProblem{p, "tracked by git, but " + reason + "; run ctx0 doctor --fix to untrack it (files on disk are kept)"})
	}
	asides, bad, err := v.SetAsides(ctx)
	if err != nil {
		return append(problems, GitProblem{setAsideDir, err.Error()})
	}
	for _, b := range bad {
		problems = append(problems, GitProblem{b, "a record of a change set aside that cannot be read; remove it"})
	}
	for _, s := range asides {
		problems = append(problems, GitProblem{s.Path, fmt.Sprintf("a change of %s was not taken: %s; see it with %s, keep what you want of it under a path ctx0 can take, then run ctx0 conflicts resolve %s", s.From, s.Reason, s.Show(), s.ID)})
	}
	return problems
}

// untrackLeftOutLocked commits HEAD without what ctx0 must not track
// (leftOutOfHead), leaving the files on disk, and takes them out of git's
// staging area. It returns one line per path.
func (v *Vault) untrackLeftOutLocked(ctx context.Context, nested []string) ([]string, error) {
	head, err := v.head()
	if err != nil {
		return nil, err
	}
	t, left, err := v.leftOutOfHead(ctx, head, nested)
	if err != nil || len(left) == 0 {
		return nil, err
	}
	changes, paths, err := v.untrackChanges(ctx, t, left)
	if err != nil {
		return nil, err
	}
	var done []string
	for _, p := range paths {
		done = append(done, "untracked "+p+" (the files are kept)")
	}
	msg := fmt.Sprintf("doctor: untrack %d path(s) ctx0 must not commit", len(done))
	if _, err := v.applyLocked(ctx, msg, changes); err != nil {
		return nil, err
	}
	return done, nil
}

// untrackChanges are the changes that take the paths of left out of tree t
// (a folder with every file in it), files kept, and those paths, sorted.
func (v *Vault) untrackChanges(ctx context.Context, t *object.Tree, left map[string]leftOut) ([]change, []string, error) {
	var changes []change
	var paths []string
	for p := range left {
		paths = append(paths, p)
		e, err := findRaw(v.repo.Storer, t, p)
		if err != nil {
			return nil, nil, fmt.Errorf("untrack %s: %w", p, err)
		}
		if e.Mode != filemode.Dir {
			changes = append(changes, change{path: p, untrack: true})
			continue
		}
		sub, err := object.GetTree(v.repo.Storer, e.Hash)
		if err != nil {
			return nil, nil, fmt.Errorf("untrack %s: %w", p, err)
		}
		err = walkFiles(ctx, sub, func(name string, _ object.TreeEntry) {
			changes = append(changes, change{path: p + "/" + name, untrack: true})
		})
		if err != nil {
			return nil, nil, fmt.Errorf("untrack %s: %w", p, err)
		}
	}
	sort.Strings(paths)
	sort.Slice(changes, func(i, j int) bool { return changes[i].path < changes[j].path })
	return changes, paths, nil
}
