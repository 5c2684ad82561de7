package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/index/query/when"
)

// searchOptions are ctx0 search's flags.
type searchOptions struct {
	q            index.Query // the filters and the limit
	since, until string
	// sessions searches what was said in agents' past sessions instead
	// of the vault: see runSearchSessions.
	sessions bool
}

func (a *app) newSearchCmd() *cobra.Command {
	var opts searchOptions
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the vault, best matches first",
		Long: `Search the names, titles, tags and bodies of the entries (aliases are for
finding an entry by name, not search terms). Results are ranked by BM25, with a
match in the name or title counting more than one in the body, and show a
snippet with the matched terms marked «like this». Words are stemmed, so
"deploying" finds "deploy"; accents are ignored; Chinese, Japanese and Korean
text is found inside longer runs of characters.

A query without operators is a question or a few words: its stop words
("how", "does", "the") are dropped and the entries holding any of the rest
are found, those holding more of them, closer together, first. Its words
that say a time counted from now ("last week", "yesterday", "in the last 30
days", against --now) are not searched for: they keep the entries that
happened, or the sessions that went on, then (the words alone when nothing
was). A day it names ("on 4 April", "April 4th", "the 4th of April",
"2026-04-04", "on the 4th") puts first what names that day in any of those
forms, as retrieve does (with --sessions, the conversation that names it);
a text naming only its month, or the 14th, does not count.

An entry happened when the session it was learned in began (its
conversation field), else on the day its name is filed under
(episodes/2026-01/2026-01-28), else when it was last updated, else created:
the date search shows and --since and --until compare, as retrieve does.
--json gives it as "happened", beside "updated" (the last edit).
Operators are strict:

  how does Sarah like to be contacted    a question: sarah, contacted
  deploy staging       either word, entries with both first
  deploy AND staging   both words, in any order
  "staging deploy"     the words next to each other
  deploy OR release    either word
  deploy NOT staging   deploy but not staging (also: -staging)
  depl*                words starting with "depl"
  title:sarah          a word in one field: name, title, tags or body

Superseded and archived entries, and the curator's summaries (which restate
other entries), are left out unless --all or --type summary. The search sees
every file as it is now, whoever wrote it. With an embeddings endpoint in
.ctx0/config.yaml, results are also found by meaning, and the two scores fused
(text_score and vector_score in --json).`,
		Example: `  ctx0 search deploy key
  ctx0 search 'what does Sarah prefer for scheduling?'
  ctx0 search '"staging deploy" OR rollback' --type decision --limit 5
  ctx0 search sarah --scope contacts --since 2026-01-01 --json
  ctx0 search --sessions deploy --since "last week"`,
		Args: func(c *cobra.Command, got []string) error {
			if len(got) == 0 {
				return usagef("%s takes a QUERY (see %s --help)", cmdName(c), c.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			text := strings.Join(args, " ")
			if opts.sessions {
				hits, err := a.runSearchSessions(cmd.Context(), opts, text)
				if err != nil {
					return err
				}
				return a.out().result(hits, func() error { return a.printSessionHits(text, hits) })
			}
			res, err := a.runSearch(cmd.Context(), opts, text)
			if err != nil {
				return err
			}
			return a.listed(res, len(res), fmt.Sprintf("No entries match %q.", text), func() error { return a.printSearch(text, res) })
		},
	}
	cmd.Flags().IntVarP(&opts.q.Limit, "limit", "n", index.DefaultLimit, fmt.Sprintf("at most this many results, 1 to %d (0: the default)", index.MaxLimit))
	cmd.Flags().StringVar(&opts.q.Type, "type", "", "only entries of this type")
	cmd.Flags().StringVar(&opts.q.Tag, "tag", "", "only entries with this tag")
	cmd.Flags().StringVar(&opts.q.Project, "project", "", "only entries of this project")
	cmd.Flags().StringVar(&opts.q.Scope, "scope", "", "only entries in this folder, such as contacts or episodes/2026-01")
	cmd.Flags().StringVar(&opts.since, "since", "", "only entries that happened, or sessions that went on, since this date (2026-01-28), time (RFC 3339) or time in words (\"last week\")")
	cmd.Flags().StringVar(&opts.until, "until", "", "only entries that happened, or sessions that began, before the end of this date, time or time in words")
	cmd.Flags().BoolVar(&opts.q.All, "all", false, "include superseded and archived entries")
	a.jsonFlag(cmd, "print a JSON array")
	cmd.Flags().BoolVar(&opts.sessions, "sessions", false, "search what was said in past agent sessions (see ctx0 ingest) instead of the vault")
	return cmd
}

// searchQuery makes the query of text and opts, checked as every
// search request is (index.Query.Check): --since and --until read
// against the app's now, and the text read once.
func (a *app) searchQuery(opts searchOptions, text string) (index.Query, error) {
	q := opts.q
	var err error
	if q.Since, q.Until, err = a.timeFlags(opts.since, opts.until); err != nil {
		return q, usagef("search: %v", err)
	}
	q.Text = text
	if err := q.Check(a.now()); err != nil {
		return q, usagef("search: %v", err)
	}
	return q, nil
}

// runSearch searches the vault for text: BM25, fused with vector
// similarity when the vault's config names an embeddings endpoint.
func (a *app) runSearch(ctx context.Context, opts searchOptions, text string) ([]index.HybridResult, error) {
	q, err := a.searchQuery(opts, text)
	if err != nil {
		return nil, err
	}
	m, _, err := a.services.Memory(ctx)
	if err != nil {
		return nil, err
	}
	res, hybrid, err := extractor.Search(ctx, m, q)
	if hybrid.Off != nil {
		a.note("ctx0: embeddings %v; searching by words alone", hybrid.Off)
	}
	a.hintWatcher(m.Index)
	return res, err
}

// printSearch prints search results, best first, for people.
func (a *app) printSearch(query string, res []index.HybridResult) error {
	for i, r := range res {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		title := r.Title
		if title == "" {
			title = "(no title)"
		}
		meta := []string{}
		if r.Type != "" {
			meta = append(meta, r.Type)
		}
		if !r.Happened.IsZero() {
			// When it happened, as retrieve dates it (vault.Happened).
			meta = append(meta, r.Happened.Format(time.DateOnly))
		}
		meta = append(meta, fmt.Sprintf("score %.3g", r.Score))
		fmt.Fprintf(a.stdout, "%s  %s\n  %s\n", r.Name, title, strings.Join(meta, " · "))
		if r.Snippet != "" {
			fmt.Fprintf(a.stdout, "  %s\n", r.Snippet)
		}
	}
	return nil
}

// timeFlags reads --since and --until (see when.Range), times in words
// against the app's now.
func (a *app) timeFlags(since, until string) (from, to time.Time, err error) {
	w, err := when.Range(a.now(), when.Bound{Name: "--since", Text: since}, when.Bound{Name: "--until", Text: until})
	return w.Since, w.Until, err
}
