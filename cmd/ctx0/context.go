package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/extractor"
)

func (a *app) newContextCmd() *cobra.Command {
	var (
		project string
		budget  int
		asJSON  bool
	)
	cmd := &cobra.Command{
		Use:   "context",
		Short: "Print the <memory> block an agent's session starts with",
		Long: `Print the session-start context: a <memory> block for an agent's system
prompt, with short instructions on when to search memory and when to save to
it, then the pinned entries, the curator's summaries where there are some,
and the latest entries: of the current project (the git remote of this
folder, or --project) and global ones (entries of no project). It fits
--budget tokens, and the same vault prints the same block, so prompt caches
stay warm. The Claude Code SessionStart hook prints it at every start.`,
		Example: `  ctx0 context
  ctx0 context --project github.com/me/bot0 --budget 800
  ctx0 context --json`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("budget") && budget < extractor.MinContextBudget {
				return usagef("context: --budget %d: want %d or more", budget, extractor.MinContextBudget)
			}
			m, cfg, err := a.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("budget") {
				budget = cfg.Extractor.ContextBudget
			}
			if !cmd.Flags().Changed("project") {
				project = currentProject()
			}
			b, err := extractor.Context(cmd.Context(), m, extractor.ContextOptions{Project: project, Budget: budget})
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(b)
			}
			_, err = fmt.Fprint(a.stdout, b.Text)
			return err
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "the project worked on (default: the git remote of this folder; '' for global entries only)")
	cmd.Flags().IntVar(&budget, "budget", extractor.DefaultContextBudget, "the most tokens the block may take (extractor.context_budget in the config overrides the default)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the block and what is in it as JSON")
	return cmd
}
