package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/agent"
	"github.com/ctx0/ctx0/vault"
)

func (a *app) newRunsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List the librarian's and curator's runs",
		Long: `List agent runs, newest first. A run reads the vault as of a base commit,
commits its changes on refs/ctx0/runs/ID and merges them into the branch field
by field, so writes made meanwhile survive. STATUS is running, done, failed,
cancelled, or died (its process ended without recording an outcome). TOKENS
is input + output; CREATED and UPDATED count entries.`,
		Example: `  ctx0 runs
  ctx0 runs --json
  ctx0 runs show 20260128T100000.000Z-1a2b3c4d`,
		Args: args(0, "no arguments (or the subcommand show)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			runs, err := a.runRuns(cmd.Context())
			if err != nil {
				return err
			}
			return a.listed(runs, len(runs), "No runs.", func() error { return a.printRuns(runs) })
		},
	}
	a.jsonFlag(cmd, "print a JSON array")
	cmd.AddCommand(a.newRunsShowCmd())
	return cmd
}

// runRuns lists the vault's agent runs, newest first.
func (a *app) runRuns(ctx context.Context) ([]agent.Run, error) {
	v, err := a.services.Vault(ctx)
	if err != nil {
		return nil, err
	}
	return agent.List(ctx, v.Root())
}

// printRuns prints runs as a table, for people.
func (a *app) printRuns(runs []agent.Run) error {
	return a.writeTable(func(tw io.Writer) {
		fmt.Fprintln(tw, "ID\tKIND\tSTATUS\tBASE\tRESULT\tMODEL\tTOKENS\tTIME\tCREATED\tUPDATED\tCONFLICTS\tTRIGGER")
		for _, r := range runs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%d\t%d\t%d\t%s\n", r.ID, r.Kind, r.Status,
				shortHash(r.Base), shortHash(r.Result), runModel(r), r.Usage.InputTokens+r.Usage.OutputTokens,
				runTime(r), len(r.Created), len(r.Updated), r.Conflicts, r.Trigger)
		}
	})
}

// shownRun is a run with what it changed, as runs show --json prints it.
type shownRun struct {
	agent.Run
	Changes vault.Diff `json:"changes"`
}

func (a *app) newRunsShowCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a run's record and what it changed",
		Long: `Print the record of run ID (see ctx0 runs) and what the run changed: the
files its commit added, changed or deleted against its base, and a unified
diff of them. For a run that failed, this is what it tried; the branch never
got it.`,
		Example: `  ctx0 runs show 20260128T100000.000Z-1a2b3c4d
  ctx0 runs show 20260128T100000.000Z-1a2b3c4d --json`,
		Args: args(1, "one run ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := a.runRunsShow(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.out().result(out, func() error { return a.printRun(out) })
		},
	}
	a.jsonFlag(cmd, "print the record and changes as JSON")
	return cmd
}

// runRunsShow reads run id's record and what its commit changed.
func (a *app) runRunsShow(ctx context.Context, id string) (shownRun, error) {
	v, err := a.services.Vault(ctx)
	if err != nil {
		return shownRun{}, err
	}
	r, err := agent.Get(ctx, v.Root(), id)
	if err != nil {
		return shownRun{}, err
	}
	changes, err := agent.Changes(ctx, v, r)
	if err != nil {
		return shownRun{}, err
	}
	return shownRun{Run: r, Changes: changes}, nil
}

func (a *app) printRun(s shownRun) error {
	r := s.Run
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, v)
		}
	}
	row("run", r.ID)
	row("kind", r.Kind)
	row("status", r.Status)
	row("trigger", r.Trigger)
	row("base", r.Base)
	row("result", r.Result)
	row("merged", r.Merged)
	row("model", runModel(r))
	row("tokens", fmt.Sprintf("%d in, %d out", r.Usage.InputTokens, r.Usage.OutputTokens))
	if r.Usage.CostUSD > 0 {
		row("cost", "$"+strconv.FormatFloat(r.Usage.CostUSD, 'f', 4, 64))
	}
	row("started", r.Started.Local().Format("2006-01-02 15:04:05"))
	row("time", runTime(r))
	row("conflicts", strconv.Itoa(r.Conflicts))
	row("error", r.Error)
	if err := tw.Flush(); err != nil {
		return err
	}
	// Why each change was made, as the run explained it.
	if len(r.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s: %s\n", n.Entry, n.Text)
		}
	}
	if len(s.Changes.Files) > 0 {
		b.WriteString("\n")
		for _, f := range s.Changes.Files {
			fmt.Fprintf(&b, "%-8s %s\n", f.Action, f.Path)
		}
		b.WriteString("\n" + s.Changes.Patch)
	}
	if _, err := io.Copy(a.stdout, &b); err != nil {
		return err
	}
	if r.Result == "" && r.Status != agent.StatusRunning {
		a.note("The run changed nothing.")
	}
	return nil
}

// shortHash is a commit hash as lists show it; "-" for none.
func shortHash(h string) string {
	if h == "" {
		return "-"
	}
	return h[:min(10, len(h))]
}

func runModel(r agent.Run) string {
	switch {
	case r.Provider == "" && r.Model == "":
		return "-"
	case r.Model == "":
		return r.Provider
	}
	return r.Provider + "/" + r.Model
}

// runTime is how long a run took, for people; "-" until it has ended.
func runTime(r agent.Run) string {
	if r.Ended.IsZero() {
		return "-"
	}
	return r.Duration().Round(100 * time.Millisecond).String()
}
