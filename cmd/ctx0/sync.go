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
remote), merge its branch entry by entry and field by field, and push. Conflicts
that cannot be combined keep both versions: one in place, the other kept aside
and listed by ctx0 conflicts. When another pusher wins the race, sync fetches,
merges and pushes again. An unreachable remote, unrelated histories or a
refused push leave the vault as it was.

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
vault's folder.`,
		Example: `  ctx0 clone git@github.com:me/memory.git ~/memory`,
		Args:    cobra.RangeArgs(1, 2),
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
entry). Fix the entry, then mark the conflict resolved.`,
		Example: `  ctx0 conflicts
  ctx0 conflicts resolve contacts/sarah-chen`,
		Args: args(0, "no arguments (or the subcommand resolve)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			cs, err := v.Conflicts(cmd.Context())
			if err != nil {
				return err
			}
			return a.out().result(cs, func() error { return a.printConflicts(cs) })
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
holds such a block, resolve refuses and names it, unless --force.`,
		Example: `  ctx0 conflicts resolve sarah
  ctx0 conflicts resolve 7b3cb6e990c8 --force`,
		Args: args(1, "one NAME or conflict ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.open(cmd.Context())
			if err != nil {
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

// printConflicts prints conflict records for people: each with the text
// kept in the entry and the text set aside, and the commit each came from
// (not "ours" and "theirs", which name the sides of the machine that
// merged, whichever it was).
func (a *app) printConflicts(cs []vault.ConflictRecord) error {
	for _, c := range cs {
		where := c.Field
		if where == "" {
			where = c.Hunk
		}
		kept, aside := c.Sides()
		fmt.Fprintf(a.stdout, "%s  %s  %s\n  kept:  %q%s\n  aside: %q%s\n",
			c.ID, c.Entry, where, kept.Text, fromCommit(kept.Commit), aside.Text, fromCommit(aside.Commit))
	}
	if len(cs) == 0 {
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
