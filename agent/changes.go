package agent

import (
	"context"
	"fmt"

	"github.com/ctx0/ctx0/vault"
)

// Changes is what run r's commit changed against its base: what ctx0 runs
// show and the page print. A run that changed nothing changed no files.
// For a run that failed, it is what the run tried; the branch never got it.
func Changes(ctx context.Context, v *vault.Vault, r Run) (vault.Diff, error) {
	if r.Result == "" {
		return vault.Diff{Files: []vault.FileChange{}}, nil
	}
	d, err := v.Diff(ctx, r.Base, r.Result)
	if err != nil {
		return vault.Diff{}, fmt.Errorf("show run %s: %w", r.ID, err)
	}
	return d, nil
}
