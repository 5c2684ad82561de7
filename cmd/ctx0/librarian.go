package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/librarian"
	"github.com/ctx0/ctx0/sessions"
)

func (a *app) newLibrarianCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "librarian",
		Short: "File agents' conversations into the vault",
		Long: `The librarian reads finished conversations (read by ctx0 ingest, or handed to
it by a hook or ctx0 dump) and files them into the vault as dated, linked
entries: a section in the day's episode, the project's activity, preferences,
decisions, facts, error fixes, people, milestones and open questions. It
updates or supersedes an entry that already says the same instead of adding a
duplicate.

With a language model configured (llm: in .ctx0/config.yaml), the model
extracts what to file; without one, the librarian works offline, by rules: what
the user asked to remember, preferences and standing rules, decisions, the
user's corrections, errors and their fixes, files written and commands run.`,
		Example: `  ctx0 ingest && ctx0 librarian run --all
  ctx0 librarian run --conversation 12 --json`,
		Args: args(0, "a subcommand: run"),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.newLibrarianRunCmd())
	return cmd
}

// librarianRunOptions are ctx0 librarian run's flags.
type librarianRunOptions struct {
	id     int64 // the conversation to file; 0 for the next
	all    bool  // every ready or queued conversation
	queued bool  // only queued ones
	curate bool  // then the curator, if due
}

func (a *app) newLibrarianRunCmd() *cobra.Command {
	var opts librarianRunOptions
	cmd := &cobra.Command{
		Use:   "run [--conversation ID | --all] [--queued]",
		Short: "File the next finished conversation, one by id, or all of them",
		Long: `File a finished conversation into the vault: the oldest one that is ready
(ctx0 ingest found it over: silent for the gap, or its session ended) or queued
(handed to the librarian by a hook, ctx0 dump or ctx0 ingest --queue); the one
with --conversation ID (an id from ctx0 conversations); or, with --all, every
one in turn. --queued leaves ready conversations alone and files only queued
ones: what the hooks run, so a session's end files that session and a person
chooses when the rest are filed. A conversation still active (the gap has
not passed since its last message) is not filed: the run names each one, the
time left, and the command that files it now (ctx0 ingest FILE --end).

Each is filed by an agent run that reads the vault as of one commit and merges
its changes into the branch field by field, so edits made meanwhile survive
(ctx0 runs lists them). A conversation is filed once: filing it again changes
nothing. If a run fails, its conversation goes to the queue and the vault is
left as it was.

--curate then runs the curator if it is due, as at a session's end (see
ctx0 curator run --if-due): what the Claude Code hook starts in the background
when a session ends.`,
		Example: `  ctx0 ingest && ctx0 librarian run --all
  ctx0 librarian run
  ctx0 librarian run --conversation 12
  ctx0 librarian run --all --json
  ctx0 librarian run --all --queued --curate`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("ready") {
				a.note("ctx0: librarian run: --ready is deprecated, use --all")
			}
			ctx := cmd.Context()
			results, err := a.runLibrarian(ctx, opts, func(res librarian.Result) error {
				// Each as it is filed: with a model, --all over many
				// conversations takes minutes.
				return a.out().progress(func() error { printFiled(a.stdout, res); return nil })
			})
			if err != nil {
				return err
			}
			err = a.out().result(results, func() error {
				switch {
				case len(results) > 0:
				case opts.queued:
					a.note("No conversation is queued for the librarian (see ctx0 conversations).")
				default:
					a.note("No conversation is ready or queued for the librarian (see ctx0 conversations; ctx0 ingest reads sessions).")
				}
				if opts.queued || opts.id != 0 {
					return nil
				}
				return a.noteWaiting(ctx)
			})
			if err != nil || !opts.curate || len(results) == 0 {
				return err
			}
			res, ran, why, err := a.curateIfDue(ctx, true)
			switch {
			case err != nil:
				return err
			case !ran:
				a.note("The curator is not due: %s.", why)
				return nil
			}
			return a.out().progress(func() error { printCurated(a.stdout, res); return nil })
		},
	}
	cmd.Flags().Int64Var(&opts.id, "conversation", 0, "file this conversation (an id from ctx0 conversations)")
	cmd.Flags().BoolVar(&opts.all, "all", false, "file every ready or queued conversation, one after another")
	cmd.Flags().BoolVar(&opts.queued, "queued", false, "file only queued conversations, not ready ones (what the hooks run)")
	// --ready was --all's name; it read as "the ready ones", which it was
	// not, so it stays, hidden, only for scripts that still pass it. (Not
	// cobra's MarkDeprecated: its notice goes to stdout, into --json.)
	cmd.Flags().BoolVar(&opts.all, "ready", false, "file every ready or queued conversation")
	_ = cmd.Flags().MarkHidden("ready")
	cmd.Flags().BoolVar(&opts.curate, "curate", false, "then run the curator if it is due")
	a.jsonFlag(cmd, "print what was filed as JSON")
	return cmd
}

// runLibrarian files the conversation opts.id, the next one, or with
// opts.all every one in turn, calling filed after each. It returns what
// was filed, an empty list when nothing was to file.
func (a *app) runLibrarian(ctx context.Context, opts librarianRunOptions, filed func(librarian.Result) error) ([]librarian.Result, error) {
	if opts.id != 0 && (opts.all || opts.queued) {
		return nil, usagef("librarian run: --conversation excludes --all and --queued")
	}
	if opts.id < 0 {
		return nil, usagef("librarian run: --conversation %d: want an id from ctx0 conversations", opts.id)
	}
	w, err := a.openLibrarian(ctx)
	if err != nil {
		return nil, err
	}
	w.opts.Finished = !opts.queued
	results := []librarian.Result{}
	for {
		res, err := w.run(ctx, opts.id)
		if errors.Is(err, sessions.ErrNoWork) {
			return results, nil
		}
		if err != nil {
			return nil, err
		}
		results = append(results, res)
		if err := filed(res); err != nil {
			return nil, err
		}
		if !opts.all {
			return results, nil
		}
	}
}

// noteWaiting names each conversation a run without --conversation left
// because it is still active, why, and the command that files it now.
func (a *app) noteWaiting(ctx context.Context) error {
	st, err := a.services.Store(ctx)
	if err != nil {
		return err
	}
	waiting, err := st.Waiting(ctx)
	if err != nil {
		return err
	}
	for _, w := range waiting {
		a.note("Not filed: %s.", w.Why())
	}
	return nil
}

// librarianWorker is what librarian runs need, opened once for a command
// or for the worker of ctx0 ingest --watch.
type librarianWorker struct {
	opts librarian.Options
}

// openLibrarian opens the vault, its index (for finding the entries a new
// fact may repeat; the librarian goes on without it), the configured
// language model and the ingest state, the command's own (see container).
func (a *app) openLibrarian(ctx context.Context) (*librarianWorker, error) {
	v, err := a.services.Vault(ctx)
	if err != nil {
		return nil, err
	}
	o := librarian.Options{Vault: v, Now: a.now}
	if ix, err := a.services.Index(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		a.note("ctx0: %v; filing without looking for entries to update", err)
	} else {
		o.Search = ix
	}
	if o.Provider, err = a.services.Model(ctx); err != nil {
		return nil, err
	}
	if o.Store, err = a.services.Store(ctx); err != nil {
		return nil, err
	}
	return &librarianWorker{opts: o}, nil
}

// run files conversation id, or if id is 0 the oldest queued one (or
// ready one, with opts.Finished).
func (w *librarianWorker) run(ctx context.Context, id int64) (librarian.Result, error) {
	o := w.opts
	o.Conversation = id
	return librarian.Run(ctx, o)
}

// printFiled says what a librarian run filed, for people.
func printFiled(w io.Writer, r librarian.Result) {
	c := r.Conversation
	if r.Filed.Already {
		fmt.Fprintf(w, "Conversation %d was filed before (%s); nothing changed.\n", c.ID, r.Filed.Episode)
		return
	}
	fmt.Fprintf(w, "Filed conversation %d (%s, %s) in run %s: %d entries created, %d updated.\n", c.ID, c.Source, orNone(c.Project),
		r.Run.ID, len(r.Filed.Created), len(r.Filed.Updated))
	for _, n := range r.Filed.Created {
		fmt.Fprintf(w, "  created %s\n", n)
	}
	for _, n := range r.Filed.Updated {
		fmt.Fprintf(w, "  updated %s\n", n)
	}
	for _, n := range r.Filed.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if r.Run.Conflicts > 0 {
		fmt.Fprintf(w, "  %s kept aside by the merge (see ctx0 conflicts)\n", count(r.Run.Conflicts, "conflict"))
	}
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "no project"
	}
	return s
}
