package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/extractor"
)

func (a *app) newContextCmd() *cobra.Command {
	var o contextOptions
	cmd := &cobra.Command{
		Use:   "context",
		Short: "Print the <memory> block an agent's session starts with",
		Long: `Print the session-start context: a <memory> block for an agent's system
prompt, with short instructions on when to search memory and when to save to
it, then the pinned entries, the curator's summaries where there are some,
and the latest entries: of the current project (the git remote of this
folder, or --project) and global ones (entries of no project). A pinned
entry still holding its template's text (a new vault's me.md) is said to
be empty; the librarian's own questions log is not listed. It fits
--budget tokens, and the same vault prints the same block, so prompt caches
stay warm. The Claude Code SessionStart hook prints it at every start.`,
		Example: `  ctx0 context
  ctx0 context --project github.com/me/bot0 --budget 800
  ctx0 context --json`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.budgetSet = cmd.Flags().Changed("budget")
			if !cmd.Flags().Changed("project") {
				o.Project = currentProject()
			}
			b, err := a.runContext(cmd.Context(), o)
			if err != nil {
				return err
			}
			return a.out().result(b, func() error {
				_, err := fmt.Fprint(a.stdout, b.Text)
				return err
			})
		},
	}
	cmd.Flags().StringVar(&o.Project, "project", "", "the project worked on (default: the git remote of this folder; '' for global entries only)")
	cmd.Flags().IntVar(&o.Budget, "budget", extractor.DefaultContextBudget, "the most tokens the block may take (extractor.context_budget in the config overrides the default)")
	a.jsonFlag(cmd, "print the block and what is in it as JSON")
	return cmd
}

// contextOptions are ctx0 context's flags.
type contextOptions struct {
	extractor.ContextOptions
	budgetSet bool // --budget was given; else the config's budget
}

// runContext makes the session-start block, within o.Budget tokens or,
// without --budget, the vault's context budget.
func (a *app) runContext(ctx context.Context, o contextOptions) (extractor.Block, error) {
	if !o.budgetSet {
		o.Budget = 0
	}
	var err error
	if o.Budget, err = extractor.CheckBudget(o.Budget, 0, extractor.MinContextBudget); err != nil {
		return extractor.Block{}, usagef("context: %v", err)
	}
	m, cfg, err := a.openMemory(ctx)
	if err != nil {
		return extractor.Block{}, err
	}
	if o.Budget == 0 { // no --budget, or --budget 0: the vault's
		o.Budget = cfg.Extractor.ContextBudget
	}
	return extractor.Context(ctx, m, o.ContextOptions)
}
