package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) newDoctorCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the vault and its index for problems",
		Long: `Check the vault for links that lead nowhere (or to several entries), aliases
that several entries share, files that are not valid entries, entries whose
index row disagrees with the file (repaired on the way), a damaged index
(rebuilt), symbolic links (which ctx0 does not follow, so that nothing leads
out of the vault), and the health of the git repository. Exits 1 when it finds a
problem.`,
		Example: `  ctx0 doctor
  ctx0 doctor --json | jq '.problems[] | select(.kind == "broken-link")'`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, ix, err := a.openIndexed(cmd.Context())
			if err != nil {
				return err
			}
			defer ix.Close()
			d, err := ix.Doctor(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				if err := a.printJSON(d); err != nil {
					return err
				}
			} else {
				for _, p := range d.Problems {
					fmt.Fprintf(a.stdout, "%s\t%s\n", p.Kind, p.Message)
				}
			}
			switch n := len(d.Problems); n {
			case 0:
				a.note("No problems found in %d entries.", d.Checked)
				return nil
			case 1:
				return errors.New("doctor found 1 problem")
			default:
				return fmt.Errorf("doctor found %d problems", n)
			}
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the problems as JSON")
	return cmd
}
