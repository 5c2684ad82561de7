package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/ui"
)

// uiOptions are ctx0 ui's flags.
type uiOptions struct {
	addr   string
	noOpen bool
	// project is the project the session-start block is made for.
	project string
}

func (a *app) newUICmd() *cobra.Command {
	var o uiOptions
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Browse, ask, review and undo in a local web page",
		Long: `Serve a web page for this vault on this machine and open it in the browser:
the entries (by type, folder, project or tag, pinned first) with their fields,
body, backlinks and history; for a question, the search results beside the
retrieve bundle an agent would get and the session-start <memory> block; a
timeline of changes (agent runs, filings, merges, syncs, edits) with their
diffs, each undone with one click by a new commit (as ctx0 undo does); pin,
archive, supersede, or edit a field or the body, with the CLI's checks; the
conflicts kept aside, side by side, to resolve; and what ctx0 status and
ctx0 doctor report.

The page listens on 127.0.0.1 (a free port unless --addr) and answers only to
the address it prints, which opens it once: it sets a cookie for this browser
and leaves no secret in the address bar or history. Requests from other web
sites are refused. It runs until Ctrl-C, and keeps the index fresh meanwhile
(as ctx0 index --watch does) unless a watcher already runs.`,
		Example: `  ctx0 ui
  ctx0 ui --no-open --addr 127.0.0.1:7777`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("project") {
				o.project = currentProject()
			}
			return a.runUI(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:0", "the loopback address to listen on (port 0: a free one)")
	cmd.Flags().BoolVar(&o.noOpen, "no-open", false, "print the address only; do not open a browser")
	cmd.Flags().StringVar(&o.project, "project", "", "the project the session-start block is made for (default: the git remote of this folder)")
	return cmd
}

// runUI serves the page until ctx ends.
func (a *app) runUI(ctx context.Context, o uiOptions) error {
	a.ownWatcher = true // it watches, below
	v, ix, err := a.openIndexed(ctx)
	if err != nil {
		return err
	}
	srv, err := ui.New(ui.Services{
		Vault: v, Index: ix, Project: o.project,
		Memory: func(ctx context.Context) (extractor.Memory, extractor.Config, error) {
			return a.openMemory(ctx)
		},
		Conversations: a.services.Store,
	})
	if err != nil {
		return err
	}
	ln, err := srv.Listen(o.addr)
	if errors.Is(err, ui.ErrNotLoopback) {
		return usagef("ui: %w", err)
	}
	if err != nil {
		return fmt.Errorf("ui: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Reads then need no check of every file: the page stays fast on a
	// large vault, and fresh as files change.
	if w, running := ix.RunningWatcher(); !running || w.Auto { // takes over from an automatic one
		watched := make(chan struct{})
		defer func() { cancel(); <-watched }()
		go func() {
			defer close(watched)
			if err := ix.Watch(ctx, nil); err != nil && ctx.Err() == nil {
				a.note("ctx0: ui: keeping the index fresh: %v; each page checks the files instead", err)
			}
		}()
	}
	url := srv.SignInURL()
	fmt.Fprintf(a.stdout, "%s\n", url)
	a.note("Serving %s; the address opens the page once. Ctrl-C stops.", v.Root())
	if !o.noOpen {
		openBrowser(url)
	}
	return srv.Serve(ctx, ln)
}

// openBrowser opens url with the system's opener, if there is one; the
// page is served either way.
func openBrowser(url string) {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return
	}
	if cmd := exec.Command(p, url); cmd.Start() == nil {
		go cmd.Wait()
	}
}
