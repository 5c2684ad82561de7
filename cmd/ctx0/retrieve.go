package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/sessions"
)

// openMemory is the container's Memory: what the extractor reads.
func (a *app) openMemory(ctx context.Context) (extractor.Memory, extractor.Config, error) {
	return a.services.Memory(ctx)
}

// currentProject is the project of the folder ctx0 runs in, for commands
// not told one.
func currentProject() string {
	cwd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return sessions.ProjectOf(cwd)
}

// retrieveOptions are ctx0 retrieve's flags.
type retrieveOptions struct {
	scope, project, since, until string
	budget                       int // 0: the config's budget
}

func (a *app) newRetrieveCmd() *cobra.Command {
	var opts retrieveOptions
	cmd := &cobra.Command{
		Use:   "retrieve QUERY",
		Short: "Answer a question from memory: the passages that matter, within a token budget",
		Long: `Answer a question from the vault with a context bundle: a short summary, the
passages that answer it (not whole files), each on one line of title, date
and source file and lines (a past session named once: a later passage of it
says "same session as [n]"), and how confident the answer is (--json adds
each item's score and why it was picked). An entry is quoted without what
its line says already: its title again, where it was learned. A past session is quoted by its
turns, each with its speaker: the one that holds the question's words and
the reply to it (after the tool calls made on the way), and a question the
assistant asked with the user's answer; the conversation that ranks first
is quoted by more of the exchange that follows, to the assistant's last
words before the user speaks again. Of two conversations that tell the same
thing as well, the later goes first. It fits --budget tokens
(counted high, so it fits a model's count too).

Offline it searches the entries and the past sessions (ctx0 ingest) and
ranks their passages on one score, the passage that answers first whichever
holds it; follows links from the best hits to the entries and the people and
projects they name (a project in for its name alone, holding no other word
of the question, is left out); favours recent episodes and entries of the current
project; and leaves out passages that repeat another. An entry the librarian
filed from a session and that session's passages are one source, quoted
once: by the entry when it holds every word of the question the passage
holds and what the passage says. The entry search ranks first is in the
bundle unless a better item holds what it says. Each item is dated when what it tells happened. A
question one of the learned queries' phrases matches runs that query
(ctx0 query list). With an embeddings endpoint in .ctx0/config.yaml,
vector similarity is fused with BM25.

A time said in the question ("last week", "yesterday", "in July 2025", "in
2024", "last spring", "the week before") is read against now (--now for
replays) and keeps only what happened then and not after now, as --since
and --until do; when nothing of that time holds the question's words, what
is dated then is listed. A day the question names ("on 8 May", "May 8th",
"the 8th of May", "2023-05-08", "on the 8th") favours what names that day
in any of these forms (a passage naming only its month, or the 18th, does
not) and what was said on its last occurrence, and keeps out nothing; "8/5"
is not read as a day (which number is the month differs by country). An
event ("since the launch") is dated by what mentions it and favours what
happened in its time.

--scope limits the search to folders; "sessions" names past sessions.`,
		Example: `  ctx0 retrieve "how does Sarah like to be contacted?"
  ctx0 retrieve "staging deploy key" --scope knowledge,decisions --budget 500
  ctx0 retrieve "why did we choose SQLite" --json
  ctx0 retrieve "what did Sarah say last week?" --now 2026-02-01
  ctx0 retrieve "deploy" --since 2026-01-01 --until "last week"`,
		Args: func(c *cobra.Command, got []string) error {
			if len(got) == 0 || strings.TrimSpace(strings.Join(got, " ")) == "" {
				return usagef("%s takes a QUERY (see %s --help)", cmdName(c), c.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("project") {
				opts.project = currentProject()
			}
			b, err := a.runRetrieve(cmd.Context(), opts, strings.Join(args, " "))
			if err != nil {
				return err
			}
			return a.out().result(b, func() error {
				_, err := fmt.Fprint(a.stdout, b.Text())
				return err
			})
		},
	}
	cmd.Flags().StringVar(&opts.scope, "scope", "", "only these folders, comma-separated (contacts,projects/bot0); sessions for past sessions")
	cmd.Flags().IntVar(&opts.budget, "budget", 0, fmt.Sprintf("the most tokens the answer may take, %d to %d (default: extractor.retrieve_budget in the config, else %d)", extractor.MinBudget, extractor.MaxBudget, extractor.DefaultBudget))
	cmd.Flags().StringVar(&opts.project, "project", "", "the project asked from, whose entries rank higher (default: the git remote of this folder)")
	a.jsonFlag(cmd, "print the bundle as JSON")
	cmd.Flags().StringVar(&opts.since, "since", "", "only what happened (entries updated, sessions said) since this date (2026-01-28), time (RFC 3339) or time in words (\"last week\")")
	cmd.Flags().StringVar(&opts.until, "until", "", "only what happened before the end of this date, time or time in words")
	return cmd
}

// runRetrieve answers query from memory within opts.budget tokens, or
// without --budget the vault's retrieve budget.
func (a *app) runRetrieve(ctx context.Context, opts retrieveOptions, query string) (extractor.Bundle, error) {
	from, to, err := a.timeFlags(opts.since, opts.until)
	if err != nil {
		return extractor.Bundle{}, usagef("retrieve: %v", err)
	}
	m, cfg, err := a.openMemory(ctx)
	if err != nil {
		return extractor.Bundle{}, err
	}
	req := extractor.Request{Query: query, Scope: splitList(opts.scope), Budget: opts.budget, Project: opts.project, Since: from, Until: to}
	if req.Budget == 0 {
		req.Budget = cfg.Extractor.RetrieveBudget
	}
	if err := req.Check(m.Time()); err != nil {
		return extractor.Bundle{}, usagef("retrieve: %v", err)
	}
	b, err := extractor.Retrieve(ctx, m, req)
	if err != nil {
		return b, err
	}
	a.hintWatcher(m.Index)
	return b, nil
}
