package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/vault"
)

// sample is the quickstart's demo content: a contact, a project, a decision
// and two quick memories that link to each other.
var sample = []vault.AddOptions{
	{Name: "contacts/sarah-chen", Meta: vault.Meta{Type: "contact", Title: "Sarah Chen", Aliases: []string{"Sarah"}, Tags: []string{"investor"}},
		Body: ptr("Partner at Example Ventures. Met on 2026-01-28 about the seed round; see [[projects/bot0]].\n")},
	{Name: "projects/bot0", Meta: vault.Meta{Type: "project", Title: "bot0", Tags: []string{"product"}, Pinned: true},
		Body: ptr("## Goal\n\nA coding agent with a long-term memory.\n\n## People\n\n- [[Sarah Chen]] (investor)\n")},
	{Name: "decisions/sqlite-for-the-index", Meta: vault.Meta{Type: "decision", Title: "SQLite for the index", Project: "bot0"},
		Body: ptr("## Decision\n\nSearch runs on SQLite FTS5.\n\n## Why\n\nOne file, no server, BM25 ranking built in.\n")},
}

var sampleMemories = []vault.RememberOptions{
	{Text: "Sarah prefers email over calls; reply within a day.", Type: "preference", Tags: []string{"contact"}},
	{Text: "The staging deploy key is in 1Password under staging-deploy.", Type: "fact", Tags: []string{"infra"}, Project: "bot0"},
}

func ptr(s string) *string { return &s }

func (a *app) newQuickstartCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "quickstart",
		Short: "Create a demo vault with sample entries and show it",
		Long: `Create a vault at the vault folder (default ~/.ctx0/vault; see ctx0 --help)
if there is none, add a few sample entries, and show them. Needs no network
and no keys. Running it again adds nothing twice.`,
		Example: `  ctx0 quickstart
  ctx0 quickstart --vault /tmp/demo`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			v, err := a.open(ctx)
			if errors.Is(err, vault.ErrNotVault) {
				if v, _, err = vault.Init(ctx, a.dir(), vault.WithClock(a.now)); err == nil {
					if err = a.buildIndex(ctx, v); err == nil {
						v, err = a.open(ctx)
					}
				}
			}
			if err != nil {
				return err
			}
			a.note("Vault: %s", v.Root())
			for _, s := range sample {
				if _, _, err := v.Add(ctx, s); err != nil && !errors.Is(err, vault.ErrExists) {
					return err
				}
			}
			for _, m := range sampleMemories {
				if _, err := v.Remember(ctx, m); err != nil {
					return err
				}
			}
			list, _, err := v.List(ctx, vault.Filter{})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "$ ctx0 list\n")
			if err := a.printSummaries(false, list); err != nil {
				return err
			}
			d, err := v.Get(ctx, "Sarah")
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "\n$ ctx0 show Sarah   # by alias; also by name, slug or title\n%s", d.Entry.Bytes())
			log, err := v.Log(ctx, 3)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "\n$ ctx0 log -n 3   # every write is one git commit\n")
			if err := a.printLog(false, log); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "\nNext: install the command (go install ./cmd/ctx0), cd %s and try\nctx0 remember \"...\", ctx0 list, ctx0 history sarah; or open the folder in an editor such as\nObsidian. CONTEXT.md there tells agents how to use it.\n", v.Root())
			return nil
		},
	}
}
