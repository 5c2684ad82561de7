package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/export"
	"github.com/ctx0/ctx0/index/query/when"
	"github.com/ctx0/ctx0/redact"
	"github.com/ctx0/ctx0/vault"
)

// exportOptions are ctx0 export's flags.
type exportOptions struct {
	export.Options
	out, format, since string
	changedSince       string
	scope, exclude     string // comma-separated
}

func (a *app) newExportCmd() *cobra.Command {
	var opts exportOptions
	cmd := &cobra.Command{
		Use:   "export --output DIR | --format json|md [--output FILE]",
		Short: "Export the vault: a folder for agents, a JSON backup, or one markdown document",
		Long: `Export the vault for an agent that has no ctx0, or as a backup.

--output DIR writes a folder to crawl with read, glob and grep: CONTEXT.md (how
to read it, the layout with counts, the pinned entries), me.md and every live
entry in its folder, an _index.md in every folder (newest first, one line
each), links rewritten as relative markdown links (links that lead outside
the export stay as text and are counted), and .ctx0/stats.json. Exporting
again to the same folder rewrites only what changed and removes what is gone;
with no change it writes nothing. The new export is built beside the folder
and swapped in, so a reader never sees half of one. DIR must be new, empty or
a previous export: never the vault, and a folder of other files only with
--force, which replaces it.

--format json prints a backup of every entry (its file byte for byte, its
fields, body, aliases and links), archived and superseded ones included,
that ctx0 import brings back. A file that is not a valid entry (bad YAML,
too large, not UTF-8) is kept too, byte for byte, with "unparsed" saying why
("encoding": "base64" when it is not text); one that cannot be read at all
stops the backup with an error naming it. --format md prints one document
to read. Either goes to stdout, or with --output FILE to that file (outside
the vault), written whole or not at all.

Entries are read from the vault's files, edits not yet committed included.
Archived and superseded entries are left out of the folder and the document
unless --all.

--since keeps the entries about what happened since then, as search --since
does: an entry happened when the session it was learned in began, else on
the day its name is filed under (episodes/2026-01/2026-01-28), else when it
was last updated (one that says no time, when its file changed); a fact
learned months ago and filed today is not in "last week". --changed-since
keeps the entries that changed since then by git history (and edits not
yet committed), whatever they tell of: an incremental export or backup.`,
		Example: `  ctx0 export --output ~/ctx0-export
  ctx0 export --output ./context --scope contacts,projects/bot0
  ctx0 export --output ./share --minimal --exclude scratch,inbox --redact
  ctx0 export --output /tmp/recent --since 2026-01-20 --include-versions
  ctx0 export --format json > backup.json
  ctx0 export --format json -o ~/backup.json --changed-since "last week"
  ctx0 export --format md --redact > all.md`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := a.runExport(cmd.Context(), opts)
			if err != nil || opts.format != "folder" {
				return err
			}
			return a.out().result(res, func() error {
				a.noteExport(res)
				return a.printExport(res)
			})
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.out, "output", "o", "", "the folder to export to (with --format json or md, the file)")
	f.StringVar(&opts.format, "format", "folder", "folder (to --output), json (a backup on stdout) or md (one document on stdout)")
	f.StringVar(&opts.scope, "scope", "", "only these folders, entries or types, comma-separated (contacts,projects/bot0)")
	f.StringVar(&opts.exclude, "exclude", "", "leave out these folders, entries or types, comma-separated (inbox,scratch)")
	f.StringVar(&opts.since, "since", "", "only entries about what happened since this date (2026-01-20), time (RFC 3339) or time in words (\"last week\")")
	f.StringVar(&opts.changedSince, "changed-since", "", "only entries changed since this date, time or time in words, by git history")
	f.BoolVar(&opts.All, "all", false, "include archived and superseded entries")
	f.BoolVar(&opts.Minimal, "minimal", false, fmt.Sprintf("keep the frontmatter and the first %d characters of each body", export.MinimalChars))
	f.BoolVar(&opts.Versions, "include-versions", false, "add each entry's earlier versions under .versions/")
	f.BoolVar(&opts.Flatten, "flatten", false, "put every entry in one folder, with names made unique")
	f.BoolVar(&opts.Redact, "redact", false, "replace secrets (API keys, tokens, passwords, private keys) with [REDACTED:kind]")
	f.BoolVar(&opts.Force, "force", false, "replace a folder that is not a previous export")
	a.jsonFlag(cmd, "print what was written as JSON")
	return cmd
}

// runExport exports the vault as opts.format says. A JSON backup or a
// markdown document goes to stdout as it is made, its notes to stderr; a
// folder export returns what it wrote, for the printer.
func (a *app) runExport(ctx context.Context, opts exportOptions) (export.Result, error) {
	o := opts.Options
	o.Scope, o.Exclude, o.Now = splitList(opts.scope), splitList(opts.exclude), a.now
	// The one reading of times, as search --since: dates, RFC 3339 times
	// and times in words ("last week"), against the app's now.
	for _, f := range []struct {
		name, text string
		to         *time.Time
	}{{"--since", opts.since, &o.Since}, {"--changed-since", opts.changedSince, &o.ChangedSince}} {
		if f.text == "" {
			continue
		}
		w, err := when.Range(a.now(), when.Bound{Name: f.name, Text: f.text}, when.Bound{})
		if err != nil {
			return export.Result{}, usagef("export: %v", err)
		}
		*f.to = w.Since
	}
	if err := checkExportFlags(opts.format, opts.out, a.json, o); err != nil {
		return export.Result{}, err
	}
	v, err := a.open(ctx)
	if err != nil {
		return export.Result{}, err
	}
	o.Progress = a.stageProgress()
	write := map[string]func(context.Context, *vault.Vault, io.Writer, export.Options) (export.Result, error){
		"json": export.JSON, "md": export.Markdown,
	}[opts.format]
	if write != nil {
		var res export.Result
		if opts.out != "" {
			res, err = export.ToFile(ctx, v, opts.out, o, write)
		} else {
			res, err = write(ctx, v, a.stdout, o)
		}
		a.noteExport(res)
		if err == nil && opts.out != "" {
			a.note("Wrote %s.", opts.out)
		}
		return res, err
	}
	return export.Folder(ctx, v, opts.out, o)
}

// checkExportFlags refuses combinations of flags that do not make sense.
func checkExportFlags(format, out string, asJSON bool, o export.Options) error {
	switch format {
	case "folder":
		if out == "" {
			return usagef("export needs --output DIR, or --format json|md to print to stdout (see ctx0 export --help)")
		}
		return nil
	case "json", "md":
	default:
		return usagef("export: --format %q: want folder, json or md", format)
	}
	switch {
	case asJSON:
		return usagef("export: --json summarizes a folder export; --format %s prints the export itself", format)
	case o.Flatten || o.Versions || o.Force:
		return usagef("export: --flatten, --include-versions and --force shape a folder; they do not apply to --format %s", format)
	case format == "json" && o.Minimal:
		return usagef("export: --minimal would cut the bodies out of a backup; use --format md --minimal for a short document")
	}
	return nil
}

// stageProgress shows a progress bar per stage of an export on a terminal.
func (a *app) stageProgress() func(stage string, done, total int) {
	bars := map[string]func(done, total int){}
	return func(stage string, done, total int) {
		bar, ok := bars[stage]
		if !ok {
			bar = a.progress(stage)
			bars[stage] = bar
		}
		if bar != nil {
			bar(done, total)
		}
	}
}

// noteExport tells on stderr what a person should know of an export: files
// that could not be read, and the secrets redacted.
func (a *app) noteExport(res export.Result) {
	for _, s := range res.Skipped {
		a.note("ctx0: skipped: %s", s.Error)
	}
	for _, s := range res.Unparsed {
		a.note("ctx0: kept %s byte for byte, as it is not a valid entry: %s", s.Path, s.Error)
	}
	if len(res.Redacted) > 0 {
		a.note("ctx0: redacted %s", redact.Summary(res.Redacted))
	}
}

// printExport says what a folder export wrote.
func (a *app) printExport(res export.Result) error {
	var b strings.Builder
	if res.Written+res.Removed == 0 {
		fmt.Fprintf(&b, "%s is up to date: %d entries, nothing written\n", res.Output, res.Entries)
	} else {
		fmt.Fprintf(&b, "exported %d entries to %s: %d files written, %d unchanged, %d removed\n",
			res.Entries, res.Output, res.Written, res.Unchanged, res.Removed)
	}
	if res.Versions > 0 {
		fmt.Fprintf(&b, "earlier versions: %d\n", res.Versions)
	}
	l := res.Links
	fmt.Fprintf(&b, "links: %d rewritten; left as text: %d to entries not in this export, %d broken, %d ambiguous\n",
		l.Rewritten, l.Outside, l.Broken, l.Ambiguous)
	_, err := a.stdout.Write([]byte(b.String()))
	return err
}
