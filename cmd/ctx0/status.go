package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/daemon"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/vault"
)

// syncSummary says in a few words how a sync ended.
func syncSummary(r *vault.SyncRecord) string {
	if r.Error != "" {
		return "failed: " + r.Error
	}
	return syncResultLine(r.Result, true)
}

// syncResultLine says what a sync did, the one wording for ctx0 sync, the
// daemon, sync --watch, the hook log and status: how it merged with which
// branch (or that it made the remote's branch), the files it changed and
// conflicts it kept aside when there are any, and, for a sync that pushes,
// whether it pushed, or had nothing to push.
func syncResultLine(r vault.SyncResult, pushes bool) string {
	parts := []string{fmt.Sprintf("%s with %s/%s", r.Merge, r.Remote, r.Branch)}
	if r.Created {
		// There was nothing on the remote to be up to date with.
		parts[0] = fmt.Sprintf("%s/%s did not exist", r.Remote, r.Branch)
		if r.Pushed {
			parts[0] = fmt.Sprintf("first push to %s/%s", r.Remote, r.Branch)
		}
	}
	if r.Changed > 0 {
		parts = append(parts, words.Plural(r.Changed, "file changed", "files changed"))
	}
	if r.Conflicts > 0 {
		parts = append(parts, words.Plural(r.Conflicts, "conflict kept aside (ctx0 conflicts)", "conflicts kept aside (ctx0 conflicts)"))
	}
	if n := len(r.SetAside); n > 0 {
		parts = append(parts, words.Plural(n, "change not taken (ctx0 conflicts)", "changes not taken (ctx0 conflicts)"))
	}
	if n := len(r.Withheld); n > 0 {
		parts = append(parts, words.Plural(n, "file holding a secret not committed", "files holding a secret not committed"))
	}
	switch {
	case r.Created && r.Pushed:
	case r.Pushed && r.Sent:
		parts = append(parts, "pushed")
	case r.Pushed:
		parts = append(parts, "nothing to push")
	case pushes:
		parts = append(parts, "not pushed")
	}
	return strings.Join(parts, ", ")
}

// vaultStatus is what ctx0 status reports: the index's status, the last
// sync and the daemon's.
type vaultStatus struct {
	index.Status
	Sync   *vault.SyncRecord `json:"last_sync,omitempty"`
	Daemon *daemon.Status    `json:"daemon"`
	Hooks  []agentHooks      `json:"hooks"`
	// Settings says which of the config's settings are not applied.
	Settings settingsStatus `json:"settings"`
	// AutoWatch is the record of automatically started watchers that
	// failed, when the last ones did (see autowatch.go).
	AutoWatch *autoWatchRecord `json:"autowatch_failed,omitempty"`
}

// settingsStatus is what ctx0 status says of the vault's config file: the
// settings that run or reach out which this machine has not approved
// (ctx0 trust), and why the file does not decode, if it does not.
type settingsStatus struct {
	Unapproved []string `json:"unapproved"`
	Problem    string   `json:"problem,omitempty"`
}

func (a *app) newStatusCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show what the vault holds and how fresh its index is",
		Long: `Show the vault's entries by type, pinned, superseded and archived counts, its
size, its oldest and newest entries, its last commit, its last sync (when and how it ended), and its index: where it
is, when it was built, what the check made before this status found, and
whether a watcher (ctx0 index --watch) keeps it up to date; whether
ctx0 daemon runs and what each of its parts last did; and for which events
each agent's hooks (yours and this project's) run ctx0, and which they miss;
and which settings of .ctx0/config.yaml are not applied, because this
machine has not approved them (see ctx0 trust) or the file does not decode.`,
		Example: `  ctx0 status
  ctx0 status --json`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := a.runStatus(cmd.Context())
			if err != nil {
				return err
			}
			return a.out().result(st, func() error { return a.printStatus(st) })
		},
	}
	a.jsonFlag(cmd, "print the status as JSON")
	return cmd
}

// runStatus gathers the vault's status: its index's, its last sync and its
// daemon's.
func (a *app) runStatus(ctx context.Context) (vaultStatus, error) {
	a.anyConfig, a.quietTrust = true, true
	v, ix, err := a.openIndexed(ctx)
	if err != nil {
		return vaultStatus{}, err
	}
	defer ix.Close()
	st, err := ix.Status(ctx)
	if err != nil {
		return vaultStatus{}, err
	}
	last, err := vault.LastSync(v.Root())
	if err != nil {
		return vaultStatus{}, err
	}
	d, err := daemon.ReadStatus(v.Root())
	if err != nil {
		return vaultStatus{}, err
	}
	set := settingsStatus{Unapproved: v.Trust().Unapproved}
	if err := v.ConfigError(); err != nil {
		set.Problem = err.Error()
	}
	vs := vaultStatus{Status: st, Sync: last, Daemon: d, Hooks: a.installedHooks(), Settings: set}
	if rec := readAutoWatch(v.Root()); rec.Failures > 0 {
		vs.AutoWatch = &rec
	}
	return vs, nil
}

func (a *app) printStatus(vs vaultStatus) error {
	st, last := vs.Status, vs.Sync
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "vault\t%s\n", st.Vault)
	types := make([]string, 0, len(st.ByType))
	for t := range st.ByType {
		types = append(types, t)
	}
	sort.Strings(types)
	var parts []string
	for _, t := range types {
		name := t
		if name == "" {
			name = "(no type)"
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, st.ByType[t]))
	}
	fmt.Fprintf(tw, "entries\t%d\t%s\n", st.Entries, strings.Join(parts, ", "))
	fmt.Fprintf(tw, "pinned\t%d\n", st.Pinned)
	fmt.Fprintf(tw, "superseded\t%d\n", st.Superseded)
	fmt.Fprintf(tw, "archived\t%d\n", st.Archived)
	if st.Unparsable > 0 {
		fmt.Fprintf(tw, "unparsable\t%d\tsee ctx0 doctor\n", st.Unparsable)
	}
	fmt.Fprintf(tw, "size\t%s\n", bytesString(st.Size))
	if st.Oldest != nil {
		fmt.Fprintf(tw, "oldest\t%s\t%s\n", st.Oldest.Created.Format("2006-01-02"), st.Oldest.Name)
	}
	if st.Newest != nil {
		fmt.Fprintf(tw, "newest\t%s\t%s\n", st.Newest.Created.Format("2006-01-02"), st.Newest.Name)
	}
	if c := st.LastCommit; c != nil {
		fmt.Fprintf(tw, "last commit\t%s\t%s %s\n", c.Hash[:10], c.When.UTC().Format("2006-01-02 15:04"), c.Subject)
	}
	if last != nil {
		fmt.Fprintf(tw, "last sync\t%s\t%s\n", last.Time.UTC().Format("2006-01-02 15:04"), syncSummary(last))
	}
	ix := st.Index
	fmt.Fprintf(tw, "index\t%s\t%s, built %s\n", ix.Path, bytesString(ix.Size), ix.Built.Format("2006-01-02 15:04"))
	fmt.Fprintf(tw, "freshness\t%s\n", freshness(ix.Check))
	switch w, f := ix.Watcher, vs.AutoWatch; {
	case w != nil && w.Auto:
		fmt.Fprintf(tw, "watcher\tpid %d since %s, started automatically, stops after %v without a request\n", w.PID, w.Started.Format("2006-01-02 15:04"), w.Idle)
	case w != nil:
		fmt.Fprintf(tw, "watcher\tpid %d since %s\n", w.PID, w.Started.Format("2006-01-02 15:04"))
	case f != nil:
		fmt.Fprintf(tw, "watcher\tnone: starting one automatically failed (%s, %s); next try after %s\n",
			words.Plural(f.Failures, "time", "times"), f.Error, f.Retry.UTC().Format("2006-01-02 15:04"))
	default:
		fmt.Fprintf(tw, "watcher\tnone (reads check every file; ctx0 index --watch saves that)\n")
	}
	switch set := vs.Settings; {
	case set.Problem != "":
		fmt.Fprintf(tw, "settings\t%s; using the defaults\n", set.Problem)
	case len(set.Unapproved) > 0:
		fmt.Fprintf(tw, "settings\tnot applied: %s (not approved on this machine; review them and run ctx0 trust)\n", strings.Join(set.Unapproved, ", "))
	default:
		fmt.Fprintf(tw, "settings\tall applied\n")
	}
	printDaemon(tw, vs.Daemon)
	printHooks(tw, vs.Hooks)
	return tw.Flush()
}

// printDaemon says whether the daemon runs and what each of its parts
// last did.
func printDaemon(w io.Writer, d *daemon.Status) {
	const at = "2006-01-02 15:04"
	switch {
	case d == nil:
		fmt.Fprintf(w, "daemon\tnot running (ctx0 daemon keeps the index, sessions and sync current in one process)\n")
		return
	case d.Running:
		fmt.Fprintf(w, "daemon\trunning: pid %d since %s\n", d.PID, d.Started.Local().Format(at))
	case d.Stopped != nil:
		fmt.Fprintf(w, "daemon\tnot running: pid %d stopped %s\n", d.PID, d.Stopped.Local().Format(at))
	default:
		fmt.Fprintf(w, "daemon\tnot running: pid %d, started %s, ended without stopping\n", d.PID, d.Started.Local().Format(at))
	}
	for _, p := range d.Parts {
		if p.Last == nil {
			fmt.Fprintf(w, "daemon %s\tnothing yet\n", p.Name)
			continue
		}
		fmt.Fprintf(w, "daemon %s\t%s %s\n", p.Name, p.Last.Local().Format(at), p.LastLine)
	}
}

// freshness says what the check before a read did.
func freshness(r index.Report) string {
	var how string
	switch r.Check {
	case index.CheckWatcher:
		how = "up to date: the watcher had indexed every change"
	case index.CheckRebuild:
		how = "up to date: just rebuilt"
	default:
		how = fmt.Sprintf("up to date: compared %d files with the index", r.Checked)
	}
	if n := r.Changes(); n > 0 {
		how += fmt.Sprintf(", and picked up %d changes made outside ctx0", n)
	}
	return how + fmt.Sprintf(" (%v)", r.Took.Round(1e5))
}

func bytesString(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
