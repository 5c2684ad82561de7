package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/transcript"
	"github.com/ctx0/ctx0/vault"
)

// sample is the quickstart's demo content: a contact, a project, a decision
// and two quick memories that link to each other.
var sample = []vault.AddOptions{
	{Name: "contacts/sarah-chen", Meta: vault.Meta{Type: "contact", Title: "Sarah Chen", Aliases: []string{"Sarah"}, Tags: []string{"investor"}},
		Body: ptr("Partner at Example Ventures. Met on 2026-01-28 about the seed round; see [[projects/bot0]].\n")},
	{Name: "projects/bot0", Meta: vault.Meta{Type: "project", Title: "bot0", Tags: []string{"product"}, Pinned: true},
		Body: ptr("## Goal\n\nA coding agent with a long-term memory.\n\n## People\n\n- [[Sarah Chen]] (investor)\n")},
	{Name: "decisions/sqlite-for-the-index", Meta: vault.Meta{Type: "decision", Title: "SQLite for the index", Project: "bot0"},
		Body: ptr("## Decision\n\nSearch runs on SQLite FTS5.\n\n## Why\n\nOne file, no server, BM25 ranking built in.\n")},
}

var sampleMemories = []vault.RememberOptions{
	{Text: "Sarah prefers email over calls; reply within a day.", Type: "preference", Tags: []string{"contact"}},
	{Text: "The staging deploy key is in 1Password under staging-deploy.", Type: "fact", Tags: []string{"infra"}, Project: "bot0"},
}

// sampleSession is an agent's session handed over as ctx0 dump would take
// it, for the librarian to file: the quickstart's main job, offline.
const sampleSession = `{"sessionId": "quickstart-1", "agent": "demo",
 "context": {"workingDir": "/src/bot0", "project": "bot0"},
 "messages": [
  {"role": "user", "content": "Let's set up the staging deploy for bot0. Remember that staging deploys go out on Tuesdays.", "timestamp": "2026-01-28T09:00:00Z"},
  {"role": "assistant", "content": "Added a deploy-staging target to the Makefile; it runs on Tuesdays.", "timestamp": "2026-01-28T09:04:00Z"},
  {"role": "user", "content": "We decided to keep the search index in SQLite because it is one file and needs no server.", "timestamp": "2026-01-28T09:06:00Z"},
  {"role": "assistant", "content": "Noted; the index stays in SQLite.", "timestamp": "2026-01-28T09:07:00Z"},
  {"role": "user", "content": "From now on, run the tests before every deploy. Priya Patel is my cofounder; she reviews the deploys.", "timestamp": "2026-01-28T09:08:00Z"},
  {"role": "assistant", "content": "Done: deploy-staging now runs make test first.", "timestamp": "2026-01-28T09:10:00Z"},
  {"role": "user", "content": "It works. We just shipped the bot0 beta to the first ten users!", "timestamp": "2026-01-28T09:12:00Z"},
  {"role": "assistant", "content": "Congratulations on the beta.", "timestamp": "2026-01-28T09:13:00Z"}],
 "toolCalls": [
  {"tool": "edit_file", "input": {"path": "Makefile"}, "output": "ok", "timestamp": "2026-01-28T09:03:00Z"},
  {"tool": "bash", "input": {"command": "make deploy-staging"}, "output": "ok", "timestamp": "2026-01-28T09:09:00Z"}]}`

func ptr(s string) *string { return &s }

func (a *app) newQuickstartCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "quickstart",
		Short: "Create a demo vault with sample entries and show it",
		Long: `Create a demo vault in ~/.ctx0/demo if there is none, add a few sample
entries, hand over a sample agent session and have the librarian file it, then
answer a question from the vault. Needs no network and no keys (unless the
vault's config names a model). Running it again adds nothing twice.

The demo stays apart from your own memory: it is not the default vault
(~/.ctx0/vault), nor $CTX0_VAULT, nor the vault of the folder you are in, so
its sample people never mix with yours or reach your agents' sessions. Give
--vault to put it somewhere else.`,
		Example: `  ctx0 quickstart
  ctx0 quickstart --vault /tmp/demo`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if a.vaultDir == "" {
				// Only a folder the person names holds the demo; every
				// later command of this run opens it through a.dir().
				home, err := os.UserHomeDir()
				if err != nil {
					return fmt.Errorf("quickstart: find the home folder for the demo vault: %w (give --vault)", err)
				}
				a.vaultDir = filepath.Join(home, ".ctx0", "demo")
			}
			a.step("opening the vault")
			v, err := a.open(ctx)
			if errors.Is(err, vault.ErrNotVault) {
				a.step("creating the demo vault and its index")
				if v, _, err = vault.Init(ctx, a.dir(), vault.WithClock(a.now)); err == nil {
					if err = a.buildIndex(ctx, v); err == nil {
						v, err = a.open(ctx)
					}
				}
			}
			if err != nil {
				return err
			}
			a.note("Vault: %s", v.Root())
			a.step("adding sample entries")
			for _, s := range sample {
				if _, _, err := v.Add(ctx, s); err != nil && !errors.Is(err, vault.ErrExists) {
					return err
				}
			}
			for _, m := range sampleMemories {
				if _, err := v.Remember(ctx, m); err != nil {
					return err
				}
			}
			list, _, err := v.List(ctx, vault.Filter{})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "$ ctx0 list\n")
			if err := a.printSummaries(list); err != nil {
				return err
			}
			d, err := v.Get(ctx, "Sarah")
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "\n$ ctx0 show Sarah   # by alias; also by name, slug or title\n%s", d.Entry.Bytes())
			log, err := v.Log(ctx, 3)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "\n$ ctx0 log -n 3   # every write is one git commit\n")
			if err := a.printLog(log); err != nil {
				return err
			}
			if err := a.quickstartSession(ctx); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "\nThe demo vault is %[1]s, apart from your own memory.\nNext: install the command (%[2]s), cd %[1]s and try\nctx0 remember \"...\", ctx0 list, ctx0 history sarah, ctx0 runs; open the folder in an\neditor such as Obsidian; CONTEXT.md there tells agents how to use it.\nFor your own memory: ctx0 init (the default vault, ~/.ctx0/vault), then\nctx0 hooks install claude-code (or codex, gemini, cursor) hands that agent's\nsessions to its librarian.\n", v.Root(), installHint)
			return nil
		},
	}
}

// quickstartSession hands sampleSession to the librarian, files it, and
// retrieves from what it filed.
func (a *app) quickstartSession(ctx context.Context) error {
	lg, err := transcript.ParseSessionLog([]byte(sampleSession), a.now())
	if err != nil {
		return err
	}
	s, err := a.openIngest(ctx)
	if err != nil {
		return err
	}
	if _, err := s.IngestLog(ctx, lg); err != nil {
		return err
	}
	a.step("filing a sample session with the librarian")
	w, err := a.openLibrarian(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\n$ ctx0 dump < session.json && ctx0 librarian run   # an agent's session, filed offline\n")
	switch res, err := w.run(ctx, 0); {
	case errors.Is(err, sessions.ErrNoWork):
		fmt.Fprintln(a.stdout, "(filed before: ctx0 runs lists the run)")
	case err != nil:
		return err
	default:
		printFiled(a.stdout, res)
	}
	m, _, err := a.openMemory(ctx)
	if err != nil {
		return err
	}
	const q = "when do staging deploys go out?"
	a.step("retrieving from the vault")
	b, err := extractor.Retrieve(ctx, m, extractor.Request{Query: q, Budget: 300})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\n$ ctx0 retrieve %q --budget 300\n%s", q, b.Text())
	return nil
}
