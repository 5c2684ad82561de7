package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/daemon"
	"github.com/ctx0/ctx0/vault"
)

// settingsSettle is how long the settings files must be still before the
// daemon reads them: an editor's save may be several writes.
const settingsSettle = 300 * time.Millisecond

// watchSettings follows the files the daemon's parts are made from, the
// vault's config, git's (its remotes) and the record of the settings this
// machine approved (ctx0 trust), until ctx ends. When one of them
// changes, it opens the vault's services anew and checks every section of
// the config; if all is well it sends the parts made from them on restart,
// and once the old parts stopped, those services replace the old ones. A
// file that does not parse is reported, and the parts go on as they were:
// a typo must not stop a running daemon.
func (a *app) watchSettings(ctx context.Context, v *vault.Vault, opts daemonOptions, out *daemonPrinter, restart chan<- daemon.Restart) {
	// The approval record too: ctx0 trust applies settings withheld so far.
	files := []string{filepath.Join(v.Root(), filepath.FromSlash(vault.ConfigFile)), filepath.Join(v.GitDir(), "config"), v.Trust().Record}
	if err := os.MkdirAll(filepath.Dir(v.Trust().Record), 0o700); err != nil {
		out.print(daemonEvent{Part: "daemon", Error: err.Error()}, fmt.Sprintf("ctx0: follow the approved settings: %v; restart the daemon after ctx0 trust", err))
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		out.print(daemonEvent{Part: "daemon", Error: err.Error()}, fmt.Sprintf("ctx0: follow the settings: %v; restart the daemon after changing them", err))
		return
	}
	defer w.Close()
	watched := map[string]bool{}
	for _, f := range files {
		watched[f] = true
		// The folder, not the file: editors and git save by renaming a
		// new file into place, which a watch on the old file misses.
		if err := w.Add(filepath.Dir(f)); err != nil {
			out.print(daemonEvent{Part: "daemon", Error: err.Error()}, fmt.Sprintf("ctx0: follow %s: %v; restart the daemon after changing it", f, err))
		}
	}
	read := func() [][]byte {
		var all [][]byte
		for _, f := range files {
			data, _ := os.ReadFile(f)
			all = append(all, data)
		}
		return all
	}
	last := read()
	var settle <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			out.print(daemonEvent{Part: "daemon", Error: err.Error()}, fmt.Sprintf("ctx0: follow the settings: %v", err))
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if watched[ev.Name] {
				settle = time.After(settingsSettle)
			}
		case <-settle:
			settle = nil
			now := read()
			if slices.EqualFunc(now, last, bytes.Equal) {
				continue
			}
			last = now
			r, err := a.remakeDaemon(ctx, opts, out)
			if err != nil {
				out.print(daemonEvent{Part: "daemon", Error: err.Error()}, fmt.Sprintf("ctx0: the settings changed, but %v; going on as before", err))
				continue
			}
			out.print(daemonEvent{Part: "daemon", Restarted: true}, "the settings changed; restarting the parts with them")
			select {
			case restart <- r:
			case <-ctx.Done():
				r.Stopped()
				return
			}
		}
	}
}

// remakeDaemon opens the vault's services anew, checks that every section
// of its config decodes (the parts open the model and the endpoints only
// as they need them, as at a daemon's start), and makes the daemon's parts
// from them. The restart's Stopped puts the new services in the old ones'
// place and closes those.
func (a *app) remakeDaemon(ctx context.Context, opts daemonOptions, out *daemonPrinter) (daemon.Restart, error) {
	c := &container{a: a}
	_, err := c.IngestConfig(ctx)
	if err == nil {
		_, err = c.CuratorConfig(ctx)
	}
	if err == nil {
		_, err = c.ExtractorConfig(ctx)
	}
	if err == nil {
		_, err = section(ctx, c, &c.llm, llm.ParseConfig)
	}
	var parts []daemon.Part
	if err == nil {
		parts, err = a.daemonParts(ctx, c, opts, out)
	}
	if err != nil {
		c.closeAll()
		return daemon.Restart{}, err
	}
	return daemon.Restart{Parts: parts, Stopped: func() {
		old := a.services
		a.services = c
		old.closeAll()
	}}, nil
}
