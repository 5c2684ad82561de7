package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/librarian/ingest"
	"github.com/ctx0/ctx0/librarian/transcript"
)

func (a *app) newConversationsCmd() *cobra.Command {
	var (
		status string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "conversations [--status S]",
		Short: "List the conversations ingested from agents' sessions",
		Long: `List the conversations of the ingested sessions, oldest first: a session's
messages split wherever it fell silent for longer than the gap. A conversation
is active while it may go on, ready once silent for the gap, queued when handed
to the librarian (by a hook, ctx0 dump or ctx0 ingest --queue), processing
while the librarian files it, then archived, or skipped when too short or
insignificant to file (the note says why). Times are local.`,
		Example: `  ctx0 conversations
  ctx0 conversations --status ready
  ctx0 conversations --json`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if status != "" && !slices.Contains(ingest.Statuses, ingest.Status(status)) {
				return usagef("conversations: --status %q: want one of %s", status, statusList())
			}
			s, err := a.openIngest(cmd.Context())
			if err != nil {
				return err
			}
			list, err := s.Conversations(cmd.Context(), ingest.Status(status))
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(list)
			}
			if len(list) == 0 {
				a.note("No conversations. Run ctx0 ingest, or ctx0 hooks install claude-code.")
				return nil
			}
			var b bytes.Buffer
			tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATUS\tSTARTED\tLENGTH\tMESSAGES\tPROJECT\tNOTE")
			for _, c := range list {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\n", c.ID, c.Status, c.First.Local().Format("2006-01-02 15:04"),
					span(c.Last.Sub(c.First)), c.Messages, c.Project, c.Note)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			// No padding after the last cell of a line without a note.
			for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
				if _, err := fmt.Fprintln(a.stdout, strings.TrimRight(l, " ")); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "only conversations of this status: "+statusList())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

func statusList() string {
	var s []string
	for _, st := range ingest.Statuses {
		s = append(s, string(st))
	}
	return strings.Join(s, ", ")
}

// span is a conversation's length for people: 0m, 45m, 2h05m.
func span(d time.Duration) string {
	d = d.Round(time.Minute)
	if d >= time.Hour {
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dm", int(d.Minutes()))
}

// shownConversation is a conversation in full, as conversation show --json
// prints it.
type shownConversation struct {
	ingest.Conversation
	Transcript []transcript.Message `json:"transcript"`
}

func (a *app) newConversationCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "conversation",
		Short:   "Show an ingested conversation",
		Example: `  ctx0 conversation show 12`,
	}
	var asJSON bool
	show := &cobra.Command{
		Use:   "show ID",
		Short: "Print a conversation as a readable transcript",
		Long: `Print the conversation ID (see ctx0 conversations) as a transcript in local
time: what the user and the assistant said, and under the assistant's words
the tools it used (files read and written, commands run). Secrets were
replaced by [REDACTED:kind] when the session was ingested.`,
		Example: `  ctx0 conversation show 12
  ctx0 conversation show 12 --json`,
		Args: args(1, "one conversation ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return usagef("conversation show: %q is not a conversation ID (see ctx0 conversations)", args[0])
			}
			s, err := a.openIngest(cmd.Context())
			if err != nil {
				return err
			}
			c, err := s.Conversation(cmd.Context(), id)
			if err != nil {
				return err
			}
			msgs, err := s.Messages(cmd.Context(), id)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(shownConversation{c, msgs})
			}
			first, last := c.First.Local(), c.Last.Local()
			fmt.Fprintf(a.stdout, "Conversation %d · %s · %s session %s\n", c.ID, c.Status, c.Source, c.Session)
			fmt.Fprintf(a.stdout, "%s · %d messages · %s to %s\n", c.Project, c.Messages,
				first.Format("2006-01-02 15:04"), last.Format("2006-01-02 15:04 MST"))
			if c.Note != "" {
				fmt.Fprintf(a.stdout, "Skipped: %s\n", c.Note)
			}
			fmt.Fprintln(a.stdout)
			return transcript.Render(a.stdout, msgs, time.Local)
		},
	}
	show.Flags().BoolVar(&asJSON, "json", false, "print the conversation and its messages as JSON")
	cmd.AddCommand(show)
	return cmd
}

// searchSessions is ctx0 search --sessions: what was said in past agent
// sessions, from the ingest state, even before the librarian has filed
// any of it. Of the vault search's filters, --project, --since and --until
// apply.
func (a *app) searchSessions(ctx context.Context, q index.Query, asJSON bool) error {
	switch {
	case q.Type != "", q.Tag != "", q.Scope != "", q.All:
		return usagef("search --sessions: --type, --tag, --scope and --all are for entries; sessions take --project, --since and --until")
	}
	s, err := a.openIngest(ctx)
	if err != nil {
		return err
	}
	hits, err := extractor.SearchSessions(ctx, s, ingest.Query{Text: q.Text, Limit: q.Limit, Project: q.Project, Since: q.Since, Until: q.Until}, a.now())
	if err != nil {
		return err
	}
	if asJSON {
		return a.printJSON(hits)
	}
	if len(hits) == 0 {
		a.note("Nothing said in past sessions matches %q.", q.Text)
		return nil
	}
	for i, h := range hits {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		fmt.Fprintf(a.stdout, "conversation %d  %s\n  %s · %s · %s session %s · score %.2f\n  %s\n",
			h.Conversation, h.Project, h.Speaker, h.Time.Local().Format("2006-01-02 15:04"), h.Source, h.Session, h.Score, h.Snippet)
	}
	return nil
}
