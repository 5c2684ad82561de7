package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/export"
)

func (a *app) newImportCmd() *cobra.Command {
	var asJSON bool
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
			ctx := cmd.Context()
			var (
				r     io.Reader = a.stdin
				label           = "stdin"
			)
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return fmt.Errorf("import: %w", err)
				}
				defer f.Close()
				r, label = f, filepath.Base(args[0])
			}
			v, err := a.open(ctx)
			if err != nil {
				return err
			}
			res, err := export.Import(ctx, v, r, label)
			if err != nil {
				return err
			}
			a.noteRedacted(res.Commit)
			if asJSON {
				return a.printJSON(res)
			}
			if res.Conflicts > 0 {
				a.note("ctx0: %d conflicts kept aside: see ctx0 conflicts", res.Conflicts)
			}
			_, err = fmt.Fprintf(a.stdout, "imported %s: %d added, %d merged, %d unchanged, %d conflicts\n",
				label, res.Added, res.Merged, res.Unchanged, res.Conflicts)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was imported as JSON")
	return cmd
}
