package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/curator"
	"github.com/ctx0/ctx0/librarian"
	"github.com/ctx0/ctx0/librarian/ingest"
)

// openIngest opens the ingest state of the vault this invocation uses,
// which the command's container closes.
func (a *app) openIngest(ctx context.Context) (*ingest.Store, error) {
	return a.services.Store(ctx)
}

// ingestReport is what ctx0 ingest --json prints: what the ingest did, and
// how many conversations it found finished.
type ingestReport struct {
	ingest.Report
	Finished int `json:"finished"`
}

func (a *app) newIngestCmd() *cobra.Command {
	var (
		files, dirs   []string
		o             ingest.Options
		watch, asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "ingest [--file F | --dir D] [--reimport] [--watch]",
		Short: "Read agents' session transcripts into conversations",
		Long: `Read Claude Code and Codex CLI session transcripts into the vault's local
ingest state (.ctx0/state/, never committed): their messages, with secrets
redacted, grouped into conversations by silences longer than the gap
(ingest.gap_minutes in .ctx0/config.yaml, default 60). Only what was added
since the last read is read; a file rewritten in place is read again.

Without --file or --dir, ctx0 reads Claude Code's sessions
($CLAUDE_CONFIG_DIR/projects, default ~/.claude/projects) and Codex CLI's
($CODEX_HOME/sessions, default ~/.codex/sessions).

--queue hands the files' finished conversations to the librarian; --end
says their sessions are over, so the last conversations are finished too.
--watch keeps running and follows the sessions as agents write them; a
conversation silent for the gap becomes ready. While it runs, it also files
each conversation queued for the librarian (by a hook, ctx0 dump or --queue)
into the vault, one at a time, as ctx0 librarian run --queued does; a run
that fails is printed, and its conversation waits in the queue for the next
try. ctx0 librarian run files the ready ones too.`,
		Example: `  ctx0 ingest
  ctx0 ingest --dir ~/.claude/projects-backup --json
  ctx0 ingest --file ~/.claude/projects/-home-sam-app/5b53….jsonl --end
  ctx0 ingest --watch`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if watch && (len(files) > 0 || o.Reimport || o.Queue || o.End) {
				return usagef("ingest: --watch follows folders (--dir); it takes no --file, --reimport, --queue or --end")
			}
			if a.ownModelRun("ingest") {
				return nil
			}
			s, err := a.openIngest(ctx)
			if err != nil {
				return err
			}
			for _, d := range dirs {
				if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
					return fmt.Errorf("ingest: --dir %s: not a folder", d)
				}
			}
			if len(files) == 0 && len(dirs) == 0 {
				home, err := os.UserHomeDir()
				if err != nil {
					return fmt.Errorf("ingest: find the session folders: %w", err)
				}
				dirs = ingest.DefaultDirs(home, a.getenv)
			}
			if watch {
				return a.watchSessions(ctx, s, dirs, asJSON)
			}
			var all []ingest.File
			for _, f := range files {
				file, err := ingest.FileAt(f)
				if err != nil {
					return err
				}
				all = append(all, file)
			}
			for _, d := range dirs {
				found, err := ingest.FindFiles(ctx, d)
				if err != nil {
					return err
				}
				all = append(all, found...)
			}
			o.Progress = a.progress("ingesting")
			rep, err := s.Ingest(ctx, all, o)
			if err != nil {
				return err
			}
			finished, err := s.Refresh(ctx)
			if err != nil {
				return err
			}
			out := ingestReport{rep, len(finished)}
			if asJSON {
				if err := a.printJSON(out); err != nil {
					return err
				}
			} else {
				a.note("%s", out.summary())
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
	cmd.Flags().StringArrayVar(&files, "file", nil, "read this session file (repeatable)")
	cmd.Flags().StringArrayVar(&dirs, "dir", nil, "read every *.jsonl session file in this folder, at any depth (repeatable)")
	cmd.Flags().BoolVar(&o.Reimport, "reimport", false, "read the files again from the start")
	cmd.Flags().BoolVar(&o.Queue, "queue", false, "hand the files' finished conversations to the librarian")
	cmd.Flags().BoolVar(&o.End, "end", false, "the sessions are over: finish and queue all their conversations")
	cmd.Flags().BoolVar(&watch, "watch", false, "keep running and follow the sessions as they are written")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was read as JSON (with --watch, a JSON object per event)")
	return cmd
}

// summary is the report in a line for people.
func (r ingestReport) summary() string {
	var b strings.Builder
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

// count is n nouns, in the singular for one.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

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
	Time     string                `json:"time"`
	Started  bool                  `json:"started,omitempty"`
	File     string                `json:"file,omitempty"`
	Report   *ingest.Report        `json:"report,omitempty"`
	Finished []ingest.Conversation `json:"finished,omitempty"`
	Filed    *librarian.Result     `json:"filed,omitempty"`
	Curated  *curator.Result       `json:"curated,omitempty"`
	Error    string                `json:"error,omitempty"`
}

// printJSONLine writes v as one line of JSON on stdout, for a stream of
// events.
func (a *app) printJSONLine(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// fileInterval is how often the watch's librarian looks for queued
// conversations besides when the watch reads something: hooks and ctx0
// dump queue them from other processes, which the watch does not hear of.
const fileInterval = 2 * time.Second

// curateInterval is how often the watch asks whether the curator is due
// (daily, or after enough writes) when no conversation was filed; after a
// conversation is filed it asks at once, as a session has ended.
const curateInterval = time.Hour

// After a failed librarian run, the watch waits fileRetryPause before the
// next, doubling up to fileRetryMax while runs keep failing.
const (
	fileRetryPause = 10 * time.Second
	fileRetryMax   = 5 * time.Minute
)

// watchSessions follows dirs until Ctrl-C, printing a line per event, and
// files conversations into the vault as they are queued (seed 004's queue
// worker), one at a time.
func (a *app) watchSessions(ctx context.Context, s *ingest.Store, dirs []string, asJSON bool) error {
	w, err := a.openLibrarian(ctx)
	if err != nil {
		return err
	}
	var mu sync.Mutex // the watch and the librarian print from their own goroutines
	wake := make(chan struct{}, 1)
	poke := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.fileQueued(ctx, w, wake, &mu, asJSON)
	}()
	poke()
	err = s.Watch(ctx, dirs, ingest.WatchOptions{Notify: func(e ingest.Event) {
		defer poke()
		mu.Lock()
		defer mu.Unlock()
		now := a.now().Local().Format("15:04:05")
		if asJSON {
			we := watchEvent{Time: a.now().UTC().Format("2006-01-02T15:04:05Z"), Started: e.Started, File: e.File, Finished: e.Finished}
			if e.Started || e.File != "" {
				we.Report = &e.Report
			}
			_ = a.printJSONLine(we)
			return
		}
		switch {
		case e.Started:
			fmt.Fprintf(a.stdout, "%s watching %s: %s\n", now, strings.Join(dirs, ", "), ingestReport{Report: e.Report}.summary())
		case e.File != "":
			fmt.Fprintf(a.stdout, "%s %s: %s\n", now, e.File, count(e.Report.Messages, "new message"))
			for _, err := range e.Report.Errors {
				fmt.Fprintf(a.stdout, "%s ctx0: %s\n", now, err)
			}
		}
		for _, c := range e.Finished {
			fmt.Fprintf(a.stdout, "%s conversation %d %s (%s, %d messages)\n", now, c.ID, c.Status, c.Project, c.Messages)
		}
	}})
	<-done
	return err
}

// fileQueued runs the librarian on every queued conversation whenever
// woken or every fileInterval, until ctx ends, and then the curator when
// it is due. A run that fails is printed and its conversation, back in the
// queue, waits: the watch goes on, and tries again after a pause that
// doubles while runs keep failing (a model that is down is not asked every
// few seconds).
func (a *app) fileQueued(ctx context.Context, w *librarianWorker, wake <-chan struct{}, mu *sync.Mutex, asJSON bool) {
	tick := time.NewTicker(fileInterval)
	defer tick.Stop()
	var (
		hold    <-chan time.Time // set after a failure: no run before it fires
		pause   time.Duration
		curated time.Time // when the watch last asked whether the curator is due
	)
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-tick.C:
		case <-hold:
			hold = nil
		}
		if hold != nil {
			continue
		}
		filed := false
		for ctx.Err() == nil {
			res, err := w.run(ctx, 0)
			// A run that ended on its own, filed or failed, is printed even
			// when Ctrl-C came just after it: its outcome is recorded, so
			// the person hears of it; only a run the interrupt cut short
			// is not news.
			if errors.Is(err, ingest.ErrNoWork) || errors.Is(err, context.Canceled) {
				break
			}
			mu.Lock()
			now := a.now().Local().Format("15:04:05")
			switch {
			case asJSON && err != nil:
				_ = a.printJSONLine(watchEvent{Time: a.now().UTC().Format("2006-01-02T15:04:05Z"), Error: err.Error()})
			case asJSON:
				_ = a.printJSONLine(watchEvent{Time: a.now().UTC().Format("2006-01-02T15:04:05Z"), Filed: &res})
			case err != nil:
				fmt.Fprintf(a.stdout, "%s ctx0: librarian: %v\n", now, err)
			default:
				fmt.Fprintf(a.stdout, "%s ", now)
				printFiled(a.stdout, res)
			}
			mu.Unlock()
			if err != nil {
				pause = min(max(2*pause, fileRetryPause), fileRetryMax)
				hold = time.After(pause)
				break
			}
			pause = 0
			filed = true
		}
		if ctx.Err() == nil && (filed || time.Since(curated) >= curateInterval) {
			curated = time.Now()
			a.curateWatched(ctx, filed, mu, asJSON)
		}
	}
}

// curateWatched runs the curator if it is due, printing what it did or
// why it failed; the watch goes on either way.
func (a *app) curateWatched(ctx context.Context, sessionEnd bool, mu *sync.Mutex, asJSON bool) {
	res, ran, _, err := a.curateIfDue(ctx, sessionEnd)
	// As for the librarian, a run that ended on its own is printed even if
	// Ctrl-C came after it; a run the interrupt cut short is not news.
	if !ran && err == nil || errors.Is(err, context.Canceled) {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	stamp := a.now().UTC().Format("2006-01-02T15:04:05Z")
	switch {
	case asJSON && err != nil:
		_ = a.printJSONLine(watchEvent{Time: stamp, Error: "curator: " + err.Error()})
	case asJSON:
		_ = a.printJSONLine(watchEvent{Time: stamp, Curated: &res})
	case err != nil:
		fmt.Fprintf(a.stdout, "%s ctx0: curator: %v\n", a.now().Local().Format("15:04:05"), err)
	default:
		fmt.Fprintf(a.stdout, "%s curator: ", a.now().Local().Format("15:04:05"))
		printCurated(a, res)
	}
}
