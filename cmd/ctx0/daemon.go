package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/daemon"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/worker"
)

// daemonOptions are ctx0 daemon's flags.
type daemonOptions struct {
	interval time.Duration // how often automatic sync fetches
}

func (a *app) newDaemonCmd() *cobra.Command {
	var opts daemonOptions
	cmd := &cobra.Command{
		Use:   "daemon [install | uninstall]",
		Short: "Run everything that keeps the vault current, in one background process",
		Long: `Run, in one process, what keeps the vault current until stopped (Ctrl-C or
SIGTERM):

  index   the index watcher (as ctx0 index --watch; with an embeddings
          endpoint configured, also --embed): other commands' searches ask
          it instead of checking every file;
  worker  session ingestion from the agents' folders (as ctx0 ingest
          --watch), filing each conversation queued for the librarian, and
          the curator when it is due;
  sync    with sync.auto in .ctx0/config.yaml and a remote, automatic sync
          (as ctx0 sync --watch): a push soon after local commits, a fetch
          and merge every --interval;
  commits a line per commit the branch gains meanwhile, whoever makes it
          (a remember, a filing, a pull, a person's git commit).

It prints one line per event (a JSON object per line with --json), and a
last one when it stops. One
daemon runs per vault: a second refuses to start. ctx0 status shows whether
it runs and what each part last did.

When .ctx0/config.yaml or the remotes change (ctx0 remote add, say), or
ctx0 trust approves settings, the daemon restarts its parts with the new
settings; settings that do not decode are reported, and the parts go on
with the ones they have. Settings that run a program or reach out which
this machine has not approved (see ctx0 trust), pulled by the sync part or
not, are reported and left out: no model program, no embeddings endpoint,
no automatic sync until ctx0 trust.

ctx0 daemon install makes it start with your session: a systemd user unit
on Linux, a launchd agent on macOS.`,
		Example: `  ctx0 daemon
  ctx0 daemon --json
  ctx0 daemon install
  ctx0 daemon uninstall`,
		Args: args(0, "no arguments, or a subcommand: install, uninstall"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runDaemon(cmd.Context(), opts)
		},
	}
	a.jsonFlag(cmd, "print a JSON object per event")
	cmd.Flags().DurationVar(&opts.interval, "interval", time.Minute, "how often automatic sync fetches the remote")
	cmd.AddCommand(a.newDaemonInstallCmd(), a.newDaemonUninstallCmd())
	return cmd
}

// daemonEvent is what ctx0 daemon --json prints per event: the part that
// did something and what, in the shape that part's own --watch prints.
type daemonEvent struct {
	Time   string             `json:"time"`
	Part   string             `json:"part"`
	Index  *index.Report      `json:"index,omitempty"`
	Embed  *index.EmbedReport `json:"embed,omitempty"`
	Worker *watchEvent        `json:"worker,omitempty"`
	Sync   *vault.WatchEvent  `json:"sync,omitempty"`
	Error  string             `json:"error,omitempty"`
	// Restarted says the settings changed and the parts were made again.
	Restarted bool `json:"restarted,omitempty"`
	// Unapproved are the settings of .ctx0/config.yaml the parts run
	// without, because this machine has not approved them (ctx0 trust).
	Unapproved []string `json:"unapproved,omitempty"`
	// RetryIn is, for a part that failed, how long until it runs again.
	RetryIn time.Duration `json:"retry_in_ns,omitempty"`
	// Commit is a commit the branch gained while the daemon ran.
	Commit *vault.LogEntry `json:"commit,omitempty"`
	// Stopped says the daemon stopped.
	Stopped bool `json:"stopped,omitempty"`
}

// runDaemon is ctx0 daemon: the parts, wired to this vault, run until ctx
// ends.
//
// The parts are made from the vault's settings: when they change (see
// watchSettings), the daemon makes them again.
func (a *app) runDaemon(ctx context.Context, opts daemonOptions) error {
	a.noAutoPush = true // the sync part pushes after commits itself
	a.ownWatcher = true // its index part is the watcher
	a.quietTrust = true // the daemon says it as an event (see daemonParts)
	out := &daemonPrinter{a: a, out: a.out()}
	parts, err := a.daemonParts(ctx, a.services, opts, out)
	if err != nil {
		return err
	}
	v, err := a.services.Vault(ctx)
	if err != nil {
		return err
	}
	restart := make(chan daemon.Restart)
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go a.watchSettings(watchCtx, v, opts, out, restart)
	err = daemon.Run(ctx, daemon.Options{
		Root: v.Root(), Parts: parts, Now: a.now, Restart: restart,
		Failed: func(part string, err error, retryIn time.Duration) {
			out.print(daemonEvent{Part: part, Error: err.Error(), RetryIn: retryIn},
				fmt.Sprintf("ctx0: %v; again in %s", err, retryIn))
		},
	})
	if err == nil {
		// So that the person watching knows it ended, and was not stuck.
		out.print(daemonEvent{Part: "daemon", Stopped: true}, "stopped")
	}
	return err
}

// daemonParts makes the daemon's parts with the services of c.
func (a *app) daemonParts(ctx context.Context, c *container, opts daemonOptions, out *daemonPrinter) ([]daemon.Part, error) {
	v, err := c.Vault(ctx)
	if err != nil {
		return nil, err
	}
	if t := v.Trust(); len(t.Unapproved) > 0 {
		// The parts are made from the settings without these: no model
		// program, no endpoint, no sync part.
		out.print(daemonEvent{Part: "daemon", Unapproved: t.Unapproved}, "ctx0: "+t.Warning())
	}
	ix, err := c.Index(ctx)
	if err != nil {
		return nil, err
	}
	parts := []daemon.Part{a.indexPart(ix, out), a.workerPart(out), commitsPart(v, out)}
	if p, ok, err := a.syncPart(v, opts.interval, out); err != nil {
		return nil, err
	} else if ok {
		parts = append(parts, p)
	}
	return parts, nil
}

// daemonPrinter prints the daemon's events, one at a time: its parts run
// in their own goroutines.
type daemonPrinter struct {
	a   *app
	out printer
	mu  sync.Mutex
}

// print prints e, or its text: the part's name, then text, after the
// local time.
func (p *daemonPrinter) print(e daemonEvent, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.a.now()
	e.Time = now.UTC().Format("2006-01-02T15:04:05Z")
	_ = p.out.event(e, func() error {
		_, err := fmt.Fprintf(p.a.stdout, "%s %s: %s\n", now.Local().Format("15:04:05"), e.Part, text)
		return err
	})
}

// firstLine is text's first line, what the state file keeps.
func firstLine(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	return line
}

// indexPart is the index watcher, embedding what changes when an
// embeddings endpoint is configured.
func (a *app) indexPart(ix *index.Index, out *daemonPrinter) daemon.Part {
	return daemon.Part{Name: "index", Run: func(ctx context.Context, record func(string)) error {
		embedder, err := a.services.Embeddings(ctx) // nil when none is configured
		if err != nil {
			return err
		}
		report := ix.EmbedAfter(ctx, embedder, func(rep index.Report) {
			text := sprint(func(w io.Writer) { _ = printReport(w, rep) })
			record(firstLine(text))
			out.print(daemonEvent{Part: "index", Index: &rep}, firstLine(text))
		}, func(erep index.EmbedReport, err error) {
			if err != nil {
				record("embed: " + err.Error())
				out.print(daemonEvent{Part: "index", Error: err.Error()}, "ctx0: "+err.Error())
				return
			}
			text := firstLine(sprint(func(w io.Writer) { _ = printEmbedReport(w, erep) }))
			record(text)
			out.print(daemonEvent{Part: "index", Embed: &erep}, text)
		})
		rep, err := ix.Refresh(ctx)
		if err != nil {
			return err
		}
		report(rep)
		return ix.Watch(ctx, report)
	}}
}

// workerPart is the worker, following the agents' default session
// folders.
func (a *app) workerPart(out *daemonPrinter) daemon.Part {
	return daemon.Part{Name: "worker", Run: func(ctx context.Context, record func(string)) error {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("find the session folders: %w", err)
		}
		dirs := sessions.DefaultDirs(home, a.getenv)
		w, err := a.openLibrarian(ctx)
		if err != nil {
			return err
		}
		return worker.Run(ctx, worker.Options{
			Librarian: w.opts, Dirs: dirs, Curate: a.curateFunc(), Now: a.now,
			Report: func(e worker.Event) {
				if e.Ingest != nil && !e.Ingest.Started && e.Ingest.File == "" && len(e.Ingest.Finished) == 0 {
					return
				}
				we := newWatchEvent(e)
				text := sprint(func(w io.Writer) { printWorkerEvent(w, e, dirs) })
				// The worker's lines begin with the time, which the
				// daemon's printer puts first itself.
				text = firstLine(text)
				if _, rest, ok := strings.Cut(text, " "); ok {
					text = rest
				}
				record(text)
				out.print(daemonEvent{Part: "worker", Worker: &we}, text)
			},
		})
	}}
}

// commitsPoll is how often the commits part looks at the branch.
const commitsPoll = 500 * time.Millisecond

// commitsPart prints a line for each commit the branch gains while the
// daemon runs: a remember made meanwhile, an agent run's filing, a pull.
func commitsPart(v *vault.Vault, out *daemonPrinter) daemon.Part {
	return daemon.Part{Name: "commits", Run: func(ctx context.Context, record func(string)) error {
		return v.FollowCommits(ctx, commitsPoll, func(cs []vault.LogEntry) {
			for _, c := range cs {
				line := fmt.Sprintf("%s (%s)", c.Subject, c.Hash[:min(10, len(c.Hash))])
				record(line)
				out.print(daemonEvent{Part: "commits", Commit: &c}, line)
			}
		})
	}}
}

// syncPart is automatic sync, when sync.auto is on and the vault has a
// remote; ok is false otherwise.
func (a *app) syncPart(v *vault.Vault, interval time.Duration, out *daemonPrinter) (_ daemon.Part, ok bool, err error) {
	if !v.Config().Sync.Auto {
		return daemon.Part{}, false, nil
	}
	rs, err := v.Remotes()
	if err != nil || len(rs) == 0 {
		return daemon.Part{}, false, err
	}
	return daemon.Part{Name: "sync", Run: func(ctx context.Context, record func(string)) error {
		return v.Watch(ctx, vault.WatchOptions{Interval: interval, Report: func(ev vault.WatchEvent) {
			line := watchLine(ev)
			record(line)
			out.print(daemonEvent{Part: "sync", Sync: &ev}, line)
		}})
	}}, true, nil
}

// sprint is what print writes, as a string.
func sprint(print func(w io.Writer)) string {
	var b bytes.Buffer
	print(&b)
	return b.String()
}

func (a *app) newDaemonInstallCmd() *cobra.Command {
	var print bool
	cmd := &cobra.Command{
		Use:   "install [--print]",
		Short: "Start the daemon with your session: a systemd user unit or a launchd agent",
		Long: `Write a service file that runs ctx0 daemon for this vault, restarted if it
fails: on Linux a systemd user unit in $XDG_CONFIG_HOME/systemd/user/
(default ~/.config/systemd/user/), on macOS a launchd agent in
~/Library/LaunchAgents/. Each vault has its own, named after its folder.
Then it enables and starts it (systemctl --user enable --now, or launchctl
load -w); without that program, it prints the command to run.

--print shows the file, and says where it would go, and writes nothing. ctx0 daemon uninstall stops the
service and removes the file.`,
		Example: `  ctx0 daemon install --print
  ctx0 daemon install`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			svc, err := a.daemonService(ctx)
			if err != nil {
				return err
			}
			if print {
				if _, err := a.stdout.Write(svc.Content); err != nil {
					return err
				}
				a.note("ctx0 daemon install would write this to %s (nothing written).", svc.Path)
				return nil
			}
			started, err := svc.Install(ctx)
			if err != nil {
				return err
			}
			a.note("Wrote %s.", svc.Path)
			if started {
				a.note("Enabled and started %s: %s.", svc.Name, strings.Join(svc.Commands(svc.Enable), "; "))
				return nil
			}
			a.note("%s is not on PATH. To start the daemon now and with each session, run:", svc.Manager)
			for _, c := range svc.Commands(svc.Enable) {
				a.note("  %s", c)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&print, "print", false, "print the service file instead of writing it")
	return cmd
}

func (a *app) newDaemonUninstallCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "uninstall",
		Short: "Stop the daemon's service and remove the file ctx0 daemon install wrote",
		Long: `Stop and disable the service ctx0 daemon install wrote for this vault
(systemctl --user disable --now, or launchctl unload -w) and remove its file.
A file at that place that ctx0 did not write is left alone.`,
		Example: `  ctx0 daemon uninstall`,
		Args:    args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			svc, err := a.daemonService(ctx)
			if err != nil {
				return err
			}
			stopped, err := svc.Uninstall(ctx)
			if err != nil {
				return err
			}
			if stopped {
				a.note("Stopped and disabled %s: %s.", svc.Name, strings.Join(svc.Commands(svc.Disable), "; "))
			} else {
				a.note("%s is not on PATH: if the daemon still runs, stop it with: %s", svc.Manager, svc.Commands(svc.Disable)[0])
			}
			a.note("Removed %s.", svc.Path)
			return nil
		},
	}
}

// daemonService is the service file that runs this vault's daemon, with
// the running ctx0.
func (a *app) daemonService(ctx context.Context) (daemon.Service, error) {
	v, err := a.services.Vault(ctx)
	if err != nil {
		return daemon.Service{}, err
	}
	root := v.Root()
	exe, err := os.Executable()
	if err != nil {
		return daemon.Service{}, fmt.Errorf("daemon: find the ctx0 program: %w", err)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return daemon.Service{}, fmt.Errorf("daemon: find the home folder: %w", err)
	}
	return daemon.NewService(daemon.ServiceOptions{
		GOOS: runtime.GOOS, Home: home, ConfigHome: a.getenv("XDG_CONFIG_HOME"), Exe: exe, Root: root,
	})
}
