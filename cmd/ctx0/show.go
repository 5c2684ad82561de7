package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/vault"
)

// shownEntry is an entry in full, as show --json prints it.
type shownEntry struct {
	vault.Summary
	Frontmatter map[string]any `json:"frontmatter"`
	Body        string         `json:"body"`
}

func (a *app) newShowCmd() *cobra.Command {
	var (
		at     string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Print an entry",
		Long: `Print the entry NAME: its full name, a unique bare slug, its title or any of
its aliases, ignoring case. --at shows it as it was at a git revision.`,
		Example: `  ctx0 show contacts/sarah-chen
  ctx0 show sarah --json
  ctx0 show sarah --at HEAD~3`,
		Args: args(1, "one NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			var d vault.Doc
			if at != "" {
				d, err = v.GetAt(cmd.Context(), args[0], at)
			} else {
				d, err = v.Get(cmd.Context(), args[0])
			}
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(shownEntry{Summary: vault.Summarize(d.Name, d.Entry), Frontmatter: d.Entry.Fields(), Body: d.Entry.Body()})
			}
			_, err = a.stdout.Write(d.Entry.Bytes())
			return err
		},
	}
	cmd.Flags().StringVar(&at, "at", "", "show the entry as of this git revision (commit, branch, HEAD~N)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the entry as JSON")
	return cmd
}

func (a *app) newListCmd() *cobra.Command {
	var (
		f      vault.Filter
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List entries",
		Long: `List the vault's live entries by name, optionally only those of a type, tag or
project, or pinned. Archived and superseded entries are left out, as search
leaves them out: --all lists them too, --archived lists only archived ones.`,
		Example: `  ctx0 list
  ctx0 list --type contact --json
  ctx0 list --tag investor --pinned
  ctx0 list --archived`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.All && f.Archived {
				return usagef("list: --all and --archived exclude each other")
			}
			v, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			if f.Type != "" {
				if err := v.CheckType(f.Type); err != nil {
					return usagef("list: --type: %w", err)
				}
			}
			list, problems, err := v.List(cmd.Context(), f)
			if err != nil {
				return err
			}
			for _, p := range problems {
				a.note("ctx0: skipped: %v", p)
			}
			return a.printSummaries(asJSON, list)
		},
	}
	cmd.Flags().StringVar(&f.Type, "type", "", "only entries of this type")
	cmd.Flags().StringVar(&f.Tag, "tag", "", "only entries with this tag")
	cmd.Flags().StringVar(&f.Project, "project", "", "only entries of this project")
	cmd.Flags().BoolVar(&f.Pinned, "pinned", false, "only pinned entries")
	cmd.Flags().BoolVar(&f.All, "all", false, "archived and superseded entries too")
	cmd.Flags().BoolVar(&f.Archived, "archived", false, "only archived entries")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

// printSummaries prints listed entries, a line each, or as a JSON array.
func (a *app) printSummaries(asJSON bool, list []vault.Summary) error {
	if asJSON {
		return a.printJSON(list)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Type, s.Title)
	}
	return tw.Flush()
}
