package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/vault"
)

// syncOptions are ctx0 sync's flags.
type syncOptions struct {
	vault.SyncOptions
	watch      bool          // keep syncing
	interval   time.Duration // with watch, how often to fetch
	pushWanted bool          // push what automatic sync recorded
}

func (a *app) newSyncCmd() *cobra.Command {
	var opts syncOptions
	cmd := &cobra.Command{
		Use:   "sync [REMOTE]",
		Short: "Merge with a git remote and push",
		Long: `Commit edits made with other tools, fetch REMOTE (default: origin, or the only
remote), merge its branch entry by entry and field by field, and push. Edits
made with other tools skip what git ignores (.gitignore at every level,
.git/info/exclude, your core.excludesFile, by default ~/.config/git/ignore);
secrets in entries are redacted, and any other file holding a secret is not
committed and is named, so it never reaches the remote. Conflicts
that cannot be combined keep both versions: one in place, the other kept aside
and listed by ctx0 conflicts. When another pusher wins the race, sync fetches,
merges and pushes again. An unreachable remote, unrelated histories or a
refused push leave the vault as it was.

What the remote holds that ctx0 never takes (machine-local state such as
.ctx0/state/ or .ctx0/index.db, a submodule, a symbolic link, a path git
refuses, a file where this vault has a folder of that name or the reverse, a
name that differs from one here only in case) is set aside with a warning and
listed by ctx0 conflicts; everything else merges. Edits made with other tools
never commit machine-local state (a tracked file of it is untracked, kept on
disk) or a git repository inside the vault (skipped, as git skips it).

With --watch, sync keeps running: it pushes soon after each local commit,
fetches and merges every --interval, and prints one line per sync (a JSON
object per line with --json). A remote it cannot reach is said once and
retried with back-off. A remote branch that was force-pushed or rewritten is
refused (local work stays; run ctx0 sync by hand to merge it anyway).
ctx0 daemon runs this watch, with the index watcher and session filing, in
one process, when sync.auto is on.`,
		Example: `  ctx0 remote add origin git@github.com:me/memory.git
  ctx0 sync
  ctx0 sync backup --push-only
  ctx0 sync --watch --interval 30s`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Remote = args[0]
			}
			res, err := a.runSync(cmd.Context(), opts)
			if err != nil || res == nil {
				return err
			}
			return a.out().result(res, func() error { a.printSynced(*res, !opts.PullOnly); return nil })
		},
	}
	cmd.Flags().BoolVar(&opts.PullOnly, "pull-only", false, "fetch and merge, do not push")
	cmd.Flags().BoolVar(&opts.PushOnly, "push-only", false, "push without fetching; fails if the remote has changes")
	a.jsonFlag(cmd, "print what sync did as JSON")
	cmd.Flags().BoolVar(&opts.watch, "watch", false, "keep syncing: push after local commits, fetch every --interval")
	cmd.Flags().DurationVar(&opts.interval, "interval", time.Minute, "with --watch, how often to fetch the remote")
	cmd.Flags().BoolVar(&opts.pushWanted, "push-wanted", false, "push the commits automatic sync recorded (how ctx0 pushes in the background)")
	cmd.Flags().MarkHidden("push-wanted")
	return cmd
}

// runSync syncs the vault with its remote once and returns what it did;
// with opts.watch it keeps syncing, printing an event per sync, until ctx
// ends, and with opts.pushWanted it pushes what automatic sync recorded.
// Those two return no result.
func (a *app) runSync(ctx context.Context, opts syncOptions) (*vault.SyncResult, error) {
	o := opts.SyncOptions
	if o.PullOnly && o.PushOnly {
		return nil, usagef("sync: --pull-only and --push-only exclude each other")
	}
	if opts.watch && (o.PullOnly || o.PushOnly) {
		return nil, usagef("sync: --watch both pulls and pushes; drop --pull-only and --push-only")
	}
	a.noAutoPush = true // sync pushes its own merges
	a.anyConfig = true  // a broken config must not stop pulling its fix
	v, err := a.open(ctx)
	if err != nil {
		return nil, err
	}
	if opts.pushWanted {
		return nil, a.pushWanted(ctx, v, o)
	}
	if opts.watch {
		return nil, v.Watch(ctx, vault.WatchOptions{Sync: o, Interval: opts.interval, Report: a.reportWatch})
	}
	res, err := v.Sync(ctx, o)
	if err != nil {
		return nil, err
	}
	if res.Changed > 0 {
		// The config may be among what the pull changed: say what of it
		// this machine does not apply, as the next command will.
		if nv, err := vault.Open(ctx, v.Root()); err == nil {
			_ = a.sayConfig(nv)
		}
	}
	return &res, nil
}

// printSynced tells a person what a sync did, on stderr, in the one
// wording of syncResultLine.
func (a *app) printSynced(res vault.SyncResult, pushes bool) {
	if res.External != nil {
		a.note("Committed %d file(s) edited by other tools.", len(res.External.Paths))
	}
	line := syncResultLine(res, pushes)
	a.note("%s.", strings.ToUpper(line[:1])+line[1:])
	if res.Conflicts > 0 {
		a.note("See them with: ctx0 conflicts")
	}
	a.warnSyncLeftOut(res)
}

// warnSyncLeftOut says, on stderr, what a sync left out of the vault:
// changes of the remote it could not take, tracked machine-local files it
// untracked, repositories inside the vault and files holding a secret it
// did not commit.
func (a *app) warnSyncLeftOut(res vault.SyncResult) {
	for _, s := range res.SetAside {
		a.note("warning: not taken from %s: %s (%s); see it with %s, then ctx0 conflicts resolve %s", s.From, s.Path, s.Reason, s.Show(), s.ID)
	}
	if res.External != nil {
		for _, p := range res.External.Untracked {
			a.note("warning: untracked %s: machine-local state is never committed (the file is kept)", p)
		}
	}
	for _, p := range res.Nested {
		a.note("warning: %s/ is a git repository of its own: not committed to the vault (move it out, or list it in .gitignore)", p)
	}
	for _, w := range res.Withheld {
		a.note("Not committed: %s %s; remove the secret, or list the file in .gitignore.", w.Path, w.Reason)
	}
}

// reportWatch prints one line per sync of ctx0 sync --watch, to stdout: a
// sentence, or a JSON object.
func (a *app) reportWatch(ev vault.WatchEvent) {
	_ = a.out().event(ev, func() error {
		_, err := fmt.Fprintf(a.stdout, "%s %s\n", ev.Time.Format(time.TimeOnly), watchLine(ev))
		return err
	})
}

// watchLine says what one unattended sync did, in a line.
func watchLine(ev vault.WatchEvent) string {
	switch ev.Status {
	case "offline":
		if ev.RetryIn > 0 {
			return fmt.Sprintf("%s: cannot sync, retrying with back-off (next in %s): %s", ev.Trigger, ev.RetryIn, ev.Error)
		}
		return fmt.Sprintf("%s: cannot sync: %s", ev.Trigger, ev.Error)
	case "refused":
		return fmt.Sprintf("%s: refused, local work kept: %s", ev.Trigger, ev.Error)
	}
	back := ""
	if ev.Recovered {
		back = " (back online)"
	}
	if ev.Result == nil {
		return fmt.Sprintf("%s: %s%s", ev.Trigger, ev.Status, back)
	}
	return fmt.Sprintf("%s: %s%s", ev.Trigger, syncResultLine(*ev.Result, true), back)
}

func (a *app) newRemoteCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "remote",
		Short: "Manage the vault's git remotes",
		Example: `  ctx0 remote add origin https://git.example.com/me/memory.git
  ctx0 remote list
  ctx0 remote remove origin`,
		Args: args(0, "a subcommand: add, remove or list"),
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	list := &cobra.Command{
		Use:     "list",
		Short:   "List remotes",
		Example: `  ctx0 remote list --json`,
		Args:    args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			rs, err := v.Remotes()
			if err != nil {
				return err
			}
			return a.out().result(rs, func() error {
				tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
				for _, r := range rs {
					fmt.Fprintf(tw, "%s\t%s\n", r.Name, r.URL)
				}
				return tw.Flush()
			})
		},
	}
	a.jsonFlag(list, "print a JSON array")
	add := &cobra.Command{
		Use:   "add NAME URL",
		Short: "Add a remote",
		Long: `Add a git remote: a local path, file://, git://, ssh:// (or user@host:path) or
https:// URL. For https, credentials come from the URL, $CTX0_GIT_TOKEN (with
$CTX0_GIT_USERNAME), or ~/.git-credentials; for ssh, from the ssh agent or
~/.ssh/id_ed25519, id_ecdsa or id_rsa.`,
		Example: `  ctx0 remote add origin /srv/git/memory.git`,
		Args:    args(2, "NAME URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			if err := v.AddRemote(args[0], args[1]); err != nil {
				return err
			}
			a.proposeAutoSync(v)
			return nil
		},
	}
	remove := &cobra.Command{
		Use:     "remove NAME",
		Short:   "Remove a remote",
		Example: `  ctx0 remote remove origin`,
		Args:    args(1, "one NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			return v.RemoveRemote(args[0])
		},
	}
	cmd.AddCommand(list, add, remove)
	return cmd
}

func (a *app) newCloneCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "clone URL [DIR]",
		Short: "Copy a vault from a remote to this machine",
		Long: `Clone the vault at URL into DIR (default: the last part of URL), register
ctx0's merge driver so plain git merges entries field by field, and print the
vault's folder. Settings of the vault's config that run a program or reach
out (a model, an embeddings endpoint, automatic sync) are not applied until
ctx0 trust approves them on this machine.`,
		Example: `  ctx0 clone git@github.com:me/memory.git ~/memory
  cd ~/memory && ctx0 trust --show`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := ""
			if len(args) == 2 {
				dir = args[1]
			} else {
				dir = filepath.Base(trimGitSuffix(args[0]))
			}
			v, err := vault.Clone(cmd.Context(), args[0], dir, vault.WithClock(a.now))
			if err != nil {
				return err
			}
			if err := a.buildIndex(cmd.Context(), v); err != nil {
				return err
			}
			// The remote's settings are someone else's writing: say what
			// of them this machine does not apply until ctx0 trust, and
			// what does not decode, without failing the clone.
			a.anyConfig = true
			_ = a.sayConfig(v)
			a.proposeAutoSync(v)
			fmt.Fprintln(a.stdout, v.Root())
			return nil
		},
	}
	return cmd
}

func trimGitSuffix(u string) string {
	u = filepath.Clean(u)
	if ext := filepath.Ext(u); ext == ".git" {
		return u[:len(u)-len(ext)]
	}
	return u
}

func (a *app) newConflictsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "conflicts",
		Short: "List merge conflicts kept aside",
		Long: `List the true conflicts merges kept aside: the entry, the field or passage, both
values and both commits. The version that stayed in place is in the entry; the
other one is here (and, for body text, in a marked block at the end of the
entry). Fix the entry, then mark the conflict resolved.

Then list the changes a sync on this machine did not take from the remote:
another git repository (a submodule), a symbolic link, a path git refuses,
machine-local state (.ctx0/state, the index), or a file where this vault has a
folder of that name (or the reverse). Everything else was merged; the change
stays in the history, and each line says the git show command that shows it.
Keep what you want of it under a path ctx0 can take, then resolve its ID.
(--json lists the conflicts only; ctx0 doctor --json lists both.)

Records are committed, so anyone who can push to the remote writes them: a
record file that is not valid (bad YAML, an id that is not its file's own
name, a path that leaves the vault) is skipped with a warning naming it, and
ctx0 doctor reports it (doctor --fix moves it aside).`,
		Example: `  ctx0 conflicts
  ctx0 conflicts resolve contacts/sarah-chen`,
		Args: args(0, "no arguments (or the subcommand resolve)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			cs, bad, err := v.Conflicts(cmd.Context())
			if err != nil {
				return err
			}
			a.noteBadRecords(bad)
			asides, badAsides, err := v.SetAsides(cmd.Context())
			if err != nil {
				return err
			}
			for _, b := range badAsides {
				a.note("warning: %s cannot be read (see ctx0 doctor)", b)
			}
			return a.out().result(cs, func() error { return a.printConflicts(cs, asides) })
		},
	}
	a.jsonFlag(cmd, "print a JSON array")
	var force bool
	resolve := &cobra.Command{
		Use:   "resolve NAME|ID",
		Short: "Mark the conflicts of an entry (or one conflict) resolved",
		Long: `Mark the conflicts of the entry NAME, or the one conflict ID, resolved, once
the entry says what it should. A conflict in the body is settled by keeping the
text you want and deleting its "> [!conflict]" block: while the entry still
holds such a block, resolve refuses and names it, unless --force. The ID of a
change a sync did not take forgets it, once you have taken what you want.`,
		Example: `  ctx0 conflicts resolve sarah
  ctx0 conflicts resolve 7b3cb6e990c8 --force`,
		Args: args(1, "one NAME or conflict ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			if ok, err := v.DismissSetAside(args[0]); err != nil || ok {
				if ok {
					a.note("Dismissed the change set aside %s.", args[0])
				}
				return err
			}
			n, _, err := v.ResolveConflicts(cmd.Context(), args[0], force)
			if err != nil {
				return err
			}
			a.note("Resolved %d conflict(s).", n)
			return nil
		},
	}
	resolve.Flags().BoolVar(&force, "force", false, "resolve even though the entry still holds a conflict block")
	cmd.AddCommand(resolve)
	return cmd
}

// noteBadRecords says, on stderr, which record files were refused and
// skipped.
func (a *app) noteBadRecords(bad []vault.BadRecord) {
	for _, b := range bad {
		a.note("ctx0: skipped: %s (see ctx0 doctor)", b.Reason)
	}
}

// printConflicts prints conflict records for people: each with the text
// kept in the entry and the text set aside, and the commit each came from
// (not "ours" and "theirs", which name the sides of the machine that
// merged, whichever it was); then the changes syncs set aside, each with
// how to see it.
func (a *app) printConflicts(cs []vault.ConflictRecord, asides []vault.SetAside) error {
	for _, c := range cs {
		where := c.Field
		if where == "" {
			where = c.Hunk
		}
		kept, aside := c.Sides()
		fmt.Fprintf(a.stdout, "%s  %s  %s\n  kept:  %q%s\n  aside: %q%s\n",
			c.ID, c.Entry, where, kept.Text, fromCommit(kept.Commit), aside.Text, fromCommit(aside.Commit))
	}
	for _, s := range asides {
		fmt.Fprintf(a.stdout, "%s  %s  not taken from %s: %s\n  see it: %s\n", s.ID, s.Path, s.From, s.Reason, s.Show())
	}
	if len(cs) == 0 && len(asides) == 0 {
		a.note("No conflicts.")
	}
	return nil
}

// fromCommit says which commit a conflict's side came from, if known.
func fromCommit(hash string) string {
	if hash == "" {
		return ""
	}
	return " (from " + hash[:min(10, len(hash))] + ")"
}

func (a *app) newMergeDriverCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "merge-driver BASE OURS THEIRS PATH",
		Short: "git's merge driver for entries (set up by ctx0 init)",
		Long: `Merge three versions of an entry field by field for git: git calls it as
"ctx0 merge-driver %O %A %B %P" for files .gitattributes routes to merge=ctx0.
The result goes to OURS; conflicts that cannot be combined are kept aside
(see ctx0 conflicts), so git never writes conflict markers. Their records wait
in .ctx0/state/conflicts/, which git ignores, until the next ctx0 sync commits
them to .ctx0/conflicts/ for every clone.`,
		Example: `  git config merge.ctx0.driver "ctx0 merge-driver %O %A %B %P"`,
		Args:    args(4, "BASE OURS THEIRS PATH"),
		Hidden:  false,
		RunE: func(cmd *cobra.Command, args []string) error {
			files := make([][]byte, 3)
			for i, p := range args[:3] {
				data, err := os.ReadFile(p)
				if err != nil {
					return fmt.Errorf("merge-driver: %w", err)
				}
				files[i] = data
			}
			v, err := vault.Open(cmd.Context(), ".", vault.WithClock(a.now))
			if err != nil {
				return err
			}
			out, cs, err := v.MergeEntry(args[3], files[0], files[1], files[2], [2]string{"ours", "theirs"})
			if err != nil {
				return err
			}
			ours := "HEAD"
			if t, err := v.TreeAt(cmd.Context(), "HEAD"); err == nil {
				ours = t.Commit()
			}
			if err := v.RecordConflicts(cs, ours, mergedCommit(os.Environ())); err != nil {
				return err
			}
			if err := os.WriteFile(args[1], out, 0o644); err != nil {
				return fmt.Errorf("merge-driver: write %s: %w", args[1], err)
			}
			return nil
		},
	}
}

// mergedCommit is the commit git is merging in, for the merge driver's
// conflict records: git names each merge head in the driver's environment
// as GITHEAD_<hash>=<branch> (MERGE_HEAD is not written yet), and a record
// needs a commit that still means that side after the merge. With no
// single such head (an octopus merge, an older git) it says MERGE_HEAD.
func mergedCommit(environ []string) string {
	var heads []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		h, ok := strings.CutPrefix(k, "GITHEAD_")
		if ok && (len(h) == 40 || len(h) == 64) && strings.Trim(h, "0123456789abcdef") == "" {
			heads = append(heads, h)
		}
	}
	if len(heads) != 1 {
		return "MERGE_HEAD"
	}
	return heads[0]
}
