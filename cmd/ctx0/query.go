package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/ctx0/ctx0/extractor"
)

// queryOptions are ctx0 query's flags.
type queryOptions struct {
	params    []string // KEY=VALUE
	budget    int
	budgetSet bool // --budget was given; else the config's budget
	project   string
}

func (a *app) newQueryCmd() *cobra.Command {
	var opts queryOptions
	cmd := &cobra.Command{
		Use:   "query NAME [--param KEY=VALUE]...",
		Short: "Run a learned query: a named plan that answers a recurring question",
		Long: `Run the learned query NAME from .ctx0/queries.yaml: its steps (search, glob
over names, filter by a field or a date, follow links, read) build a bundle
like retrieve's, within --budget tokens. A retrieve whose question matches
one of a query's phrases runs the query too. Each run counts in the query's
use count and mean latency, kept on this machine (ctx0 query list).

  ctx0 query list             the learned queries, with their use
  ctx0 query save NAME ...    save one (from a question, or YAML)
  ctx0 query rm NAME          remove one

The file's format is in ctx0 query save --help.`,
		Example: `  ctx0 query investor-updates
  ctx0 query investor-updates --param days=30 --json
  ctx0 query list`,
		Args: func(c *cobra.Command, got []string) error {
			if len(got) != 1 {
				return usagef("%s takes one NAME, or list, save or rm (see %s --help)", cmdName(c), c.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.budgetSet = cmd.Flags().Changed("budget")
			if !cmd.Flags().Changed("project") {
				opts.project = currentProject()
			}
			b, err := a.runQuery(cmd.Context(), opts, args[0])
			if err != nil {
				return err
			}
			return a.out().result(b, func() error {
				_, err := fmt.Fprint(a.stdout, b.Text())
				return err
			})
		},
	}
	cmd.Flags().StringArrayVar(&opts.params, "param", nil, "a parameter's value, KEY=VALUE (repeat for several)")
	cmd.Flags().IntVar(&opts.budget, "budget", extractor.DefaultBudget, "the most tokens the answer may take (extractor.retrieve_budget in the config overrides the default)")
	cmd.Flags().StringVar(&opts.project, "project", "", "the value of {project} (default: the git remote of this folder)")
	a.jsonFlag(cmd, "print the bundle as JSON")
	cmd.AddCommand(a.newQueryListCmd(), a.newQuerySaveCmd(), a.newQueryRmCmd())
	return cmd
}

// runQuery runs the learned query name within opts.budget tokens, or
// without --budget the vault's retrieve budget.
func (a *app) runQuery(ctx context.Context, opts queryOptions, name string) (extractor.Bundle, error) {
	vals := map[string]string{}
	for _, p := range opts.params {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return extractor.Bundle{}, usagef("query: --param %q: want KEY=VALUE", p)
		}
		vals[k] = v
	}
	if !opts.budgetSet {
		opts.budget = 0
	}
	var err error
	if opts.budget, err = extractor.CheckBudget(opts.budget, 0, extractor.MinBudget); err != nil {
		return extractor.Bundle{}, usagef("query: %v", err)
	}
	m, cfg, err := a.openMemory(ctx)
	if err != nil {
		return extractor.Bundle{}, err
	}
	if opts.budget == 0 { // no --budget, or --budget 0: the vault's
		opts.budget = cfg.Extractor.RetrieveBudget
	}
	b, err := extractor.RunQuery(ctx, m, name, vals, opts.budget, opts.project)
	if errors.Is(err, extractor.ErrNoQuery) || errors.Is(err, extractor.ErrParam) {
		return b, usageError{err}
	}
	return b, err
}

// queryListing is a learned query as ctx0 query list --json prints it.
type queryListing struct {
	extractor.Query
	Uses         int       `json:"uses"`
	AvgLatencyMS float64   `json:"avg_latency_ms"`
	LastUsed     time.Time `json:"last_used,omitzero"`
}

func (a *app) newQueryListCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the learned queries, with how often and how fast they ran here",
		Example: "  ctx0 query list\n  ctx0 query list --json",
		Args:    args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			list, err := a.runQueryList(cmd.Context())
			if err != nil {
				return err
			}
			return a.listed(list, len(list), "No learned queries yet; save one with ctx0 query save (see ctx0 query save --help).", func() error { return a.printQueries(list) })
		},
	}
	a.jsonFlag(cmd, "print a JSON array")
	return cmd
}

// runQueryList lists the vault's learned queries with their use on this
// machine.
func (a *app) runQueryList(ctx context.Context) ([]queryListing, error) {
	v, err := a.open(ctx)
	if err != nil {
		return nil, err
	}
	qs, err := extractor.LoadQueries(v.Root())
	if err != nil {
		return nil, err
	}
	usage, err := extractor.QueryUsage(v.Root())
	if err != nil {
		return nil, err
	}
	list := []queryListing{}
	for _, q := range qs {
		u := usage[q.Name]
		if q.Phrases == nil {
			q.Phrases = []string{}
		}
		if q.Params == nil {
			q.Params = []extractor.Param{}
		}
		list = append(list, queryListing{Query: q, Uses: u.Uses, AvgLatencyMS: u.AvgLatencyMS(), LastUsed: u.LastUsed})
	}
	return list, nil
}

// printQueries prints learned queries as a table, for people.
func (a *app) printQueries(list []queryListing) error {
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tUSES\tAVG MS\tLAST USED\tPHRASES")
	for _, q := range list {
		last := "-"
		if !q.LastUsed.IsZero() {
			last = q.LastUsed.Format(time.DateOnly)
		}
		fmt.Fprintf(w, "%s\t%d\t%.1f\t%s\t%s\n", q.Name, q.Uses, q.AvgLatencyMS, last, strings.Join(q.Phrases, "; "))
	}
	return w.Flush()
}

func (a *app) newQuerySaveCmd() *cobra.Command {
	var (
		from, scope, file, description string
		phrases                        []string
	)
	cmd := &cobra.Command{
		Use:   "save NAME [--from QUESTION | --file FILE]",
		Short: "Save a learned query, made from a question or written in YAML",
		Long: `Save the learned query NAME in .ctx0/queries.yaml, replacing one of the same
name. Each save is a commit, so every machine sharing the vault (ctx0 sync)
has it.

--from QUESTION makes it from a question as retrieve answers it offline: a
search for its words (in each --scope folder), then the entries the hits
link to; the question becomes its first phrase. Otherwise the query is read
as YAML from --file or stdin:

  description: What investors said lately
  phrases: [investor updates, "what did investors say in the last {days} days"]
  params:
    - {name: days, default: "14"}
  steps:
    - search: investor OR funding     # scope:, type:, tag:, limit: narrow it
    - glob: contacts/*                # names, most recent first
    - filter: tags has investor       # FIELD is|not|has|since|before VALUE
    - links: in                       # out, in or both
    - filter: updated since -{days}d  # a date, RFC 3339, or -7d, -12h, -2w
    - read: 5                         # keep the first 5

A phrase matches a question with the same words, ignoring case and
punctuation; {param} in a phrase stands for one word, its value. {project}
in a step is the current project.`,
		Example: `  ctx0 query save sarah-contact --from "how does Sarah like to be contacted?" --phrase "reaching sarah"
  ctx0 query save investor-updates --file investor-updates.yaml
  ctx0 query save recent-decisions < plan.yaml`,
		Args: args(1, "one NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var q extractor.Query
			var err error
			switch {
			case from != "" && file != "":
				return usagef("query save: --from and --file: give one")
			case from != "":
				if q, err = extractor.FromQuestion(args[0], from, splitList(scope)); err != nil {
					return usageError{err}
				}
			default:
				if scope != "" {
					return usagef("query save: --scope goes with --from")
				}
				var data []byte
				if file != "" {
					data, err = os.ReadFile(file)
				} else {
					data, err = io.ReadAll(a.stdin)
				}
				if err != nil {
					return fmt.Errorf("query save: %w", err)
				}
				if err := yaml.Unmarshal(data, &q); err != nil {
					return usagef("query save: parse the query's YAML: %v", err)
				}
				q.Name = args[0]
			}
			q.Phrases = append(q.Phrases, phrases...)
			if description != "" {
				q.Description = description
			}
			if err := q.Check(); err != nil {
				return usageError{err}
			}
			v, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			if _, err := extractor.SaveQuery(cmd.Context(), v, q); err != nil {
				return err
			}
			a.note("Saved learned query %s in %s.", q.Name, extractor.QueriesFile)
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "make it from this question")
	cmd.Flags().StringVar(&scope, "scope", "", "with --from: only these folders, comma-separated")
	cmd.Flags().StringVar(&file, "file", "", "read the query's YAML from this file (default: stdin)")
	cmd.Flags().StringArrayVar(&phrases, "phrase", nil, "another question it answers (repeat for several)")
	cmd.Flags().StringVar(&description, "description", "", "what it answers, in a few words")
	return cmd
}

func (a *app) newQueryRmCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "rm NAME",
		Short:   "Remove a learned query",
		Example: "  ctx0 query rm investor-updates",
		Args:    args(1, "one NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			if _, err := extractor.RemoveQuery(cmd.Context(), v, args[0]); err != nil {
				if errors.Is(err, extractor.ErrNoQuery) {
					return usageError{err}
				}
				return err
			}
			a.note("Removed learned query %s from %s.", args[0], extractor.QueriesFile)
			return nil
		},
	}
}
