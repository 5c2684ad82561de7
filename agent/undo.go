package agent

import (
	"context"
	"fmt"

	"github.com/ctx0/ctx0/vault"
)

// Undo reverts what run id merged into v's branch, or only the files of
// paths among it, with a new commit (see vault.Revert): what the run did,
// from its base to its result, is merged backwards into the branch, so
// writes made since survive field by field. A run that never reached the
// branch has nothing to undo.
func Undo(ctx context.Context, v *vault.Vault, id string, paths ...string) (vault.Reverted, error) {
	r, err := Get(ctx, v.Root(), id)
	if err != nil {
		return vault.Reverted{}, err
	}
	if r.Result == "" || r.Merged == "" {
		return vault.Reverted{}, fmt.Errorf("undo run %s: %w: it is %s and its changes never reached the branch", id, vault.ErrNothingToRevert, r.Status)
	}
	return v.Revert(ctx, vault.RevertOptions{Commit: r.Result, Parent: r.Base, Paths: paths, Label: "run " + r.ID})
}
