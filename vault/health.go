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
// returns one message per problem.
func (v *Vault) CheckGit(ctx context.Context) ([]string, error) {
	var problems []string
	head, err := v.head()
	if err != nil {
		return append(problems, fmt.Sprintf("HEAD: %v", err)), nil
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
			problems = append(problems, fmt.Sprintf("the lock file .git/%s was left behind by a git command that stopped; remove it if no git command is running", name))
		}
	}
	if _, err := os.Stat(filepath.Join(v.gitDir, "MERGE_HEAD")); err == nil {
		problems = append(problems, "a git merge is in progress: finish it (git commit) or abort it (git merge --abort)")
	}
	cs, err := v.Conflicts(ctx)
	if err != nil {
		problems = append(problems, fmt.Sprintf("read conflicts: %v", err))
	} else if len(cs) > 0 {
		problems = append(problems, fmt.Sprintf("%d merge conflicts kept aside by sync wait to be resolved (ctx0 conflicts)", len(cs)))
	}
	return problems, nil
}

// checkTree reads HEAD's commit and checks that every object of its tree
// is in the repository.
func (v *Vault) checkTree(ctx context.Context, head headState) []string {
	c, err := object.GetCommit(v.repo.Storer, head.hash)
	if err != nil {
		return []string{fmt.Sprintf("HEAD commit %s: %v", head.hash, err)}
	}
	t, err := c.Tree()
	if err != nil {
		return []string{fmt.Sprintf("tree of HEAD commit %s: %v", head.hash, err)}
	}
	w := object.NewTreeWalker(t, true, nil)
	defer w.Close()
	var problems []string
	for ctx.Err() == nil {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return append(problems, fmt.Sprintf("tree of HEAD commit %s: %v", head.hash, err))
		}
		if e.Mode == filemode.Dir || e.Mode == filemode.Submodule {
			continue
		}
		if err := v.repo.Storer.HasEncodedObject(e.Hash); err != nil {
			problems = append(problems, fmt.Sprintf("%s: object %s of HEAD is missing", name, e.Hash))
		}
	}
	return problems
}
