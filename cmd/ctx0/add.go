package main

import (
	"context"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ctx0/ctx0/redact"
	"github.com/ctx0/ctx0/vault"
)

// writeResult is what write commands print with --json.
type writeResult struct {
	Name   string       `json:"name"`
	Commit vault.Commit `json:"commit,omitzero"`
}

// printWrite prints a write's result: the entry's name, or JSON. Secrets
// the write redacted are told on stderr, so the person knows the entry
// does not hold what they typed.
func (a *app) printWrite(name string, c vault.Commit) error {
	a.noteRedacted(c)
	return a.out().result(writeResult{Name: name, Commit: c}, func() error { return a.printName(name) })
}

// printName prints the name of the entry a write wrote, if any.
func (a *app) printName(name string) error {
	if name == "" {
		return nil
	}
	_, err := a.stdout.Write([]byte(name + "\n"))
	return err
}

// noteRedacted tells on stderr the secrets a write replaced.
func (a *app) noteRedacted(c vault.Commit) {
	if len(c.Redacted) > 0 {
		a.note("ctx0: redacted %s before storing", redact.Summary(c.Redacted))
	}
}

// stdinBody returns the body piped on stdin, or nil when stdin is a
// terminal (nobody is piping) or empty.
func (a *app) stdinBody() (*string, error) {
	if f, ok := a.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return nil, nil
	}
	body, err := a.readBody()
	if err != nil || body == "" {
		return nil, err
	}
	return &body, nil
}

// addOptions are ctx0 add's flags.
type addOptions struct {
	vault.AddOptions
	tags    string // comma-separated
	body    string
	hasBody bool // --body was given, even empty
}

func (a *app) newAddCmd() *cobra.Command {
	var opts addOptions
	cmd := &cobra.Command{
		Use:   "add NAME --type T",
		Short: "Create an entry from its type's template",
		Long: `Create the entry NAME (a path such as contacts/sarah-chen; a name without a
folder goes to the type's folder). The body is --body, else stdin when piped,
else the type's template. Prints the entry's name. While ctx0 index --watch
(or ctx0 daemon) runs for the vault, the write is handed to it to commit.`,
		Example: `  ctx0 add contacts/sarah-chen --type contact --title "Sarah Chen" --alias Sarah --tags investor
  echo "We chose SQLite for the index." | ctx0 add "Index storage" --type decision --project ctx0`,
		Args: args(1, "one NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			oneWriteGC()
			opts.hasBody = cmd.Flags().Changed("body")
			name, c, err := a.runAdd(cmd.Context(), opts, args[0])
			if err != nil {
				return err
			}
			return a.printWrite(name, c)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Type, "type", "note", "entry type: note, contact, project, decision, preference, fact, episode, insight, milestone, log, scratch, archive, or one declared in .ctx0/config.yaml")
	f.StringVar(&opts.Title, "title", "", "title (default: from the name)")
	f.StringVar(&opts.tags, "tags", "", "comma-separated tags")
	f.StringArrayVar(&opts.Aliases, "alias", nil, "another name for the entry (repeatable)")
	f.StringVar(&opts.Project, "project", "", "the project the entry belongs to (default: global)")
	f.BoolVar(&opts.Pinned, "pin", false, "always load this entry into an agent's context")
	f.StringVar(&opts.Source, "source", "user", "who wrote it: user, agent, auto, librarian, curator")
	f.StringVar(&opts.body, "body", "", "the body (default: stdin, else the template)")
	a.jsonFlag(cmd, "print the name and commit as JSON")
	return cmd
}

// runAdd creates the entry name and returns its full name and commit.
func (a *app) runAdd(ctx context.Context, opts addOptions, name string) (string, vault.Commit, error) {
	o := opts.AddOptions
	o.Name = name
	o.Tags = splitList(opts.tags)
	if opts.hasBody {
		o.Body = &opts.body
	} else {
		b, err := a.stdinBody()
		if err != nil {
			return "", vault.Commit{}, err
		}
		o.Body = b
	}
	v, err := a.openOneWrite(ctx)
	if err != nil {
		return "", vault.Commit{}, err
	}
	return v.Add(ctx, o)
}

// openOneWrite opens the vault for a command that makes one write and
// exits (remember, add). While a watcher runs for the vault, the write is
// handed to it (vault.Vault.HandOff), which has its index open: this
// process then neither opens the index (opened lazily while a watcher
// runs) nor makes the commit, unless the watcher fails it.
func (a *app) openOneWrite(ctx context.Context) (*vault.Vault, error) {
	v, err := a.open(ctx)
	if err != nil {
		return nil, err
	}
	if ix, err := a.services.Index(ctx); err == nil {
		v.HandOff(ix)
	}
	return v, nil
}

// oneWriteGCPercent is the collector's target in a process that makes one
// write and exits (remember, add). Such a process allocates a few MB at
// most, and from the runtime's 4 MB floor the default target (100) made
// it collect two or three times, about a sixth of its CPU (59 against 50
// ms a remember at 10,000 entries, medians of 15 alternating runs); at
// 400 it collects once or not at all, for 10-20 MB of heap.
const oneWriteGCPercent = 400

// oneWriteGC raises the collector's target for a command that makes one
// write and exits, unless GOGC says otherwise.
func oneWriteGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(oneWriteGCPercent)
	}
}

// rememberOptions are ctx0 remember's flags.
type rememberOptions struct {
	vault.RememberOptions
	tags string // comma-separated
}

func (a *app) newRememberCmd() *cobra.Command {
	var opts rememberOptions
	cmd := &cobra.Command{
		Use:   "remember TEXT|-",
		Short: "Quickly save a short, standalone memory",
		Long: `Save TEXT as a new entry, choosing its folder from the type and its name from
the text, and print the entry's name. Without --type, the type is told from
the text: a choice made is a decision, a standing rule or a liking a
preference, something shipped or signed a milestone, a person introduced by
name and role a contact (named for the person), a lasting fact about someone
named a fact, anything else a note. The source is user, or agent when
ctx0 runs in an agent's shell (Claude Code, Codex CLI, Gemini CLI and Cursor
set a variable there), unless --source says. TEXT "-" reads the text from stdin. Text over the vault's limit (default 2000
characters) is refused: keep memories concise and standalone. Text that an entry
already holds returns that entry and writes nothing. While ctx0 index --watch
(or ctx0 daemon) runs for the vault, the write is handed to it to commit.`,
		Example: `  ctx0 remember "The staging deploy key is in 1Password under staging-deploy" --tags infra
  ctx0 remember "User prefers Bun over Node for new TypeScript projects" --type preference --pin`,
		Args: args(1, "one TEXT (quote it)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			oneWriteGC()
			r, err := a.runRemember(cmd.Context(), opts, args[0])
			if err != nil {
				return err
			}
			// A duplicate wrote nothing, so it has nothing redacted either.
			a.noteRedacted(r.Commit)
			return a.out().result(r, func() error {
				if r.Duplicate {
					a.note("Already remembered as %s; nothing written.", r.Name)
				}
				return a.printName(r.Name)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Type, "type", "", "entry type (decides the folder); default: told from the text (decision, preference, milestone, contact, fact or note)")
	f.StringVar(&opts.tags, "tags", "", "comma-separated tags")
	f.StringVar(&opts.Project, "project", "", "the project it belongs to (default: global)")
	f.BoolVar(&opts.Pinned, "pin", false, "always load it into an agent's context; use sparingly")
	f.StringVar(&opts.Source, "source", "", "who wrote it: user, agent, auto, librarian, curator (default: agent in an agent's shell, such as Claude Code's, Codex CLI's, Gemini CLI's or Cursor's; else user)")
	a.jsonFlag(cmd, "print the result as JSON")
	return cmd
}

// runRemember saves text ("-": stdin) as a new entry, or finds the entry
// that already holds it.
func (a *app) runRemember(ctx context.Context, opts rememberOptions, text string) (vault.Remembered, error) {
	o := opts.RememberOptions
	o.Text = text
	if o.Text == "-" {
		t, err := a.readBody()
		if err != nil {
			return vault.Remembered{}, err
		}
		o.Text = t
	}
	o.Tags = splitList(opts.tags)
	if o.Source == "" {
		o.Source = a.writtenBy()
	}
	v, err := a.openOneWrite(ctx)
	if err != nil {
		return vault.Remembered{}, err
	}
	return v.Remember(ctx, o)
}
