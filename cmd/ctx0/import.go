package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/export"
	"github.com/ctx0/ctx0/vault"
)

func (a *app) newImportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import BACKUP.json",
		Short: "Bring the entries of a JSON backup into the vault, in one commit",
		Long: `Bring the entries of BACKUP, a file made by ctx0 export --format json (- reads
stdin), into the vault as one commit. A new entry is written byte for byte as
the backup holds it, so a backup imported into an empty vault gives the same
files. An entry that exists merges with the backup's version field by field;
what cannot be merged is kept aside for ctx0 conflicts. Every entry is checked
first: one bad entry and nothing is written.`,
		Example: `  ctx0 export --format json > backup.json
  ctx0 init ~/restored && ctx0 --vault ~/restored import backup.json
  ctx0 import - --json < backup.json`,
		Args: args(1, "one BACKUP file (- for stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, label, err := a.runImport(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			a.noteRedacted(res.Commit)
			return a.out().result(res, func() error {
				if res.Conflicts > 0 {
					a.note("ctx0: %d conflicts kept aside: see ctx0 conflicts", res.Conflicts)
				}
				_, err := fmt.Fprintf(a.stdout, "imported %s: %d added, %d merged, %d unchanged, %d conflicts\n",
					label, res.Added, res.Merged, res.Unchanged, res.Conflicts)
				return err
			})
		},
	}
	a.jsonFlag(cmd, "print what was imported as JSON")
	return cmd
}

// runImport brings the backup in file ("-": stdin) into the vault, and
// says how it names the backup.
func (a *app) runImport(ctx context.Context, file string) (res vault.Imported, label string, err error) {
	r, label := a.stdin, "stdin"
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return res, "", fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		r, label = f, filepath.Base(file)
	}
	v, err := a.open(ctx)
	if err != nil {
		return res, "", err
	}
	res, err = export.Import(ctx, v, r, label)
	return res, label, err
}
