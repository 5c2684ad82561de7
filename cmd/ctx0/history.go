package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/vault"
)

// printLog prints commits, one line each, or JSON.
func (a *app) printLog(asJSON bool, log []vault.LogEntry) error {
	if asJSON {
		return a.printJSON(log)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	for _, e := range log {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Hash[:10], e.When.Format("2006-01-02 15:04"), e.Author, e.Subject)
	}
	return tw.Flush()
}

func (a *app) newHistoryCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "history NAME",
		Short: "List the commits that changed an entry",
		Long:  `List the commits that changed NAME, newest first, following it through renames.`,
		Example: `  ctx0 history sarah
  ctx0 history contacts/sarah-chen --json`,
		Args: args(1, "one NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			log, err := v.History(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.printLog(asJSON, log)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

func (a *app) newLogCmd() *cobra.Command {
	var (
		n      int
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:     "log",
		Short:   "List the vault's recent commits",
		Example: `  ctx0 log -n 5`,
		Args:    args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if n < 0 {
				return usagef("log: -n %d: want a count of 0 or more (0 means all)", n)
			}
			v, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			log, err := v.Log(cmd.Context(), n)
			if err != nil {
				return err
			}
			return a.printLog(asJSON, log)
		},
	}
	cmd.Flags().IntVarP(&n, "n", "n", 20, "how many commits (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}
