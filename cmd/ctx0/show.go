package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/vault"
)

// shownEntry is an entry in full, as show --json prints it.
type shownEntry struct {
	vault.Summary
	Frontmatter map[string]any `json:"frontmatter"`
	Body        string         `json:"body"`
}

// showOptions are ctx0 show's flags.
type showOptions struct {
	at string // a git revision to show the entry as of; "" for now
}

func (a *app) newShowCmd() *cobra.Command {
	var opts showOptions
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
			d, err := a.runShow(cmd.Context(), opts, args[0])
			if err != nil {
				return err
			}
			return a.out().result(shownEntry{Summary: vault.Summarize(d.Name, d.Entry), Frontmatter: d.Entry.Fields(), Body: d.Entry.Body()}, func() error {
				_, err := a.stdout.Write(d.Entry.Bytes())
				return err
			})
		},
	}
	cmd.Flags().StringVar(&opts.at, "at", "", "show the entry as of this git revision (commit, branch, HEAD~N)")
	a.jsonFlag(cmd, "print the entry as JSON")
	return cmd
}

// runShow reads the entry name, as it is or as it was at opts.at.
func (a *app) runShow(ctx context.Context, opts showOptions, name string) (vault.Doc, error) {
	v, err := a.open(ctx)
	if err != nil {
		return vault.Doc{}, err
	}
	if opts.at != "" {
		return v.GetAt(ctx, name, opts.at)
	}
	return v.Get(ctx, name)
}

func (a *app) newListCmd() *cobra.Command {
	var f vault.Filter
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List entries",
		Long: `List the vault's live entries by name, optionally only those of a type, tag or
project, or pinned. Archived and superseded entries are left out, as search
leaves them out: --all lists them too, --archived lists only archived ones.

Each line gives the name, the type, the date the entry happened (the session
it was learned in, else the day its name is filed under, else its last
update: the date search and retrieve show) and the title. --json gives
"happened" beside "updated", the last edit.`,
		Example: `  ctx0 list
  ctx0 list --type contact --json
  ctx0 list --tag investor --pinned
  ctx0 list --archived`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			list, err := a.runList(cmd.Context(), f)
			if err != nil {
				return err
			}
			return a.listed(list, len(list), noEntries(f), func() error { return a.printSummaryRows(list) })
		},
	}
	cmd.Flags().StringVar(&f.Type, "type", "", "only entries of this type")
	cmd.Flags().StringVar(&f.Tag, "tag", "", "only entries with this tag")
	cmd.Flags().StringVar(&f.Project, "project", "", "only entries of this project")
	cmd.Flags().BoolVar(&f.Pinned, "pinned", false, "only pinned entries")
	cmd.Flags().BoolVar(&f.All, "all", false, "archived and superseded entries too")
	cmd.Flags().BoolVar(&f.Archived, "archived", false, "only archived entries")
	a.jsonFlag(cmd, "print a JSON array")
	return cmd
}

// runList lists the entries f selects. Files it cannot read are told on
// stderr and left out.
func (a *app) runList(ctx context.Context, f vault.Filter) ([]vault.Summary, error) {
	if f.All && f.Archived {
		return nil, usagef("list: --all and --archived exclude each other")
	}
	v, err := a.open(ctx)
	if err != nil {
		return nil, err
	}
	if f.Type != "" {
		if err := v.CheckType(f.Type); err != nil {
			return nil, usagef("list: --type: %w", err)
		}
	}
	list, problems, err := v.List(ctx, f)
	if err != nil {
		return nil, err
	}
	for _, p := range problems {
		a.note("ctx0: skipped: %v", p)
	}
	return list, nil
}

// noEntries says that list found nothing, and when filters chose, that
// they did.
func noEntries(f vault.Filter) string {
	if f.Type == "" && f.Tag == "" && f.Project == "" && !f.Pinned && !f.Archived {
		return "No entries."
	}
	return "No entries match --type, --tag, --project, --pinned or --archived as given."
}

// printSummaries prints listed entries, a line each, or as a JSON array.
func (a *app) printSummaries(list []vault.Summary) error {
	return a.out().result(list, func() error { return a.printSummaryRows(list) })
}

// printSummaryRows prints listed entries, a line each, for people.
func (a *app) printSummaryRows(list []vault.Summary) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	for _, s := range list {
		day := ""
		if !s.Happened.IsZero() {
			day = s.Happened.Format(time.DateOnly)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Type, day, s.Title)
	}
	return tw.Flush()
}
