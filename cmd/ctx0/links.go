package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/index"
)

func (a *app) newLinksCmd() *cobra.Command {
	return a.linksCmd("links NAME", "List the links from an entry and where they lead",
		`List the links from the entry NAME: [[wikilinks]] (with |label and #heading),
markdown links to .md files, and the names in its links: field, each with the
entry it leads to, or "broken" when none answers to it.`,
		`  ctx0 links projects/bot0
  ctx0 links sarah --json`, false)
}

func (a *app) newBacklinksCmd() *cobra.Command {
	return a.linksCmd("backlinks NAME", "List the entries that link to an entry",
		`List the links to the entry NAME from other entries: by its name, its bare
slug, its title or an alias, as [[wikilinks]], markdown links or links: fields.`,
		`  ctx0 backlinks contacts/sarah-chen
  ctx0 backlinks sarah --json`, true)
}

// linksCmd builds links (back false) or backlinks (back true).
func (a *app) linksCmd(use, short, long, example string, back bool) *cobra.Command {
	cmd := &cobra.Command{
		Use: use, Short: short, Long: long, Example: example,
		Args: args(1, "one NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, links, err := a.runLinks(cmd.Context(), args[0], back)
			if err != nil {
				return err
			}
			none := fmt.Sprintf("No links from %s.", name)
			if back {
				none = fmt.Sprintf("No entry links to %s.", name)
			}
			return a.listed(links, len(links), none, func() error { return a.printLinks(links, back) })
		},
	}
	a.jsonFlag(cmd, "print a JSON array")
	return cmd
}

// runLinks lists the links from the entry name, or with back the links to
// it, and returns the entry's full name.
func (a *app) runLinks(ctx context.Context, name string, back bool) (string, []index.Link, error) {
	v, ix, err := a.openIndexed(ctx)
	if err != nil {
		return "", nil, err
	}
	defer ix.Close()
	name, err = v.Resolve(ctx, name)
	if err != nil {
		return "", nil, err
	}
	list := ix.Links
	if back {
		list = ix.Backlinks
	}
	links, err := list(ctx, name)
	return name, links, err
}

// printLinks prints links, one per line: where each leads, or for
// backlinks where each comes from, and the link as written.
func (a *app) printLinks(links []index.Link, back bool) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	for _, l := range links {
		end := l.Status // broken or ambiguous
		if l.To != nil {
			end = *l.To
		}
		if back {
			end = l.From
		}
		fmt.Fprintf(tw, "%s\t%s\n", end, written(l))
	}
	return tw.Flush()
}

// written shows a link the way it is written in the entry.
func written(l index.Link) string {
	target := l.Target
	if l.Heading != "" {
		target += "#" + l.Heading
	}
	switch l.Kind {
	case "wiki":
		if l.Label != "" {
			target += "|" + l.Label
		}
		return "[[" + target + "]]"
	case "markdown":
		return "[" + l.Label + "](" + target + ")"
	}
	return "links: " + target
}
