package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/vault"
)

// trustOptions are ctx0 trust's flags.
type trustOptions struct {
	show   bool // print the state, approve nothing
	revoke bool // remove the approval
}

func (a *app) newTrustCmd() *cobra.Command {
	var opts trustOptions
	cmd := &cobra.Command{
		Use:   "trust [--show | --revoke]",
		Short: "Approve the settings in .ctx0/config.yaml that run a program or reach out",
		Long: `Anyone who can push to the vault's remote writes .ctx0/config.yaml for every
clone. So the settings in it that run a program, send the vault's text to an
address, read a key from an environment variable or work in the background
are applied only when this machine approved exactly their values:

  ` + strings.Replace(strings.Join(vault.GuardedKeys(), "\n  "), "llm.provider", "llm.provider (any but offline)", 1) + `

Until then ctx0 works as if the file did not set them (the offline provider,
no embeddings, no automatic sync) and every command says so once, on stderr;
ctx0 status, the session-start hook's log and the daemon say so too.

ctx0 trust shows those settings, what changed since the last approval, and
approves them: the approval is kept in the vault's git folder
(.git/ctx0/trusted.json), which no pull or push touches. ctx0 init approves
what it writes. Review the file (git log -p .ctx0/config.yaml shows who
changed it) before approving. --show prints the same and approves nothing,
as does --json, which prints it as JSON: approving is a person's act, not a
tool's. --revoke removes the approval.`,
		Example: `  ctx0 trust --show
  git log -p -1 -- .ctx0/config.yaml
  ctx0 trust
  ctx0 trust --revoke`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.json && !opts.revoke {
				opts.show = true
			}
			res, err := a.runTrust(cmd.Context(), opts)
			if err != nil {
				return err
			}
			return a.out().result(res.Trust, func() error { return a.printTrust(res, opts) })
		},
	}
	cmd.Flags().BoolVar(&opts.show, "show", false, "show the settings and what is approved; approve nothing")
	cmd.Flags().BoolVar(&opts.revoke, "revoke", false, "remove this machine's approval")
	a.jsonFlag(cmd, "print the settings and the approval as JSON; approves nothing")
	return cmd
}

// trustResult is what ctx0 trust did: the decision now, and, for an
// approval or a revocation, the one before it.
type trustResult struct {
	vault.Trust
	before *vault.Trust
}

// runTrust shows, approves or revokes the guarded settings of the vault's
// config.
func (a *app) runTrust(ctx context.Context, opts trustOptions) (trustResult, error) {
	if opts.show && opts.revoke {
		return trustResult{}, usagef("trust: --show and --revoke exclude each other")
	}
	a.anyConfig, a.quietTrust = true, true
	v, err := a.services.Vault(ctx)
	if err != nil {
		return trustResult{}, err
	}
	if opts.show {
		return trustResult{Trust: v.Trust()}, nil
	}
	before := v.Trust()
	if opts.revoke {
		_, err = v.Revoke()
	} else {
		before, err = v.Approve()
	}
	if err != nil {
		return trustResult{}, err
	}
	now := v.Trust()
	if !opts.revoke {
		// What this approval changed, rather than nothing.
		now.Changed = before.Changed
	}
	return trustResult{Trust: now, before: &before}, nil
}

// printTrust prints the guarded settings the file sets, beside what was
// approved, then what ctx0 trust did or what is left to do.
func (a *app) printTrust(res trustResult, opts trustOptions) error {
	t := res.Trust
	shown := t
	if res.before != nil && !opts.revoke {
		shown = *res.before // the settings beside the approval they replace
	}
	approved := map[string]string{}
	for _, s := range shown.Approved {
		approved[s.Key] = string(s.Value)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	if len(t.Settings) == 0 {
		fmt.Fprintf(tw, "%s sets none of the settings that run a program or reach out.\n", t.File)
	} else {
		fmt.Fprintf(tw, "%s sets these settings that run a program or reach out:\n", t.File)
	}
	for _, s := range t.Settings {
		note := ""
		if slices.Contains(t.Changed, s.Key) {
			note = "new"
			if old, ok := approved[s.Key]; ok {
				note = "changed, was " + old
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Key, s.Value, note)
	}
	for _, k := range t.Changed {
		if !slices.ContainsFunc(t.Settings, func(s vault.Setting) bool { return s.Key == k }) {
			fmt.Fprintf(tw, "  %s\t(not set)\tremoved, was %s\n", k, approved[k])
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if t.Problem != "" {
		a.note("ctx0: %s", t.Problem)
	}
	switch {
	case opts.revoke:
		a.note("Removed this machine's approval (%s).", t.Record)
		if len(t.Unapproved) > 0 {
			a.note("Not applied now: %s.", strings.Join(t.Unapproved, ", "))
		}
	case opts.show && len(t.Unapproved) > 0:
		a.note("Not applied: %s. Review them and run \"ctx0 trust\" to approve them on this machine.", strings.Join(t.Unapproved, ", "))
	case opts.show && t.ApprovedAt != nil:
		a.note("Applied: approved on this machine %s (%s).", t.ApprovedAt.Local().Format("2006-01-02 15:04"), t.Record)
	case opts.show:
		a.note("Nothing to approve.")
	case len(t.Changed) == 0:
		a.note("Approved already; nothing changed.")
	default:
		a.note("Approved on this machine: %s.", strings.Join(t.Changed, ", "))
	}
	return nil
}
