package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ctx0/ctx0/integration"
	"github.com/ctx0/ctx0/integration/codex"
	"github.com/ctx0/ctx0/integration/cursor"
	"github.com/ctx0/ctx0/integration/gemini"
)

// Agents other than Claude Code keep their MCP servers in their own files
// (see their packages under integration). Cursor and Gemini CLI take the
// JSON shape Claude Code takes, so Install and Uninstall edit them;
// Codex's TOML is edited as text by InstallCodex and UninstallCodex.

// AgentConfig is where agent ("cursor", "gemini" or "codex") keeps its MCP
// servers: the user's file, or with project the file of the project at
// projectDir.
func AgentConfig(agent string, project bool, home, projectDir string, getenv func(string) string) (Config, error) {
	scope := integration.User
	if project {
		scope = integration.Project
	}
	switch agent {
	case cursor.Name:
		return Config{Path: cursor.MCPConfig(scope, home, projectDir)}, nil
	case gemini.Name:
		return Config{Path: gemini.SettingsFile(scope, home, projectDir, getenv)}, nil
	case codex.Name:
		return Config{Path: codex.MCPConfig(scope, home, projectDir, getenv)}, nil
	}
	return Config{}, fmt.Errorf("agent %q: ctx0 registers itself in claude-code, cursor, gemini and codex", agent)
}

// codexHeader opens ctx0's table in Codex's config.toml.
const codexHeader = "[mcp_servers." + ServerName + "]"

// codexTable renders ctx0's server as Codex's TOML table. A JSON string
// without HTML escaping is a valid TOML basic string.
func codexTable(e ServerEntry) (string, error) {
	var b strings.Builder
	b.WriteString(codexHeader + "\n")
	for _, kv := range []struct {
		key string
		val any
	}{{"command", e.Command}, {"args", e.Args}} {
		var v bytes.Buffer
		enc := json.NewEncoder(&v)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(kv.val); err != nil {
			return "", err
		}
		val := strings.TrimSuffix(v.String(), "\n")
		if kv.key == "args" {
			val = strings.ReplaceAll(val, `","`, `", "`)
		}
		fmt.Fprintf(&b, "%s = %s\n", kv.key, val)
	}
	return b.String(), nil
}

// codexBlock finds ctx0's table in a config.toml: the bytes from its header
// line to the next table's header (or the end). ok is false if there is
// none.
func codexBlock(data []byte) (start, end int, ok bool) {
	off := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), len(data)+1)
	start = -1
	for sc.Scan() {
		line := sc.Bytes()
		n := len(line) + 1
		t := bytes.TrimSpace(line)
		switch {
		case start < 0 && string(t) == codexHeader:
			start = off
		case start >= 0 && bytes.HasPrefix(t, []byte("[")):
			return start, off, true
		}
		off += n
	}
	if start < 0 {
		return 0, 0, false
	}
	return start, min(off, len(data)), true
}

// codexOurs reports whether a table is one ctx0 wrote: its command is a
// ctx0 binary and its first argument mcp.
func codexOurs(block []byte) bool {
	var e ServerEntry
	for _, line := range strings.Split(string(block), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "command":
			_ = json.Unmarshal([]byte(strings.TrimSpace(v)), &e.Command)
		case "args":
			_ = json.Unmarshal([]byte(strings.TrimSpace(v)), &e.Args)
		}
	}
	raw, _ := json.Marshal(e)
	return ours(raw)
}

// InstallCodex registers ctx0's server in Codex's config.toml at path as
// the table [mcp_servers.ctx0]: appended at the end, or replaced in place
// when ctx0 wrote it before. Every other byte of the file is kept.
func InstallCodex(path string, e ServerEntry) (Change, error) {
	ch := Change{Config: path}
	table, err := codexTable(e)
	if err != nil {
		return ch, err
	}
	data, mode, err := readText(path)
	if err != nil {
		return ch, err
	}
	var out []byte
	if start, end, ok := codexBlock(data); ok {
		block := data[start:end]
		switch {
		case !codexOurs(block):
			return ch, fmt.Errorf("%s: %w; remove it or rename it first", path, ErrNotOurs)
		case bytes.Equal(bytes.TrimRight(block, "\n"), []byte(strings.TrimSuffix(table, "\n"))):
			ch.Action = "unchanged"
			return ch, nil
		}
		ch.Action = "updated"
		// Keep the blank lines that separated the table from the next.
		trail := block[len(bytes.TrimRight(block, "\n"))+1:]
		out = append(append(append([]byte{}, data[:start]...), table...), trail...)
		out = append(out, data[end:]...)
	} else {
		ch.Action = "added"
		out = append([]byte{}, data...)
		if len(out) > 0 {
			// A blank line before the table, always, so that uninstall
			// knows to take one away with it.
			if !bytes.HasSuffix(out, []byte("\n")) {
				out = append(out, '\n')
			}
			out = append(out, '\n')
		}
		out = append(out, table...)
	}
	return ch, writeText(path, out, mode)
}

// UninstallCodex removes what InstallCodex added to Codex's config.toml at
// path: ctx0's table, and the blank line put before it. A table named ctx0
// that ctx0 did not write is left alone.
func UninstallCodex(path string) (Change, error) {
	ch := Change{Config: path, Action: "absent"}
	data, mode, err := readText(path)
	if err != nil || data == nil {
		return ch, err
	}
	start, end, ok := codexBlock(data)
	if !ok {
		return ch, nil
	}
	if !codexOurs(data[start:end]) {
		return ch, fmt.Errorf("%s: %w; left as it is", path, ErrNotOurs)
	}
	ch.Action = "removed"
	before, after := data[:start], data[end:]
	if len(after) == 0 && bytes.HasSuffix(before, []byte("\n\n")) {
		before = before[:len(before)-1] // the blank line install put before it
	}
	rest := append(append([]byte{}, before...), after...)
	if len(bytes.TrimSpace(rest)) == 0 && !isLink(path) {
		// Nothing else was in it, as when install created it.
		return ch, os.Remove(path)
	}
	return ch, writeText(path, rest, mode)
}

// readText reads a config file; a missing one is nil.
func readText(path string) ([]byte, os.FileMode, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	return data, fi.Mode().Perm(), nil
}
