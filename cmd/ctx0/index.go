package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/vault"
)

// openIndexed opens the vault this invocation uses and its index, which
// becomes the vault's catalog, for the commands that need the index itself
// (see container.Index).
func (a *app) openIndexed(ctx context.Context) (*vault.Vault, *index.Index, error) {
	v, err := a.services.Vault(ctx)
	if err != nil {
		return nil, nil, err
	}
	ix, err := a.services.Index(ctx)
	if err != nil {
		return nil, nil, err
	}
	return v, ix, nil
}

// attachIndex opens the index of v, building it if needed (with a notice
// and, on a terminal, a progress bar), and makes it v's catalog.
func (a *app) attachIndex(ctx context.Context, v *vault.Vault, opts ...index.Option) (*index.Index, error) {
	ix, err := index.Open(ctx, v, append([]index.Option{
		index.WithClock(a.now),
		index.WithNotify(func(msg string) { a.note("ctx0: %s", msg) }),
		index.WithProgress(a.progress("indexing"))}, opts...)...)
	if err != nil {
		return nil, err
	}
	v.SetCatalog(ix)
	return ix, nil
}

// slowCheck is how long a read's full check may take before ctx0 tells a
// person at a terminal that a watcher would spare it.
const slowCheck = 200 * time.Millisecond

// hintWatcher tells a person at a terminal, after a read, that its full
// check of every file was slow and a running watcher makes it needless.
// Scripts and agents, whose stderr is no terminal, are not told.
func (a *app) hintWatcher(ix *index.Index) {
	rep := ix.LastCheck()
	if rep.Check != index.CheckFull || rep.Took < slowCheck || !a.stderrIsTerminal() {
		return
	}
	if a.watcherFor != "" {
		a.note("ctx0: checking %d files for changes took %s; ctx0 starts a watcher in the background, so the next reads skip this (see ctx0 status)", rep.Checked, rep.Took.Round(time.Millisecond))
		return
	}
	a.note("ctx0: checking %d files for changes took %s; `ctx0 index --watch` in the background keeps the index fresh, so reads skip this", rep.Checked, rep.Took.Round(time.Millisecond))
}

func (a *app) stderrIsTerminal() bool {
	f, ok := a.stderr.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// step says on stderr what work begins, when stderr is a terminal, so a
// person is not left before a silent screen; piped, it says nothing, like
// progress.
func (a *app) step(format string, args ...any) {
	if a.stderrIsTerminal() {
		fmt.Fprintf(a.stderr, "ctx0: "+format+"…\n", args...)
	}
}

// progressMin is the size of a rebuild from which progress is shown.
const progressMin = 300

// progress returns a progress bar for long work on stderr when it is a
// terminal, else nil.
func (a *app) progress(what string) func(done, total int) {
	if !a.stderrIsTerminal() {
		return nil
	}
	f := a.stderr.(*os.File)
	var bar *progressbar.ProgressBar
	return func(done, total int) {
		if total < progressMin {
			return
		}
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription(what),
				progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("files"),
				progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100*time.Millisecond))
		}
		_ = bar.Set(done)
		if done == total {
			_ = bar.Finish()
		}
	}
}

// indexOptions are ctx0 index's flags.
type indexOptions struct {
	rebuild bool          // build the index from nothing
	watch   bool          // keep following the files
	embed   bool          // also embed what changed
	idle    time.Duration // with watch, stop after this long without a request or a change
	auto    bool          // with watch, started by a command for the commands after it
}

// indexed is what ctx0 index did: the check or rebuild, and with --embed
// the embedding.
type indexed struct {
	index.Report
	Embed *index.EmbedReport `json:"embed,omitempty"`
}

// embedded is one embedding of ctx0 index --watch --embed, as it prints it.
type embedded struct {
	Embed index.EmbedReport `json:"embed"`
}

func (a *app) newIndexCmd() *cobra.Command {
	var opts indexOptions
	cmd := &cobra.Command{
		Use:   "index [--rebuild] [--watch [--idle D]] [--embed]",
		Short: "Bring the search index up to date with the files",
		Long: `Bring the search index (.ctx0/index.db, derived from the files and safe to
delete) up to date: files added, changed, removed or renamed by any tool are
found by their size and mtime, then their content. Every ctx0 command does
this for itself; ctx0 index says what it found.

--rebuild builds the index from nothing. --watch keeps running and follows
the file system, so that other commands need not check every file before
they read (ctx0 daemon runs it, with session filing and automatic sync, in
one process). While it runs, it
also answers the searches of other ctx0 processes, and commits the writes
that ctx0 remember and ctx0 add hand to it over .ctx0/index.db-sock.
--idle D (such as 10m) makes it stop after D without a request or a change
to index; without it, it runs until stopped. It also stops when the vault
folder is removed.

You rarely need to start it: when a command reads or writes a vault of
5,000 entries or more and no watcher runs, it starts
ctx0 index --watch --idle 10m in the background for the commands after it
(ctx0 status shows it, marked automatic; its output goes to
.ctx0/state/autowatch.log). A watcher that fails to start is tried again
after a back-off. CTX0_AUTOWATCH=0 turns this off on this machine;
"index: {autowatch: false}" in .ctx0/config.yaml turns it off for every
clone, and cannot turn it on. A watcher you start yourself (or ctx0 daemon,
mcp or ui) takes over from an automatic one.

--embed also chunks and embeds the entries added or changed since they were
last embedded, with the embeddings endpoint of .ctx0/config.yaml (see ctx0
search --help); with --watch, as they change. Search and retrieve embed a
few at a time by themselves; this does all of them now.`,
		Example: `  ctx0 index
  ctx0 index --rebuild --json
  ctx0 index --watch --embed &`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := a.runIndex(cmd.Context(), opts)
			if err != nil || res == nil {
				return err
			}
			if res.Embed == nil {
				return a.out().result(res.Report, func() error { return printReport(a.stdout, res.Report) })
			}
			return a.out().result(res, func() error {
				if err := printReport(a.stdout, res.Report); err != nil {
					return err
				}
				return printEmbedReport(a.stdout, *res.Embed)
			})
		},
	}
	cmd.Flags().BoolVar(&opts.rebuild, "rebuild", false, "build the index from nothing")
	cmd.Flags().BoolVar(&opts.watch, "watch", false, "keep running and follow changes to the files")
	cmd.Flags().BoolVar(&opts.embed, "embed", false, "also embed what changed, with the configured embeddings endpoint")
	cmd.Flags().DurationVar(&opts.idle, "idle", 0, "with --watch, stop after this long without a request or a change (default: run until stopped)")
	cmd.Flags().BoolVar(&opts.auto, "auto", false, "with --watch, mark the watcher as started automatically, for the commands after it")
	_ = cmd.Flags().MarkHidden("auto")
	a.jsonFlag(cmd, "print what was done as JSON (one object per line with --watch)")
	return cmd
}

// runIndex brings the index up to date, or rebuilds it, and with
// opts.embed embeds what changed, and returns what it did; with opts.watch
// it keeps following the files, printing an event per check, batch or
// embedding, until ctx ends, and returns no result.
func (a *app) runIndex(ctx context.Context, opts indexOptions) (*indexed, error) {
	if !opts.watch && (opts.idle != 0 || opts.auto) {
		return nil, usagef("index: --idle and --auto go with --watch")
	}
	if opts.idle < 0 {
		return nil, usagef("index: --idle %v: want a positive duration such as 10m", opts.idle)
	}
	a.ownWatcher = a.ownWatcher || opts.watch
	v, ix, err := a.openIndexed(ctx)
	if err != nil {
		if opts.auto {
			_ = recordWatchFailure(a.dir(), err)
		}
		return nil, err
	}
	var embedder index.Embedder
	if opts.embed {
		if embedder, err = a.embedder(ctx); err != nil {
			return nil, err
		}
	}
	var rep index.Report
	switch {
	case ix.LastCheck().Check == index.CheckRebuild:
		rep = ix.LastCheck() // Open just built it
	case opts.rebuild:
		rep, err = ix.Rebuild(ctx)
	case opts.auto:
		// Watch checks every file first; nobody reads this report, and a
		// check before it would double the time until readers are served.
	default:
		rep, err = ix.Refresh(ctx)
	}
	if err != nil {
		return nil, err
	}
	if !opts.watch {
		if embedder == nil {
			return &indexed{Report: rep}, nil
		}
		erep, err := ix.Embed(ctx, embedder, 0)
		if err != nil {
			return nil, err
		}
		return &indexed{Report: rep, Embed: &erep}, nil
	}
	// The first embedding catches up; the others follow changes.
	out := a.out()
	print := ix.EmbedAfter(ctx, embedder, func(rep index.Report) {
		_ = out.event(rep, func() error { return printReport(a.stdout, rep) })
	}, func(erep index.EmbedReport, err error) {
		if err != nil {
			a.note("ctx0: %v", err)
			return
		}
		_ = out.event(embedded{erep}, func() error { return printEmbedReport(a.stdout, erep) })
	})
	if !opts.auto {
		print(rep)
	}
	a.note("ctx0: watching %s for changes; stop with Ctrl-C", v.Root())
	wopts := []index.WatchOption{index.WatchIdle(opts.idle)}
	if opts.auto {
		wopts = append(wopts, index.WatchAuto(), index.WatchReady(func() { clearWatchFailures(v.Root()) }))
		print = nil // nobody reads its reports (see autoWatchLog)
	}
	err = ix.Watch(ctx, print, wopts...)
	switch {
	case opts.auto && errors.Is(err, index.ErrWatching):
		return nil, nil // started at the same time as another: that one watches
	case opts.auto && err != nil:
		_ = recordWatchFailure(v.Root(), err)
	}
	return nil, err
}

// embedder is the embeddings endpoint of the vault's config.
func (a *app) embedder(ctx context.Context) (index.Embedder, error) {
	e, err := a.services.Embeddings(ctx)
	if err == nil && e == nil {
		if v, verr := a.services.Vault(ctx); verr == nil && slices.Contains(v.Trust().Unapproved, "embeddings.url") {
			return nil, fmt.Errorf("index --embed: this machine has not approved the embeddings endpoint %s names; review it and run ctx0 trust", vault.ConfigFile)
		}
		return nil, fmt.Errorf("index --embed: %s names no embeddings endpoint (an embeddings: section with url and model)", vault.ConfigFile)
	}
	return e, err
}

// printEmbedReport prints what an embedding did.
func printEmbedReport(w io.Writer, r index.EmbedReport) error {
	_, err := fmt.Fprintf(w, "embedded %d entries with %s: %d chunks, %d texts sent (%v)\n",
		r.Entries, r.Model, r.Chunks, r.Embedded, r.Took.Round(1e6))
	return err
}

// printReport prints what a check or a rebuild did.
func printReport(w io.Writer, r index.Report) error {
	took := r.Took.Round(1e6)
	switch r.Check {
	case index.CheckRebuild:
		_, err := fmt.Fprintf(w, "rebuilt the index: %d entries in %v\n", r.Entries, took)
		return err
	case index.CheckPaths:
		_, err := fmt.Fprintf(w, "indexed: %d added, %d updated, %d removed (%v)\n", r.Added, r.Updated, r.Removed, took)
		return err
	}
	_, err := fmt.Fprintf(w, "index up to date: %d entries; %d added, %d updated, %d removed (%d files checked in %v)\n",
		r.Entries, r.Added, r.Updated, r.Removed, r.Checked, took)
	return err
}
