package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/vault"
)

// printLog prints commits, one line each, or JSON.
func (a *app) printLog(log []vault.LogEntry) error {
	return a.out().result(log, func() error {
		tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
		for _, e := range log {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Hash[:10], e.When.Format("2006-01-02 15:04"), e.Author, e.Subject)
		}
		return tw.Flush()
	})
}

func (a *app) newHistoryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "history NAME",
		Short: "List the commits that changed an entry",
		Long:  `List the commits that changed NAME, newest first, following it through renames.`,
		Example: `  ctx0 history sarah
  ctx0 history contacts/sarah-chen --json`,
		Args: args(1, "one NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			log, err := a.runHistory(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.printLog(log)
		},
	}
	a.jsonFlag(cmd, "print a JSON array")
	return cmd
}

// runHistory lists the commits that changed the entry name.
func (a *app) runHistory(ctx context.Context, name string) ([]vault.LogEntry, error) {
	v, err := a.open(ctx)
	if err != nil {
		return nil, err
	}
	return v.History(ctx, name)
}

// logOptions are ctx0 log's flags.
type logOptions struct {
	n int // how many commits; 0 for all
}

func (a *app) newLogCmd() *cobra.Command {
	var opts logOptions
	cmd := &cobra.Command{
		Use:     "log",
		Short:   "List the vault's recent commits",
		Example: `  ctx0 log -n 5`,
		Args:    args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			log, err := a.runLog(cmd.Context(), opts)
			if err != nil {
				return err
			}
			return a.printLog(log)
		},
	}
	cmd.Flags().IntVarP(&opts.n, "n", "n", 20, "how many commits (0: all)")
	a.jsonFlag(cmd, "print a JSON array")
	return cmd
}

// runLog lists the vault's last opts.n commits.
func (a *app) runLog(ctx context.Context, opts logOptions) ([]vault.LogEntry, error) {
	if opts.n < 0 {
		return nil, usagef("log: -n %d: want a count of 0 or more (0 means all)", opts.n)
	}
	v, err := a.open(ctx)
	if err != nil {
		return nil, err
	}
	return v.Log(ctx, opts.n)
}
