package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/curator"
	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/librarian"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/worker"
)

// openIngest opens the ingest state of the vault this invocation uses,
// which the command's container closes.
func (a *app) openIngest(ctx context.Context) (*sessions.Store, error) {
	return a.services.Store(ctx)
}

// ingestReport is what ctx0 ingest --json prints: what the ingest did, and
// how many conversations it found finished.
type ingestReport struct {
	sessions.Report
	Finished int `json:"finished"`
	// Folders are the folders read for session files.
	Folders []string `json:"folders,omitempty"`
}

// ingestOptions are ctx0 ingest's flags.
type ingestOptions struct {
	sessions.Options
	files []string // session files to read
	dirs  []string // folders to read every session file in
	watch bool     // keep following dirs
}

func (a *app) newIngestCmd() *cobra.Command {
	var opts ingestOptions
	cmd := &cobra.Command{
		Use:   "ingest [FILE... | --dir D] [--reimport] [--watch]",
		Short: "Read agents' session transcripts into conversations",
		Long: `Read agents' session transcripts into the vault's local ingest state (.ctx0/state/, never committed): their messages, with secrets redacted,
grouped into conversations by silences longer than the gap
(sessions.gap_minutes in .ctx0/config.yaml, default 60). Only what was added
since the last read is read; a file rewritten in place is read again.

FILE (or --file FILE) is a session file of Claude Code, Codex CLI, Gemini
CLI or Cursor; its format is told from its content. Without files or
--dir, ctx0 reads the agents' own folders: Claude Code's
($CLAUDE_CONFIG_DIR/projects, default ~/.claude/projects), Codex CLI's
($CODEX_HOME/sessions, default ~/.codex/sessions), Gemini CLI's
($GEMINI_CLI_HOME/.gemini/tmp, default ~/.gemini/tmp) and Cursor's agent
transcripts (~/.cursor/projects).

--queue hands the files' finished conversations to the librarian; --end
says their sessions are over, so the last conversations are finished too.
--watch keeps running and follows the sessions as agents write them; a
conversation silent for the gap becomes ready. While it runs, it also files
each conversation queued for the librarian (by a hook, ctx0 dump or --queue)
into the vault, one at a time, as ctx0 librarian run --queued does; a run
that fails is printed, and its conversation waits in the queue for the next
try. ctx0 librarian run files the ready ones too. ctx0 daemon runs this
watch on the default folders, with the index watcher and automatic sync, in
one process.`,
		Example: `  ctx0 ingest
  ctx0 ingest --dir ~/.claude/projects-backup --json
  ctx0 ingest ~/.claude/projects/-home-sam-app/5b53….jsonl --end
  ctx0 ingest --watch`,
		RunE: func(cmd *cobra.Command, files []string) error {
			opts.files = append(opts.files, files...)
			rep, err := a.runIngest(cmd.Context(), opts)
			if err != nil || rep == nil {
				return err
			}
			if err := a.out().result(rep, func() error { a.note("%s", rep.summary()); return nil }); err != nil {
				return err
			}
			for _, e := range rep.Errors {
				a.note("ctx0: %s", e)
			}
			if len(rep.Errors) > 0 {
				return fmt.Errorf("ingest: %d of %d session files could not be read", len(rep.Errors), rep.Files)
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&opts.files, "file", nil, "read this session file (repeatable)")
	cmd.Flags().StringArrayVar(&opts.dirs, "dir", nil, "read every session file in this folder, at any depth (repeatable)")
	cmd.Flags().BoolVar(&opts.Reimport, "reimport", false, "read the files again from the start")
	cmd.Flags().BoolVar(&opts.Queue, "queue", false, "hand the files' finished conversations to the librarian")
	cmd.Flags().BoolVar(&opts.End, "end", false, "the sessions are over: finish and queue all their conversations")
	cmd.Flags().BoolVar(&opts.watch, "watch", false, "keep running and follow the sessions as they are written")
	a.jsonFlag(cmd, "print what was read as JSON (with --watch, a JSON object per event)")
	return cmd
}

// runIngest reads the session files of opts (by default, the agents'
// folders) and returns what it read; with opts.watch it follows the
// folders, printing an event per change, until ctx ends, and returns no
// report, nor when a model run of this command files instead.
func (a *app) runIngest(ctx context.Context, opts ingestOptions) (*ingestReport, error) {
	if opts.watch && (len(opts.files) > 0 || opts.Reimport || opts.Queue || opts.End) {
		return nil, usagef("ingest: --watch follows folders (--dir); it takes no files, --reimport, --queue or --end")
	}
	if a.ownModelRun("ingest") {
		return nil, nil
	}
	s, err := a.openIngest(ctx)
	if err != nil {
		return nil, err
	}
	dirs := opts.dirs
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("ingest: --dir %s: not a folder", d)
		}
	}
	if len(opts.files) == 0 && len(dirs) == 0 {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("ingest: find the session folders: %w", err)
		}
		dirs = sessions.DefaultDirs(home, a.getenv)
	}
	if opts.watch {
		return nil, a.watchSessions(ctx, dirs)
	}
	var all []sessions.File
	for _, f := range opts.files {
		file, err := sessions.FileAt(f)
		if err != nil {
			return nil, err
		}
		all = append(all, file)
	}
	for _, d := range dirs {
		found, err := sessions.FindFiles(ctx, d)
		if err != nil {
			return nil, err
		}
		all = append(all, found...)
	}
	o := opts.Options
	o.Progress = a.progress("ingesting")
	rep, err := s.Ingest(ctx, all, o)
	if err != nil {
		return nil, err
	}
	finished, err := s.Refresh(ctx)
	if err != nil {
		return nil, err
	}
	return &ingestReport{rep, len(finished), dirs}, nil
}

// summary is the report in a line for people.
func (r ingestReport) summary() string {
	var b strings.Builder
	if r.Files == 0 && len(r.Folders) > 0 {
		// Where it looked, so that a person whose sessions are elsewhere
		// knows to name them.
		fmt.Fprintf(&b, "No session files in %s (ctx0 ingest FILE or --dir D reads others).", strings.Join(r.Folders, ", "))
		return b.String()
	}
	fmt.Fprintf(&b, "Read %d of %s (%s): %s, %s",
		r.Read, count(r.Files, "session file"), size(r.Bytes), count(r.Messages, "new message"), count(r.Conversations, "new conversation"))
	if r.Reread > 0 {
		fmt.Fprintf(&b, "; %s read again from the start", count(r.Reread, "file"))
	}
	if r.Finished > 0 {
		fmt.Fprintf(&b, "; %s finished", count(r.Finished, "conversation"))
	}
	if r.Queued > 0 {
		fmt.Fprintf(&b, "; %s queued for the librarian", count(r.Queued, "conversation"))
	}
	b.WriteString(".")
	if len(r.Skipped) > 0 {
		kinds := make([]string, 0, len(r.Skipped))
		for k := range r.Skipped {
			kinds = append(kinds, k)
		}
		sort.Slice(kinds, func(i, j int) bool {
			if r.Skipped[kinds[i]] != r.Skipped[kinds[j]] {
				return r.Skipped[kinds[i]] > r.Skipped[kinds[j]]
			}
			return kinds[i] < kinds[j]
		})
		b.WriteString(" Left out:")
		for i, k := range kinds {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %d %s", r.Skipped[k], k)
		}
		b.WriteString(".")
	}
	return b.String()
}

// count is n nouns, for a noun whose plural ends in s.
func count(n int, noun string) string { return words.Plural(n, noun, noun+"s") }

// size is a byte count for people.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// watchEvent is what ingest --watch --json prints per event: what was
// read, or what the librarian filed (or failed to).
type watchEvent struct {
	Time     string                  `json:"time"`
	Started  bool                    `json:"started,omitempty"`
	File     string                  `json:"file,omitempty"`
	Report   *sessions.Report        `json:"report,omitempty"`
	Finished []sessions.Conversation `json:"finished,omitempty"`
	Filed    *librarian.Result       `json:"filed,omitempty"`
	Curated  *curator.Result         `json:"curated,omitempty"`
	Error    string                  `json:"error,omitempty"`
}

// watchSessions follows dirs until Ctrl-C, printing a line per event, and
// files conversations into the vault as they are queued, one at a time,
// running the curator when it is due: the worker, run in the foreground.
func (a *app) watchSessions(ctx context.Context, dirs []string) error {
	w, err := a.openLibrarian(ctx)
	if err != nil {
		return err
	}
	return worker.Run(ctx, worker.Options{
		Librarian: w.opts,
		Dirs:      dirs,
		Curate:    a.curateFunc(),
		Now:       a.now,
		Report:    a.workerReporter(dirs),
	})
}

// curateFunc is the curator run of a worker: run if due.
func (a *app) curateFunc() worker.CurateFunc {
	return func(ctx context.Context, sessionEnd bool) (curator.Result, bool, error) {
		res, ran, _, err := a.curateIfDue(ctx, sessionEnd)
		return res, ran, err
	}
}

// workerReporter prints the worker's events of ctx0 ingest --watch, one
// line each (a JSON object per line with --json).
func (a *app) workerReporter(dirs []string) func(worker.Event) {
	out := a.out()
	return func(e worker.Event) {
		_ = out.event(newWatchEvent(e), func() error { printWorkerEvent(a.stdout, e, dirs); return nil })
	}
}

// newWatchEvent is the JSON form of a worker's event.
func newWatchEvent(e worker.Event) watchEvent {
	we := watchEvent{Time: e.Time.UTC().Format("2006-01-02T15:04:05Z"), Filed: e.Filed, Curated: e.Curated}
	if ie := e.Ingest; ie != nil {
		we.Started, we.File, we.Finished = ie.Started, ie.File, ie.Finished
		if ie.Started || ie.File != "" {
			we.Report = &ie.Report
		}
	}
	switch e.Stage {
	case worker.StageLibrarian:
		we.Error = e.Err.Error()
	case worker.StageCurator:
		we.Error = "curator: " + e.Err.Error()
	}
	return we
}

// printWorkerEvent says what the worker did, in a line or a few, each
// after the local time.
func printWorkerEvent(w io.Writer, e worker.Event, dirs []string) {
	now := e.Time.Local().Format("15:04:05")
	switch {
	case e.Err != nil:
		fmt.Fprintf(w, "%s ctx0: %s: %v\n", now, e.Stage, e.Err)
	case e.Filed != nil:
		fmt.Fprintf(w, "%s ", now)
		printFiled(w, *e.Filed)
	case e.Curated != nil:
		fmt.Fprintf(w, "%s curator: ", now)
		printCurated(w, *e.Curated)
	case e.Ingest != nil:
		ie := e.Ingest
		switch {
		case ie.Started:
			fmt.Fprintf(w, "%s watching %s: %s\n", now, strings.Join(dirs, ", "), ingestReport{Report: ie.Report}.summary())
		case ie.File != "":
			fmt.Fprintf(w, "%s %s: %s\n", now, ie.File, count(ie.Report.Messages, "new message"))
			for _, err := range ie.Report.Errors {
				fmt.Fprintf(w, "%s ctx0: %s\n", now, err)
			}
		}
		for _, c := range ie.Finished {
			fmt.Fprintf(w, "%s conversation %d %s (%s, %d messages)\n", now, c.ID, c.Status, c.Project, c.Messages)
		}
	}
}
