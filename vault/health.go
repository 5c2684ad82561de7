package vault

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// CheckGit looks for what would stop ctx0 from committing, or a person from
// using git, in the vault's repository: a HEAD that does not lead to a
// readable commit, objects of HEAD's tree that are missing, lock files left
// behind, a merge in progress, and conflicts that sync kept aside. It
// returns one problem per finding, each with the file that holds it.
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
	if _, err := os.Stat(filepath.Join(v.gitDir, "MERGE_HEAD")); err == nil {
		problems = append(problems, GitProblem{".git/MERGE_HEAD", "a git merge is in progress: finish it (git commit) or abort it (git merge --abort)"})
	}
	cs, err := v.Conflicts(ctx)
	if err != nil {
		problems = append(problems, GitProblem{conflictsDir, fmt.Sprintf("read conflicts: %v", err)})
	} else if len(cs) > 0 {
		problems = append(problems, GitProblem{conflictsDir, fmt.Sprintf("%d merge conflicts kept aside by sync wait to be resolved (ctx0 conflicts)", len(cs))})
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
