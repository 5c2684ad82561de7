package main

import (
	"os"

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
func (a *app) printWrite(asJSON bool, name string, c vault.Commit) error {
	a.noteRedacted(c)
	if asJSON {
		return a.printJSON(writeResult{Name: name, Commit: c})
	}
	if name != "" {
		_, err := a.stdout.Write([]byte(name + "\n"))
		return err
	}
	return nil
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

func (a *app) newAddCmd() *cobra.Command {
	var (
		o       vault.AddOptions
		tags    string
		body    string
		asJSON  bool
		project string
	)
	cmd := &cobra.Command{
		Use:   "add NAME --type T",
		Short: "Create an entry from its type's template",
		Long: `Create the entry NAME (a path such as contacts/sarah-chen; a name without a
folder goes to the type's folder). The body is --body, else stdin when piped,
else the type's template. Prints the entry's name.`,
		Example: `  ctx0 add contacts/sarah-chen --type contact --title "Sarah Chen" --alias Sarah --tags investor
  echo "We chose SQLite for the index." | ctx0 add "Index storage" --type decision --project ctx0`,
		Args: args(1, "one NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			o.Tags = splitList(tags)
			o.Project = project
			if cmd.Flags().Changed("body") {
				o.Body = &body
			} else {
				b, err := a.stdinBody()
				if err != nil {
					return err
				}
				o.Body = b
			}
			v, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			name, c, err := v.Add(cmd.Context(), o)
			if err != nil {
				return err
			}
			return a.printWrite(asJSON, name, c)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Type, "type", "note", "entry type: note, contact, project, decision, preference, fact, episode, insight, milestone, log, scratch, archive, or one declared in .ctx0/config.yaml")
	f.StringVar(&o.Title, "title", "", "title (default: from the name)")
	f.StringVar(&tags, "tags", "", "comma-separated tags")
	f.StringArrayVar(&o.Aliases, "alias", nil, "another name for the entry (repeatable)")
	f.StringVar(&project, "project", "", "the project the entry belongs to (default: global)")
	f.BoolVar(&o.Pinned, "pin", false, "always load this entry into an agent's context")
	f.StringVar(&o.Source, "source", "user", "who wrote it: user, agent, auto, librarian, curator")
	f.StringVar(&body, "body", "", "the body (default: stdin, else the template)")
	f.BoolVar(&asJSON, "json", false, "print the name and commit as JSON")
	return cmd
}

func (a *app) newRememberCmd() *cobra.Command {
	var (
		o      vault.RememberOptions
		tags   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "remember TEXT|-",
		Short: "Quickly save a short, standalone memory",
		Long: `Save TEXT as a new entry, choosing its folder from the type and its name from
the text, and print the entry's name. TEXT "-" reads the text from stdin. Text over the vault's limit (default 2000
characters) is refused: keep memories concise and standalone. Text that an entry
already holds returns that entry and writes nothing.`,
		Example: `  ctx0 remember "The staging deploy key is in 1Password under staging-deploy" --tags infra
  ctx0 remember "User prefers Bun over Node for new TypeScript projects" --type preference --pin`,
		Args: args(1, "one TEXT (quote it)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Text = args[0]
			if o.Text == "-" {
				text, err := a.readBody()
				if err != nil {
					return err
				}
				o.Text = text
			}
			o.Tags = splitList(tags)
			v, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			r, err := v.Remember(cmd.Context(), o)
			if err != nil {
				return err
			}
			if asJSON {
				a.noteRedacted(r.Commit)
				return a.printJSON(r)
			}
			if r.Duplicate {
				a.note("Already remembered as %s; nothing written.", r.Name)
			}
			return a.printWrite(false, r.Name, r.Commit)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Type, "type", "note", "entry type (decides the folder)")
	f.StringVar(&tags, "tags", "", "comma-separated tags")
	f.StringVar(&o.Project, "project", "", "the project it belongs to (default: global)")
	f.BoolVar(&o.Pinned, "pin", false, "always load it into an agent's context; use sparingly")
	f.StringVar(&o.Source, "source", "agent", "who wrote it: user, agent, auto, librarian, curator")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
