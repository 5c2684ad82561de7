package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/agent"
	"github.com/ctx0/ctx0/vault"
)

func (a *app) newUndoCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "undo RUN|COMMIT [PATH...]",
		Short: "Undo an agent run or a commit with a new commit",
		Long: `Undo what agent run RUN (see ctx0 runs) or commit COMMIT (a hash, HEAD~2, ...)
changed, with one new commit on the branch, as git revert does: history is
never rewritten. The change is merged backwards into the vault field by field,
so edits made since survive; where a field was changed again since and the two
disagree, the newer value stays and the conflict is kept aside (see ctx0
conflicts). With PATHs (as ctx0 runs show lists them), only those files are
undone. Prints the new commit.`,
		Example: `  ctx0 undo 20260128T100000.000Z-1a2b3c4d
  ctx0 undo 20260128T100000.000Z-1a2b3c4d contacts/priya-patel.md
  ctx0 undo HEAD`,
		Args: func(c *cobra.Command, got []string) error {
			if len(got) == 0 {
				return usagef("%s takes a RUN or COMMIT (see %s --help)", cmdName(c), c.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.runUndo(cmd.Context(), args[0], args[1:])
			if err != nil {
				return err
			}
			if r.Conflicts > 0 {
				a.note("ctx0: %s kept aside: see ctx0 conflicts", count(r.Conflicts, "conflict"))
			}
			return a.out().result(r, func() error {
				_, err := a.stdout.Write([]byte(r.Hash + "\n"))
				return err
			})
		},
	}
	a.jsonFlag(cmd, "print the new commit as JSON")
	return cmd
}

// runUndo undoes run or commit ref, or only paths of it.
func (a *app) runUndo(ctx context.Context, ref string, paths []string) (vault.Reverted, error) {
	v, err := a.open(ctx)
	if err != nil {
		return vault.Reverted{}, err
	}
	r, err := agent.Undo(ctx, v, ref, paths...)
	if !errors.Is(err, agent.ErrNoRun) {
		return r, err
	}
	return v.Revert(ctx, vault.RevertOptions{Commit: ref, Paths: paths})
}
