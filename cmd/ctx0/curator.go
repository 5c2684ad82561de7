package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/curator"
	"github.com/ctx0/ctx0/vault"
)

func (a *app) newCuratorCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "curator",
		Short: "Keep the vault small to load, free of duplicates and well linked",
		Long: `The curator tends the vault: it merges duplicate entries (the survivor keeps
every fact, the other name becomes an alias, links are rewritten), links
entries that mention each other by name, archives stale scratch and inbox
entries, lets preferences seen once fade while those seen again grow surer,
settles merge conflicts where one side is clearly newer, and writes the
summaries the session-start context block loads. Every change is explained
in its run (ctx0 runs show ID) and undone with git.

Settings go under curator: in .ctx0/config.yaml (stale_after, summarize_after,
compact_after, half_life, threshold, every, clearly_newer). With a language
model configured (llm:), it decides duplicates among candidates and writes
the summaries; without one, only clear duplicates merge and summaries quote
the entries.`,
		Example: `  ctx0 curator run --dry-run
  ctx0 curator run --if-due
  ctx0 curator schedule`,
		Args: args(0, "a subcommand: run or schedule"),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.newCuratorRunCmd(), a.newCuratorScheduleCmd())
	return cmd
}

// curatorRunOptions are ctx0 curator run's flags.
type curatorRunOptions struct {
	dryRun     bool // plan, change nothing
	ifDue      bool // run only if a run is due
	sessionEnd bool // a session ended: summarize whatever is new
}

func (a *app) newCuratorRunCmd() *cobra.Command {
	var opts curatorRunOptions
	cmd := &cobra.Command{
		Use:   "run [--dry-run] [--if-due] [--session-end] [--json]",
		Short: "Curate the vault once",
		Long: `Curate the vault in an isolated run: it reads the vault as of one commit,
makes its changes as one commit and merges that into the branch field by
field, so what is written meanwhile stays. --dry-run prints the plan and
changes nothing: it lists the changes and the files the run would commit.
--if-due runs only when a run is due (the first, a day after
the last, or after 20 entries written), and is cheap when none is; with
--session-end, any entry written since the last run makes one due and is
summarized.`,
		Example: `  ctx0 curator run
  ctx0 curator run --dry-run --json
  ctx0 curator run --if-due --session-end`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, ran, why, err := a.runCurator(cmd.Context(), opts)
			if err != nil {
				return err
			}
			if !ran {
				return a.out().result(map[string]any{"ran": false, "why": why}, func() error {
					a.note("Nothing is due: %s.", why)
					return nil
				})
			}
			return a.out().result(res, func() error { printCurated(a.stdout, res); return nil })
		},
	}
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "print the plan and change nothing")
	cmd.Flags().BoolVar(&opts.ifDue, "if-due", false, "run only if a run is due")
	cmd.Flags().BoolVar(&opts.sessionEnd, "session-end", false, "a session ended: summarize whatever is new")
	a.jsonFlag(cmd, "print the changes as JSON")
	return cmd
}

// runCurator curates the vault once, or with opts.ifDue only when a run is
// due; ran is false, and why says why, when none is.
func (a *app) runCurator(ctx context.Context, opts curatorRunOptions) (res curator.Result, ran bool, why string, err error) {
	if opts.dryRun && opts.ifDue {
		return res, false, "", usagef("curator run: --dry-run and --if-due exclude each other")
	}
	if opts.ifDue {
		return a.curateIfDue(ctx, opts.sessionEnd)
	}
	v, cfg, err := a.curatorVault(ctx)
	if err != nil {
		return res, false, "", err
	}
	o := curator.Options{Vault: v, Config: &cfg, DryRun: opts.dryRun, SessionEnd: opts.sessionEnd, Now: a.now}
	if err := a.curatorHelpers(ctx, &o); err != nil {
		return res, false, "", err
	}
	res, err = curator.Run(ctx, o)
	return res, err == nil, "", err
}

// curateIfDue runs the curator on the vault if a run is due (curator.Due),
// with the configured model; ran is false, and why says why, when none is.
// It is cheap when nothing is due: it reads the curator's state and the
// list of files changed since the last run, and opens neither the model
// nor the index. For ctx0 ingest --watch after it files conversations,
// with sessionEnd set when a session ended.
func (a *app) curateIfDue(ctx context.Context, sessionEnd bool) (res curator.Result, ran bool, why string, err error) {
	v, cfg, err := a.curatorVault(ctx)
	if err != nil {
		return res, false, "", err
	}
	due, why, err := curator.Due(ctx, v, cfg, a.now(), sessionEnd)
	if err != nil || !due {
		return res, false, why, err
	}
	o := curator.Options{Vault: v, Config: &cfg, SessionEnd: sessionEnd, Now: a.now, Trigger: "due: " + why}
	if err := a.curatorHelpers(ctx, &o); err != nil {
		return res, false, "", err
	}
	return curator.RunIfDue(ctx, o)
}

// curatorVault opens the vault a curator run works on, and reads the
// curator's settings from it.
func (a *app) curatorVault(ctx context.Context) (*vault.Vault, curator.Config, error) {
	v, err := a.services.Vault(ctx)
	if err != nil {
		return nil, curator.Config{}, err
	}
	cfg, err := a.services.CuratorConfig(ctx)
	return v, cfg, err
}

// curatorHelpers gives a run the configured language model and, with
// one, the index to find candidate duplicates in.
func (a *app) curatorHelpers(ctx context.Context, o *curator.Options) (err error) {
	if o.Provider, err = a.services.Model(ctx); err != nil {
		return err
	}
	if llm.IsOffline(o.Provider) {
		return nil
	}
	ix, err := a.services.Index(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		a.note("ctx0: %v; looking for duplicates by name only", err)
		return nil
	}
	o.Search = ix
	return nil
}

// printCurated prints what a curator run did, or would do, for people.
func printCurated(w io.Writer, res curator.Result) {
	switch {
	case res.DryRun && len(res.Changes) == 0:
		fmt.Fprintln(w, "Nothing to do.")
	case res.DryRun:
		fmt.Fprintf(w, "Would make %s (dry run: nothing changed):\n", count(len(res.Changes), "change"))
	case len(res.Changes) == 0:
		fmt.Fprintf(w, "Nothing to do (run %s).\n", res.Run.ID)
	default:
		fmt.Fprintf(w, "Made %s in run %s (ctx0 runs show %s):\n", count(len(res.Changes), "change"), res.Run.ID, res.Run.ID)
	}
	for _, c := range res.Changes {
		fmt.Fprintf(w, "  %s\n", c)
	}
	for _, id := range res.Resolved {
		fmt.Fprintf(w, "  conflict %s resolved\n", id)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if res.Run != nil && res.Run.Conflicts > 0 {
		fmt.Fprintf(w, "  %s kept aside by the merge (see ctx0 conflicts)\n", count(res.Run.Conflicts, "conflict"))
	}
	// The files, so that a dry run shows exactly what the run commits.
	if len(res.Files) > 0 {
		verb := "Committed"
		if res.DryRun {
			verb = "Would commit"
		}
		fmt.Fprintf(w, "%s %s:\n", verb, count(len(res.Files), "file"))
		for _, f := range res.Files {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
}

func (a *app) newCuratorScheduleCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schedule",
		Short: "Print a cron line and a systemd timer that run the curator",
		Long: `Print what to install to run the curator regularly without ctx0 ingest
--watch: a crontab line, and a systemd user service and timer. They run
ctx0 curator run --if-due every hour, which does nothing when nothing is due.
Nothing is installed: copy what you prefer.`,
		Example: `  ctx0 curator schedule
  ctx0 curator schedule | head -1 >> mycrontab`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.runCuratorSchedule(cmd.Context())
			if err != nil {
				return err
			}
			return a.out().result(s, func() error {
				fmt.Fprintf(a.stdout, "# crontab -e, then add:\n%s\n", s.Cron)
				fmt.Fprintf(a.stdout, "# or ~/.config/systemd/user/ctx0-curator.service:\n%s\n", s.Service)
				fmt.Fprintf(a.stdout, "# and ~/.config/systemd/user/ctx0-curator.timer, then systemctl --user enable --now ctx0-curator.timer:\n%s", s.Timer)
				return nil
			})
		},
	}
	a.jsonFlag(cmd, "print the cron line and the units as JSON")
	return cmd
}

// runCuratorSchedule makes the cron line and systemd units that run this
// ctx0 ($CTX0_SCHEDULE_EXE, for tests) on the vault.
func (a *app) runCuratorSchedule(ctx context.Context) (curator.Schedule, error) {
	v, err := a.services.Vault(ctx)
	if err != nil {
		return curator.Schedule{}, err
	}
	exe, err := os.Executable()
	if err != nil || a.getenv("CTX0_SCHEDULE_EXE") != "" {
		exe = a.getenv("CTX0_SCHEDULE_EXE")
	}
	if exe == "" {
		exe = "ctx0"
	}
	root, _ := filepath.Abs(v.Root())
	return curator.MakeSchedule(exe, root), nil
}
