package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ctx0/ctx0/librarian/hooks"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
)

// vaultOptions are the options every command opens the vault with: the
// app's clock, and, with sync.auto, a background push after each commit.
func (a *app) vaultOptions() []vault.Option {
	return []vault.Option{vault.WithClock(a.now), vault.WithOnCommit(a.autoPush), vault.WithOnWait(func(what string) { a.step("waiting for %s", what) })}
}

// autoPush, after a commit, records that a push is wanted and starts one
// detached ctx0 sync --push-wanted unless one is already pushing: many
// writes make one push. It is silent: a write must not fail or wait
// because the network is slow; the pusher logs to the hook log.
func (a *app) autoPush(v *vault.Vault) {
	if !v.Config().Sync.Auto || a.noAutoPush {
		return
	}
	rs, err := v.Remotes()
	if err != nil || len(rs) == 0 {
		return
	}
	start, err := vault.WantPush(v.Root())
	if err != nil || !start {
		return
	}
	a.startPusher(v.Root())
}

// startPusher starts the detached pusher for the vault at root.
func (a *app) startPusher(root string) {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	stateDir := filepath.Join(root, filepath.FromSlash(sessions.StateDir))
	if err := hooks.Background(exe, root, stateDir)([]string{"sync", "--push-wanted"}, nil); err != nil {
		hooks.OpenLog(stateDir, a.now).Printf("automatic sync: %v", err)
	}
}

// pushWanted is ctx0 sync --push-wanted: the detached pusher of automatic
// sync, logging to the hook log.
func (a *app) pushWanted(ctx context.Context, v *vault.Vault, o vault.SyncOptions) error {
	log := hooks.OpenLog(filepath.Join(v.Root(), filepath.FromSlash(sessions.StateDir)), a.now)
	return v.PushWanted(ctx, vault.PushOptions{Sync: o, Report: func(ev vault.WatchEvent) {
		log.Printf("automatic sync: %s", watchLine(ev))
	}})
}

// sessionPull is automatic sync at a session's start: merge what the
// remote has, within the configured budget, before the context block is
// built (the fetch gets most of the budget, the local merge the rest);
// and start the pusher if an earlier push is still owed.
func (a *app) sessionPull(ctx context.Context, root string) (string, error) {
	v, err := vault.Open(ctx, root, a.vaultOptions()...)
	if err != nil {
		return "", err
	}
	cfg := v.Config().Sync
	if !cfg.Auto {
		return "", nil
	}
	if rs, err := v.Remotes(); err != nil || len(rs) == 0 {
		return "", err
	}
	if vault.PushIsWanted(root) {
		a.startPusher(root)
	}
	res, err := v.Sync(ctx, vault.SyncOptions{PullOnly: true, RefuseRewrite: true, FetchTimeout: cfg.StartBudget * 4 / 5})
	if err != nil {
		return "", fmt.Errorf("automatic sync: %w; the context block uses what the vault has", err)
	}
	said := "automatic sync: " + syncResultLine(res, false)
	if res.Changed > 0 {
		// The pull may have brought settings that run or reach out: the
		// vault read again withholds them until ctx0 trust, and says so.
		if nv, err := vault.Open(ctx, root); err == nil && nv.Trust().Warning() != "" {
			said += "; " + nv.Trust().Warning()
		}
	}
	return said, nil
}

// proposeAutoSync says, once a vault has a remote, how to sync it
// automatically, unless it already does.
func (a *app) proposeAutoSync(v *vault.Vault) {
	if !v.Config().Sync.Auto && !slices.Contains(v.Trust().Unapproved, "sync.auto") {
		a.note("To sync automatically (pull as agent sessions start, push after each write), set \"auto: true\" under sync: in %s, then run ctx0 trust.", filepath.Join(v.Root(), filepath.FromSlash(vault.ConfigFile)))
	}
}
