package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/index"
)

func (a *app) newDoctorCmd() *cobra.Command {
	var fix bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the vault and its index for problems",
		Long: `Check the vault for links that lead nowhere (or to several entries), aliases
that several entries share, files that are not valid entries, entries whose
index row disagrees with the file (repaired on the way), a damaged index
(rebuilt), symbolic links (which ctx0 does not follow, so that nothing leads
out of the vault), and the health of the git repository. Exits 1 when it finds
a problem. Each line is KIND, the file that holds the problem (relative to the
vault), and what is wrong. With --fix it first repairs what it safely can:
files of commits that git's staging area lacks (what a ctx0 killed while
writing leaves) are staged again, temporary files a killed ctx0 left are
removed, what git tracks that ctx0 never commits (machine-local state such as
.ctx0/state/ and .ctx0/index.db, a repository's own .git files, a submodule) is
untracked, its files kept, and conflict records ctx0 refuses (see ctx0
conflicts) are moved into .ctx0/state/refused/, their removal committed. It
says what it fixed, and what remains with what to do about it. Changes a sync
did not take from the remote are listed with the command that shows each; keep
what you want of one, then ctx0 conflicts resolve ID.`,
		Example: `  ctx0 doctor
  ctx0 doctor --fix
  ctx0 doctor --json | jq '.problems[] | select(.kind == "broken-link")'`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := a.runDoctor(cmd.Context(), fix)
			if err != nil {
				return err
			}
			err = a.out().result(d, func() error {
				for _, p := range d.Problems {
					fmt.Fprintf(a.stdout, "%s\t%s\t%s\n", p.Kind, p.File, p.Message)
				}
				return nil
			})
			if err != nil {
				return err
			}
			a.noteRemedies(d, fix)
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
	a.jsonFlag(cmd, "print the problems as JSON")
	cmd.Flags().BoolVar(&fix, "fix", false, "repair what can be repaired safely first")
	return cmd
}

// noteRemedies says on stderr, under the problems, what to do about each
// kind found, and with fix that these remain: --fix does not repair them.
func (a *app) noteRemedies(d index.Diagnosis, fix bool) {
	var kinds []string
	count := map[string]int{}
	for _, p := range d.Problems {
		if count[p.Kind] == 0 {
			kinds = append(kinds, p.Kind)
		}
		count[p.Kind]++
	}
	if len(kinds) == 0 {
		return
	}
	if fix {
		a.note("What remains, which --fix does not repair:")
	} else {
		a.note("What to do:")
	}
	for _, k := range kinds {
		if r, ok := index.Remedies[k]; ok {
			a.note("  %s (%d): %s", k, count[k], r)
		}
	}
}

// runDoctor checks the vault and its index, with fix repairing first what
// it safely can.
func (a *app) runDoctor(ctx context.Context, fix bool) (index.Diagnosis, error) {
	a.anyConfig = true
	v, ix, err := a.openIndexed(ctx)
	if err != nil {
		return index.Diagnosis{}, err
	}
	defer ix.Close()
	if fix {
		fixed, err := v.Repair(ctx)
		if err != nil {
			return index.Diagnosis{}, err
		}
		for _, f := range fixed {
			a.note("Fixed: %s", f)
		}
		if len(fixed) == 0 {
			a.note("--fix found nothing it repairs (files a killed ctx0 left unstaged or half-written).")
		}
	}
	return ix.Doctor(ctx)
}
