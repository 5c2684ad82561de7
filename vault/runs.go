package vault

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/utils/merkletrie"

	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/internal/lazy"
	"github.com/ctx0/ctx0/vault/entry"
)

// What an agent run needs of the vault: it reads the vault as of a base
// commit from git objects, never from the work tree the person is editing;
// its changes become one commit on refs/ctx0/runs/<id> whose parent is the
// base; and that commit is merged into the branch like a sync merges a
// remote's, so whatever was written meanwhile survives.

// RunRefPrefix is where run commits live, one ref per run.
const RunRefPrefix = "refs/ctx0/runs/"

// Tree is the vault as of one commit, read from git objects (no work tree).
// It is safe for concurrent use.
type Tree struct {
	v      *Vault
	commit *object.Commit
	mu     sync.Mutex // guards files, whose folder cache is a plain map
	files  *treeFiles
}

// TreeAt opens the vault as of rev: "" or "HEAD" for the current branch's
// head, else a commit hash, ref or expression git understands.
func (v *Vault) TreeAt(ctx context.Context, rev string) (*Tree, error) {
	c, err := v.commitAt(ctx, rev)
	if err != nil {
		return nil, err
	}
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read tree of %s: %w", c.Hash, err)
	}
	return &Tree{v: v, commit: c, files: newTreeFiles(t)}, nil
}

// commitAt resolves rev as TreeAt does.
func (v *Vault) commitAt(ctx context.Context, rev string) (*object.Commit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if rev == "" || rev == "HEAD" {
		head, err := v.head()
		if err != nil {
			return nil, err
		}
		if head.hash.IsZero() {
			return nil, fmt.Errorf("revision HEAD: %s has no commits yet", head.ref.Short())
		}
		rev = head.hash.String()
	}
	h, err := v.repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return nil, fmt.Errorf("revision %q: %w", rev, err)
	}
	c, err := object.GetCommit(v.repo.Storer, *h)
	if err != nil {
		return nil, fmt.Errorf("revision %q: %w", rev, err)
	}
	return c, nil
}

// Commit is the full hash of the tree's commit.
func (t *Tree) Commit() string { return t.commit.Hash.String() }

// Read returns the file at p, a slash-separated path such as
// "knowledge/foo.md". A missing file is an error that errors.Is
// fs.ErrNotExist.
func (t *Tree) Read(ctx context.Context, p string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !fs.ValidPath(p) || p == "." {
		return nil, fmt.Errorf("read %q at %s: %w", p, t.short(), fs.ErrInvalid)
	}
	t.mu.Lock()
	h := t.files.hash(p)
	t.mu.Unlock()
	if h.IsZero() {
		return nil, fmt.Errorf("read %s at %s: %w", p, t.short(), fs.ErrNotExist)
	}
	data, err := t.v.blob(h)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", p, t.short(), err)
	}
	return data, nil
}

// List returns the path of every file under folder dir ("" for the whole
// vault), recursively, sorted. A folder that does not exist holds nothing.
func (t *Tree) List(ctx context.Context, dir string) ([]string, error) {
	dir = strings.Trim(dir, "/")
	if dir != "" && !fs.ValidPath(dir) {
		return nil, fmt.Errorf("list %q at %s: %w", dir, t.short(), fs.ErrInvalid)
	}
	t.mu.Lock()
	sub := t.files.dir(dir)
	t.mu.Unlock()
	out := []string{}
	if sub == nil {
		return out, nil
	}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	if err := walkFiles(ctx, sub, func(name string, _ object.TreeEntry) {
		out = append(out, prefix+name)
	}); err != nil {
		return nil, fmt.Errorf("list %q at %s: %w", dir, t.short(), err)
	}
	sort.Strings(out)
	return out, nil
}

// GrepMatch is one line that matched.
type GrepMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"` // from 1
	Text string `json:"text"` // the line, without its newline
}

// Grep returns the lines of the files under dir ("" for all) that re
// matches, in path and line order. Binary files are skipped.
func (t *Tree) Grep(ctx context.Context, re *regexp.Regexp, dir string) ([]GrepMatch, error) {
	paths, err := t.List(ctx, dir)
	if err != nil {
		return nil, err
	}
	out := []GrepMatch{}
	for _, p := range paths {
		data, err := t.Read(ctx, p)
		if err != nil {
			return nil, err
		}
		if bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		for i, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if re.MatchString(line) {
				out = append(out, GrepMatch{Path: p, Line: i + 1, Text: line})
			}
		}
	}
	return out, nil
}

func (t *Tree) short() string { return t.commit.Hash.String()[:10] }

// CheckRunFile tells whether a run may write data at path p (nil data
// deletes): only entry files, under their normalized names, so a run cannot
// leave the vault or touch .git/, .ctx0/, CONTEXT.md or files that are not
// entries; and only content that parses as an entry. Tree.CheckWrite also
// lets a run keep the name of an entry its base already holds.
func CheckRunFile(p string, data []byte) error { return checkRunFile(p, data, nil) }

// CheckWrite is CheckRunFile for a run based on t, except that an entry
// file t already holds may keep a name that is not normalized: a person's
// "Ideas/My Plan.md", made in an editor, can still be updated.
func (t *Tree) CheckWrite(p string, data []byte) error {
	return checkRunFile(p, data, func(p string) bool {
		t.mu.Lock()
		defer t.mu.Unlock()
		return !t.files.hash(p).IsZero()
	})
}

// checkRunFile is CheckRunFile; a name that is not normalized passes if
// exists (may be nil) says the file is there already.
func checkRunFile(p string, data []byte, exists func(string) bool) error {
	name, ok := nameOf(p)
	if !ok || !fs.ValidPath(p) || strings.Contains(p, `\`) {
		return fmt.Errorf("%w %q: a run writes entry files only (a relative path such as knowledge/foo.md)", ErrBadName, p)
	}
	norm, err := NormalizeName(name)
	if err != nil {
		return err
	}
	if norm != name && (exists == nil || !exists(p)) {
		return fmt.Errorf("%w %q: not normalized (it would be %s)", ErrBadName, p, entryPath(norm))
	}
	if data == nil {
		return nil
	}
	if _, err := entry.Parse(data); err != nil {
		return fmt.Errorf("entry %s: %w", p, err)
	}
	return nil
}

// validRunID keeps a run id to one plain ref component.
var validRunID = lazy.Regexp(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// CheckRunID tells whether id can name a run (and its ref).
func CheckRunID(id string) error {
	if !validRunID().MatchString(id) || strings.Contains(id, "..") || strings.HasSuffix(id, ".lock") {
		return fmt.Errorf("run id %q: want letters, digits, '.', '-' and '_'", id)
	}
	return nil
}

// CommitRun writes files (path → content; nil content deletes the path) as
// one commit whose only parent is base, on refs/ctx0/runs/<id>, and returns
// its hash. The branch, the work tree and .git/index are untouched. Every
// path is checked (Tree.CheckWrite on the base) before anything is written.
func (v *Vault) CommitRun(ctx context.Context, id, base string, files map[string][]byte, msg string) (string, error) {
	if err := CheckRunID(id); err != nil {
		return "", err
	}
	bt, err := v.TreeAt(ctx, base)
	if err != nil {
		return "", fmt.Errorf("commit run %s: base %w", id, err)
	}
	for p, data := range files {
		if err := bt.CheckWrite(p, data); err != nil {
			return "", fmt.Errorf("commit run %s: %w", id, err)
		}
	}
	bc := bt.commit
	// Writing objects needs no lock between processes (each object file is
	// renamed into place), but go-git's object store keeps state that two
	// writers in one process would race on: queue with the vault's writers.
	unlock, err := v.lock(ctx)
	if err != nil {
		return "", fmt.Errorf("commit run %s: %w", id, err)
	}
	defer unlock()
	ref := plumbing.ReferenceName(RunRefPrefix + id)
	if _, err := v.repo.Storer.Reference(ref); err == nil {
		return "", fmt.Errorf("commit run %s: %s exists", id, ref)
	}
	edits := make(map[string]plumbing.Hash, len(files))
	redacted := map[string]int{}
	msg, _ = Redact(msg)
	for p, data := range files {
		data = redactFile(p, data, redacted)
		if data == nil {
			edits[p] = plumbing.ZeroHash
			continue
		}
		if edits[p], err = v.storeBlob(data); err != nil {
			return "", fmt.Errorf("commit run %s: store %s: %w", id, p, err)
		}
	}
	tree, err := v.writeTree(ctx, bc.TreeHash, edits)
	if err != nil {
		return "", fmt.Errorf("commit run %s: %w", id, err)
	}
	c, err := v.newCommit(tree, []plumbing.Hash{bc.Hash}, msg)
	if err != nil {
		return "", fmt.Errorf("commit run %s: %w", id, err)
	}
	if err := v.createRef(ctx, ref, c); err != nil {
		return "", fmt.Errorf("commit run %s: %w", id, err)
	}
	return c.String(), nil
}

// createRef makes a new ref the way git does (see writeRef), so a crash
// never leaves it empty. Refs outside refs/heads keep no reflog in git
// either.
func (v *Vault) createRef(ctx context.Context, ref plumbing.ReferenceName, h plumbing.Hash) error {
	p := filepath.Join(v.gitDir, filepath.FromSlash(ref.String()))
	err := v.writeRef(ctx, ref, h, func() error {
		if _, err := os.Stat(p); err == nil {
			return fmt.Errorf("create %s: it exists", ref)
		}
		return nil
	}, nil)
	if err != nil {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(p))
}

// MergeResult says what MergeRun did.
type MergeResult struct {
	Kind      string   `json:"merge"`  // up-to-date, fast-forward, merged
	Commit    string   `json:"commit"` // the branch after the merge
	Changed   []string `json:"changed"`
	Conflicts int      `json:"conflicts"` // true conflicts kept aside (see ctx0 conflicts)
	External  *Commit  `json:"external_edits,omitempty"`
}

// MergeRun merges commit into the current branch under the vault lock, as a
// sync merges a remote's branch: a fast-forward when the branch has not
// moved, else entries merged field by field, with true conflicts recorded
// for ctx0 conflicts. Edits other tools left uncommitted in the work tree
// are committed first, so they are merged as a side rather than overwritten.
// The changed paths are then written into the work tree and .git/index, and
// the catalog hears of them. A merge that fails leaves the branch as it was
// (with the external edits committed, if there were any).
func (v *Vault) MergeRun(ctx context.Context, commit, label string) (MergeResult, error) {
	c, err := v.commitAt(ctx, commit)
	if err != nil {
		return MergeResult{}, fmt.Errorf("merge %s: %w", label, err)
	}
	unlock, err := v.lock(ctx)
	if err != nil {
		return MergeResult{}, err
	}
	defer unlock()
	var res MergeResult
	// Files withheld for a secret stay out of this commit as out of every
	// other; sync reports them.
	if res.External, _, err = v.commitExternalLocked(ctx); err != nil {
		return res, fmt.Errorf("merge %s: %w", label, err)
	}
	head, err := v.head()
	if err != nil {
		return res, err
	}
	if !head.ref.IsBranch() {
		return res, fmt.Errorf("merge %s: HEAD is detached; check out a branch first", label)
	}
	mr, err := v.mergeLocked(ctx, "run", c.Hash, label)
	if err != nil {
		return res, err
	}
	res.Kind, res.Conflicts, res.Commit = mr.kind, mr.conflicts, head.hash.String()
	if mr.commit.IsZero() {
		res.Changed = []string{}
		return res, nil
	}
	res.Commit = mr.commit.String()
	if res.Changed, err = v.changedPaths(ctx, head.hash, mr.commit); err != nil {
		return res, err
	}
	if o, ok := v.catalog.(Observer); ok {
		if err := o.Changed(ctx, res.Changed); err != nil {
			return res, err
		}
	}
	return res, nil
}

// changedPaths lists the files that differ between two commits (from may
// be zero: an unborn branch), sorted.
func (v *Vault) changedPaths(ctx context.Context, from, to plumbing.Hash) ([]string, error) {
	_, files, err := v.treeChanges(ctx, from, to)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out, nil
}

// FileChange is one file a diff adds, changes or deletes.
type FileChange struct {
	Path   string `json:"path"`
	Action string `json:"action"` // added, changed, deleted
}

// Diff is what changed between two commits.
type Diff struct {
	Files []FileChange `json:"files"` // sorted by path
	Patch string       `json:"patch"` // unified diff, as git diff prints it
}

// Diff compares two revisions (as TreeAt takes them): the files that
// changed, and a unified diff of their text.
func (v *Vault) Diff(ctx context.Context, from, to string) (Diff, error) {
	fc, err := v.commitAt(ctx, from)
	if err != nil {
		return Diff{}, err
	}
	tc, err := v.commitAt(ctx, to)
	if err != nil {
		return Diff{}, err
	}
	changes, files, err := v.treeChanges(ctx, fc.Hash, tc.Hash)
	if err != nil {
		return Diff{}, err
	}
	patch, err := changes.PatchContext(ctx)
	if err != nil {
		return Diff{}, fmt.Errorf("diff %s..%s: %w", fc.Hash, tc.Hash, err)
	}
	return Diff{Files: files, Patch: patch.String()}, nil
}

// treeChanges diffs the trees of two commits; from may be zero.
func (v *Vault) treeChanges(ctx context.Context, from, to plumbing.Hash) (object.Changes, []FileChange, error) {
	trees := [2]*object.Tree{{}, nil}
	for i, h := range []plumbing.Hash{from, to} {
		if h.IsZero() {
			continue
		}
		c, err := object.GetCommit(v.repo.Storer, h)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", h, err)
		}
		if trees[i], err = c.Tree(); err != nil {
			return nil, nil, fmt.Errorf("read tree of %s: %w", h, err)
		}
	}
	changes, err := object.DiffTreeWithOptions(ctx, trees[0], trees[1], nil)
	if err != nil {
		return nil, nil, fmt.Errorf("diff %s..%s: %w", from, to, err)
	}
	files := make([]FileChange, 0, len(changes))
	for _, ch := range changes {
		action, err := ch.Action()
		if err != nil {
			return nil, nil, err
		}
		switch action {
		case merkletrie.Insert:
			files = append(files, FileChange{Path: ch.To.Name, Action: "added"})
		case merkletrie.Delete:
			files = append(files, FileChange{Path: ch.From.Name, Action: "deleted"})
		default:
			files = append(files, FileChange{Path: ch.To.Name, Action: "changed"})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return changes, files, nil
}
