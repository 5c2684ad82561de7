package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/transcript"
)

func (a *app) newConversationsCmd() *cobra.Command {
	var status string
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
			list, err := a.runConversations(cmd.Context(), status)
			if err != nil {
				return err
			}
			return a.listed(list, len(list), "No conversations. Run ctx0 ingest, or ctx0 hooks install claude-code.", func() error { return a.printConversations(list) })
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "only conversations of this status: "+statusList())
	a.jsonFlag(cmd, "print a JSON array")
	return cmd
}

// runConversations lists the ingested conversations of status ("": all).
func (a *app) runConversations(ctx context.Context, status string) ([]sessions.Conversation, error) {
	if status != "" && !slices.Contains(sessions.Statuses, sessions.Status(status)) {
		return nil, usagef("conversations: --status %q: want one of %s", status, statusList())
	}
	s, err := a.openIngest(ctx)
	if err != nil {
		return nil, err
	}
	return s.Conversations(ctx, sessions.Status(status))
}

// printConversations prints conversations as a table, for people.
func (a *app) printConversations(list []sessions.Conversation) error {
	return a.writeTable(func(tw io.Writer) {
		fmt.Fprintln(tw, "ID\tSTATUS\tSTARTED\tLENGTH\tMESSAGES\tPROJECT\tNOTE")
		for _, c := range list {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\n", c.ID, c.Status, c.First.Local().Format("2006-01-02 15:04"),
				span(c.Last.Sub(c.First)), c.Messages, c.Project, c.Note)
		}
	})
}

// writeTable writes the tab-separated lines fill writes as aligned
// columns, without the padding tabwriter leaves after the last cell of a
// line whose last column is empty.
func (a *app) writeTable(fill func(tw io.Writer)) error {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fill(tw)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if _, err := fmt.Fprintln(a.stdout, strings.TrimRight(l, " ")); err != nil {
			return err
		}
	}
	return nil
}

func statusList() string {
	var s []string
	for _, st := range sessions.Statuses {
		s = append(s, string(st))
	}
	return strings.Join(s, ", ")
}

// span is a conversation's length for people: 0m, 45m, 2h05m.
func span(d time.Duration) string { return words.Duration(d) }

// shownConversation is a conversation in full, as conversation show --json
// prints it.
type shownConversation struct {
	sessions.Conversation
	Transcript []transcript.Message `json:"transcript"`
}

func (a *app) newConversationCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "conversation",
		Short:   "Show an ingested conversation",
		Example: `  ctx0 conversation show 12`,
	}
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
			c, err := a.runConversationShow(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.out().result(c, func() error { return a.printConversation(c) })
		},
	}
	a.jsonFlag(show, "print the conversation and its messages as JSON")
	cmd.AddCommand(show)
	return cmd
}

// runConversationShow reads the conversation whose ID is arg, with its
// messages.
func (a *app) runConversationShow(ctx context.Context, arg string) (shownConversation, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return shownConversation{}, usagef("conversation show: %q is not a conversation ID (see ctx0 conversations)", arg)
	}
	s, err := a.openIngest(ctx)
	if err != nil {
		return shownConversation{}, err
	}
	c, err := s.Conversation(ctx, id)
	if err != nil {
		return shownConversation{}, err
	}
	msgs, err := s.Messages(ctx, id)
	if err != nil {
		return shownConversation{}, err
	}
	return shownConversation{c, msgs}, nil
}

// printConversation prints a conversation as a transcript, for people.
func (a *app) printConversation(s shownConversation) error {
	c := s.Conversation
	first, last := c.First.Local(), c.Last.Local()
	fmt.Fprintf(a.stdout, "Conversation %d · %s · %s session %s\n", c.ID, c.Status, c.Source, c.Session)
	fmt.Fprintf(a.stdout, "%s · %d messages · %s to %s\n", c.Project, c.Messages,
		first.Format("2006-01-02 15:04"), last.Format("2006-01-02 15:04 MST"))
	if c.Note != "" {
		fmt.Fprintf(a.stdout, "Skipped: %s\n", c.Note)
	}
	fmt.Fprintln(a.stdout)
	return transcript.Render(a.stdout, s.Transcript, time.Local)
}

// runSearchSessions is ctx0 search --sessions: what was said in past
// agent sessions, from the ingest state, even before the librarian has
// filed any of it. Of the vault search's filters, --project, --since and
// --until apply.
func (a *app) runSearchSessions(ctx context.Context, opts searchOptions, text string) ([]sessions.Hit, error) {
	switch q := opts.q; {
	case q.Type != "", q.Tag != "", q.Scope != "", q.All:
		return nil, usagef("search --sessions: --type, --tag, --scope and --all are for entries; sessions take --project, --since and --until")
	}
	q, err := a.searchQuery(opts, text)
	if err != nil {
		return nil, err
	}
	s, err := a.openIngest(ctx)
	if err != nil {
		return nil, err
	}
	return extractor.SearchSessions(ctx, s, sessions.Query{Text: q.Text, Plan: q.Plan, Limit: q.Limit, Project: q.Project, Since: q.Since, Until: q.Until}, a.now())
}

// printSessionHits prints what search --sessions found, for people.
func (a *app) printSessionHits(query string, hits []sessions.Hit) error {
	if len(hits) == 0 {
		a.note("Nothing said in past sessions matches %q.", query)
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
