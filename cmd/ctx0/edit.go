package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/vault"
)

// editCmd builds a command that changes one entry and prints its name.
func (a *app) editCmd(use, short, long, example string, nargs int, argNames string,
	do func(cmd *cobra.Command, v *vault.Vault, args []string) (string, vault.Commit, error)) *cobra.Command {
	cmd := &cobra.Command{
		Use: use, Short: short, Long: long, Example: example,
		Args: args(nargs, argNames),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			name, c, err := do(cmd, v, args)
			if err != nil {
				return err
			}
			return a.printWrite(name, c)
		},
	}
	a.jsonFlag(cmd, "print the name and commit as JSON")
	return cmd
}

func (a *app) newWriteCmd() *cobra.Command {
	return a.editCmd("write NAME", "Replace an entry's body with stdin",
		`Replace the body of NAME with what stdin holds, keeping the frontmatter and
bumping updated.`,
		`  echo "Partner at Example Ventures since 2024." | ctx0 write sarah`,
		1, "one NAME (the body comes on stdin)",
		func(cmd *cobra.Command, v *vault.Vault, args []string) (string, vault.Commit, error) {
			body, err := a.readBody()
			if err != nil {
				return "", vault.Commit{}, err
			}
			return v.Write(cmd.Context(), args[0], body)
		})
}

func (a *app) newSetCmd() *cobra.Command {
	return a.editCmd("set NAME FIELD VALUE", "Set one frontmatter field",
		`Set FIELD of NAME to VALUE and bump updated. Known fields are checked: pinned
takes true or false, created/updated/archived an RFC 3339 time or a date,
type a known type, source a known source, and aliases/tags/links "a, b" or a
YAML list. Other fields take any YAML value.`,
		`  ctx0 set sarah pinned true
  ctx0 set sarah tags "investor, seed"
  ctx0 set sarah company "Example Ventures"`,
		3, "NAME FIELD VALUE",
		func(cmd *cobra.Command, v *vault.Vault, args []string) (string, vault.Commit, error) {
			return v.Set(cmd.Context(), args[0], args[1], args[2])
		})
}

func (a *app) newAliasCmd() *cobra.Command {
	return a.editCmd("alias NAME ALIAS", "Give an entry another name",
		`Add ALIAS to the aliases of NAME. Aliases resolve like names (ctx0 show ALIAS)
and are unique across the vault.`,
		`  ctx0 alias contacts/sarah-chen "S. Chen"`,
		2, "NAME ALIAS",
		func(cmd *cobra.Command, v *vault.Vault, args []string) (string, vault.Commit, error) {
			return v.Alias(cmd.Context(), args[0], args[1])
		})
}

func (a *app) newRenameCmd() *cobra.Command {
	return a.editCmd("rename OLD NEW", "Move an entry to a new name",
		`Move OLD to NEW (a NEW without a folder keeps OLD's folder). The old name
becomes an alias, and every [[wikilink]], markdown link and links: item that
pointed at it is rewritten, in one commit. Prints the new name.`,
		`  ctx0 rename contacts/sarah contacts/sarah-chen
  ctx0 rename inbox/idea projects/new-idea`,
		2, "OLD NEW",
		func(cmd *cobra.Command, v *vault.Vault, args []string) (string, vault.Commit, error) {
			return v.Rename(cmd.Context(), args[0], args[1])
		})
}

func (a *app) newRmCmd() *cobra.Command {
	var purge bool
	cmd := a.editCmd("rm NAME", "Archive an entry (or delete it with --purge)",
		`Move NAME to archive/, set archived:, and keep the old name as an alias so
links still resolve. With --purge the file is deleted instead. Either way git
keeps its history (ctx0 history NAME, ctx0 show NAME --at REV). Prints the
archived entry's name.`,
		`  ctx0 rm inbox/old-idea
  ctx0 rm scratch/tmp --purge`,
		1, "one NAME",
		func(cmd *cobra.Command, v *vault.Vault, args []string) (string, vault.Commit, error) {
			return v.Remove(cmd.Context(), args[0], purge)
		})
	cmd.Flags().BoolVar(&purge, "purge", false, "delete the file instead of archiving it")
	return cmd
}

func (a *app) newSupersedeCmd() *cobra.Command {
	var source string
	cmd := a.editCmd("supersede NAME TEXT", "Replace an entry with a newer version",
		`Save TEXT as a new entry that replaces NAME: it takes NAME's type, tags,
project and pin, and NAME gets superseded_by pointing at it. The old entry stays
for history. Prints the new entry's name.`,
		`  ctx0 supersede preferences/editor "User switched from VS Code to Zed in 2026."`,
		2, "NAME TEXT",
		func(cmd *cobra.Command, v *vault.Vault, args []string) (string, vault.Commit, error) {
			return v.Supersede(cmd.Context(), args[0], strings.TrimSpace(args[1]), source)
		})
	cmd.Flags().StringVar(&source, "source", "user", "who wrote it: user, agent, auto, librarian, curator")
	return cmd
}
