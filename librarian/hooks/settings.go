// Package hooks connects ctx0 to agents' hooks. For Claude Code it installs
// ctx0's hook in a settings.json, and handles the hook's events: before a
// compaction, when the agent stops and when the session ends, the session's
// transcript is ingested and its finished conversations are queued for the
// librarian.
package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/internal/jsonobj"
)

// Events are the Claude Code hook events ctx0 installs itself for.
var Events = ClaudeCodeAgent.Events

// Change says what Install or Uninstall did to a settings file. Events
// are listed in the order of the agent's Events.
type Change struct {
	Settings string   `json:"settings"`
	Added    []string `json:"added"`
	Updated  []string `json:"updated"`
	Removed  []string `json:"removed"`
}

// Changed reports whether the file was written.
func (c Change) Changed() bool { return len(c.Added)+len(c.Updated)+len(c.Removed) > 0 }

// Command is the Claude Code hook command for the vault at root.
func Command(exe, root string) string { return ClaudeCodeAgent.Command(exe, root) }

// Command is a's hook command for the vault at root, as the agent runs it
// through the shell.
func (a Agent) Command(exe, root string) string {
	return exe + " --vault " + shellQuote(root) + " hook " + a.Name
}

// shellQuote quotes s for a POSIX shell, only if it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isOurs reports whether a hook command is ctx0's Claude Code hook,
// whatever the binary's path and the vault: ctx0 … hook claude-code.
func isOurs(command string) bool { return ClaudeCodeAgent.isOurs(command) }

// isOurs reports whether a hook command is ctx0's hook for a, whatever the
// binary's path and the vault: ctx0 … hook NAME.
func (a Agent) isOurs(command string) bool {
	f := strings.Fields(command)
	if len(f) < 3 {
		return false
	}
	if b := filepath.Base(f[0]); b != "ctx0" && b != "ctx0.exe" {
		return false
	}
	for i := 1; i+1 < len(f); i++ {
		if f[i] == "hook" && f[i+1] == a.Name {
			return true
		}
	}
	return false
}

// Install merges ctx0's hook, running command, into the Claude Code
// settings file at path (see Agent.Install).
func Install(path, command string) (Change, error) { return ClaudeCodeAgent.Install(path, command) }

// Uninstall removes ctx0's Claude Code hooks (see Agent.Uninstall).
func Uninstall(path string) (Change, error) { return ClaudeCodeAgent.Uninstall(path) }

// Install merges ctx0's hook, running command, into a's hook file at path
// for each of a's Events. Every other hook and setting is kept as written;
// a ctx0 hook already there is updated in place, so installing twice
// changes nothing. The file and its folder are created if needed.
func (a Agent) Install(path, command string) (Change, error) {
	return a.edit(path, func(event string, groups []json.RawMessage) ([]json.RawMessage, string, error) {
		if slices.Contains(a.Retired, event) {
			return a.removeOurs(groups)
		}
		found, updated := false, false
		for gi, g := range groups {
			changed, err := a.eachOurs(&groups[gi], g, func(hook *jsonobj.Object) (keep bool, err error) {
				if found {
					return false, nil // a second copy of ours
				}
				found = true
				cur, _ := hook.Get("command")
				var c string
				_ = json.Unmarshal(cur, &c) // not a string: replaced below
				if c == command {
					return true, nil
				}
				return true, hook.Set("command", command)
			})
			if err != nil {
				return nil, "", err
			}
			updated = updated || changed
		}
		switch {
		case updated:
			return groups, "updated", nil
		case found:
			return groups, "", nil
		}
		type hook struct {
			Type    string `json:"type,omitempty"`
			Command string `json:"command"`
		}
		h := hook{"command", command}
		if a.Flat {
			h.Type = "" // Cursor's entries are {"command": …} alone
		}
		g, err := jsonobj.Marshal(struct {
			Hooks []hook `json:"hooks"`
		}{[]hook{h}})
		if err != nil {
			return nil, "", err
		}
		return append(groups, g), "added", nil
	})
}

// Uninstall removes what Install added to the hook file at path: ctx0's
// hooks, and the groups, events and hooks setting left empty by their
// removal. Everything else is kept as written.
func (a Agent) Uninstall(path string) (Change, error) {
	return a.edit(path, func(event string, groups []json.RawMessage) ([]json.RawMessage, string, error) {
		return a.removeOurs(groups)
	})
}

// removeOurs takes ctx0's hooks out of an event's groups, and the groups
// they leave empty.
func (a Agent) removeOurs(groups []json.RawMessage) ([]json.RawMessage, string, error) {
	removed := false
	kept := groups[:0]
	for _, g := range groups {
		var emptied bool
		changed, err := a.eachOurs(&g, g, func(*jsonobj.Object) (bool, error) { return false, nil })
		if err != nil {
			return nil, "", err
		}
		if changed {
			removed = true
			var o jsonobj.Object
			if json.Unmarshal(g, &o) == nil {
				hs, _ := o.Get("hooks")
				emptied = string(hs) == "[]"
			}
		}
		if !emptied {
			kept = append(kept, g)
		}
	}
	if !removed {
		return groups, "", nil
	}
	return kept, "removed", nil
}

// Installed returns the events among a's Events and Retired for which the
// hook file at path holds one of ctx0's hooks (for any vault). A missing
// file holds none. It reads the file and writes nothing.
func (a Agent) Installed(path string) ([]string, error) {
	var events []string
	_, err := a.edit(path, func(event string, groups []json.RawMessage) ([]json.RawMessage, string, error) {
		for _, g := range groups {
			found := false
			if _, err := a.eachOurs(&g, g, func(*jsonobj.Object) (bool, error) { found = true; return true, nil }); err != nil {
				return nil, "", err
			}
			if found {
				events = append(events, event)
				break
			}
		}
		return groups, "", nil
	})
	return events, err
}

// eachOurs calls fn for each of ctx0's hooks in the group g, which it
// may change; fn says whether to keep it. The group, rewritten if anything
// changed, goes to *out.
func (a Agent) eachOurs(out *json.RawMessage, g json.RawMessage, fn func(hook *jsonobj.Object) (keep bool, err error)) (changed bool, err error) {
	var group jsonobj.Object
	if json.Unmarshal(g, &group) != nil {
		return false, nil // not a hook group: not ours to touch
	}
	raw, ok := group.Get("hooks")
	var list []json.RawMessage
	if !ok || json.Unmarshal(raw, &list) != nil {
		return false, nil
	}
	kept := list[:0:0]
	for _, h := range list {
		var hook jsonobj.Object
		cmd := ""
		if json.Unmarshal(h, &hook) == nil {
			c, _ := hook.Get("command")
			_ = json.Unmarshal(c, &cmd) // a command that is not a string is not ours
		}
		if !a.isOurs(cmd) {
			kept = append(kept, h)
			continue
		}
		before, err := hook.MarshalJSON()
		if err != nil {
			return false, err
		}
		keep, err := fn(&hook)
		if err != nil {
			return false, err
		}
		if !keep {
			changed = true
			continue
		}
		after, err := hook.MarshalJSON()
		if err != nil {
			return false, err
		}
		if !bytes.Equal(before, after) {
			changed = true
		}
		kept = append(kept, after)
	}
	if !changed {
		return false, nil
	}
	if err := group.Set("hooks", kept); err != nil {
		return false, err
	}
	*out, err = group.MarshalJSON()
	return true, err
}

// edit applies fn to the hook groups of each of a's Events and Retired in
// the settings file at path; fn returns the new groups and what it did ("added",
// "updated", "removed" or ""). The file is written, atomically, only if
// something changed.
func (a Agent) edit(path string, fn func(event string, groups []json.RawMessage) ([]json.RawMessage, string, error)) (ch Change, err error) {
	ch = Change{Settings: path, Added: []string{}, Updated: []string{}, Removed: []string{}}
	// Settings kept in a dotfiles repository are often a symlink: write
	// through it, not over it.
	target := atomicfile.Through(path)
	linked := target != path
	path = target
	settings, mode, err := readSettings(path, a.Title)
	if err != nil {
		return ch, err
	}
	var hooks jsonobj.Object
	raw, had := settings.Get("hooks")
	if had && json.Unmarshal(raw, &hooks) != nil {
		return ch, fmt.Errorf("edit %s: \"hooks\" is not an object", path)
	}
	for _, event := range slices.Concat(a.Events, a.Retired) {
		var groups []json.RawMessage
		raw, ok := hooks.Get(event)
		if ok && json.Unmarshal(raw, &groups) != nil {
			return ch, fmt.Errorf("edit %s: hooks.%s is not an array", path, event)
		}
		if a.Flat && len(groups) > 0 {
			// A flat list of hooks is edited as the one group holding them.
			w, err := jsonobj.Marshal(map[string][]json.RawMessage{"hooks": groups})
			if err != nil {
				return ch, err
			}
			groups = []json.RawMessage{w}
		}
		groups, did, err := fn(event, groups)
		if err != nil {
			return ch, fmt.Errorf("edit %s: %w", path, err)
		}
		if a.Flat {
			var flat []json.RawMessage
			for _, g := range groups {
				var w struct {
					Hooks []json.RawMessage `json:"hooks"`
				}
				if err := json.Unmarshal(g, &w); err != nil {
					return ch, fmt.Errorf("edit %s: %w", path, err)
				}
				flat = append(flat, w.Hooks...)
			}
			groups = flat
		}
		switch did {
		case "":
			continue
		case "added":
			ch.Added = append(ch.Added, event)
		case "updated":
			ch.Updated = append(ch.Updated, event)
		case "removed":
			ch.Removed = append(ch.Removed, event)
		}
		if len(groups) == 0 {
			hooks.Remove(event)
		} else if err := hooks.Set(event, groups); err != nil {
			return ch, err
		}
	}
	if !ch.Changed() {
		return ch, nil
	}
	if len(hooks) == 0 && len(ch.Removed) > 0 {
		settings.Remove("hooks")
	} else if err := settings.Set("hooks", hooks); err != nil {
		return ch, err
	}
	if _, ok := settings.Get("version"); a.Flat && !ok && len(ch.Added) > 0 {
		// Cursor's file says which version of its format it is in. It is
		// left on uninstall: it may have been the person's.
		settings = append(jsonobj.Object{{Key: "version", Value: json.RawMessage("1")}}, settings...)
	}
	if len(ch.Removed) > 0 && !linked && a.leftBare(settings) {
		// Nothing but what install puts in a new file is left: the file
		// goes, as it came, so uninstall leaves no "{}" behind.
		if err := os.Remove(path); err != nil {
			return ch, fmt.Errorf("remove %s: %w", path, err)
		}
		return ch, nil
	}
	return ch, writeSettings(path, settings, mode)
}

// leftBare reports whether settings holds nothing but what Install puts in
// a file it creates besides the hooks: nothing, or Cursor's version.
func (a Agent) leftBare(settings jsonobj.Object) bool {
	switch {
	case len(settings) == 0:
		return true
	case a.Flat && len(settings) == 1:
		v, ok := settings.Get("version")
		return ok && string(v) == "1"
	}
	return false
}

// readSettings reads a settings file; a missing or empty one is an empty
// object.
func readSettings(path, title string) (jsonobj.Object, os.FileMode, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return jsonobj.Object{}, 0o644, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read %s settings: %w", title, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s settings: %w", title, err)
	}
	var o jsonobj.Object
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &o); err != nil {
			return nil, 0, fmt.Errorf("read %s settings %s: not valid JSON (%v); fix it or move it away, then try again", title, path, err)
		}
	}
	return o, fi.Mode().Perm(), nil
}

// writeSettings writes the settings with two-space indentation, as Claude
// Code does, atomically and durably.
func writeSettings(path string, settings jsonobj.Object, mode os.FileMode) error {
	data, err := settings.Format()
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := atomicfile.Replace(path, data, mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
