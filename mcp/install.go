package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx0/ctx0/integration"
	"github.com/ctx0/ctx0/integration/claudecode"
	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/internal/jsonobj"
)

// ServerName is the name ctx0 registers itself under in agents' configs.
const ServerName = "ctx0"

// ServerEntry is how an agent starts ctx0's server over stdio, in the
// mcpServers shape Claude Code, Cursor and Gemini CLI share.
type ServerEntry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// Scope is one of Claude Code's scopes of MCP servers.
type Scope = integration.Scope

const (
	User    = integration.User    // ~/.claude.json: every project
	Project = integration.Project // .mcp.json at the project's root: shared through its repository
	Local   = integration.Local   // ~/.claude.json, under the project's path: you, in this project
)

// Config is where the MCP servers of a scope are kept: the mcpServers
// member of the object under the keys Under of the file Path.
type Config struct {
	Path  string
	Under []string
}

// ClaudeCodeConfig returns where Claude Code keeps the MCP servers of a
// scope, for the project at projectDir (see claudecode.MCPConfig).
func ClaudeCodeConfig(scope Scope, home, projectDir string, getenv func(string) string) Config {
	path, under := claudecode.MCPConfig(scope, home, projectDir, getenv)
	return Config{Path: path, Under: under}
}

// Change says what Install or Uninstall did to a config file.
type Change struct {
	Config  string `json:"config"`
	Project string `json:"project,omitempty"` // for the local scope
	Action  string `json:"action"`            // added, updated, unchanged, removed, absent
}

// ErrNotOurs is returned when the config has a server named ctx0 that ctx0
// did not write: it is left alone.
var ErrNotOurs = errors.New("a server named ctx0 that ctx0 did not register")

// ours reports whether a server entry is one ctx0 registered: its command
// is a ctx0 binary started with the mcp command.
func ours(raw json.RawMessage) bool {
	var e ServerEntry
	if json.Unmarshal(raw, &e) != nil {
		return false
	}
	return strings.HasPrefix(filepath.Base(e.Command), "ctx0") && len(e.Args) > 0 && e.Args[0] == "mcp"
}

// Install registers ctx0's server in the agent config c, under
// mcpServers.ctx0: added, or updated in place when ctx0 registered it
// before; every other server and setting is kept, in its order. The file,
// its folder and the objects on the way are created if needed.
func Install(c Config, e ServerEntry) (Change, error) {
	ch := newChange(c)
	val, err := json.Marshal(e)
	if err != nil {
		return ch, err
	}
	top, mode, err := load(c.Path)
	if err != nil {
		return ch, err
	}
	top, err = editServers(c, top, func(servers jsonobj.Object) (jsonobj.Object, error) {
		switch j := servers.Index(ServerName); {
		case j < 0:
			ch.Action = "added"
			return append(servers, jsonobj.Member{Key: ServerName, Value: val}), nil
		case !ours(servers[j].Value):
			return nil, fmt.Errorf("%s: %w; remove it or rename it first", c.Path, ErrNotOurs)
		case sameJSON(servers[j].Value, val):
			ch.Action = "unchanged"
		default:
			servers[j].Value = val
			ch.Action = "updated"
		}
		return servers, nil
	})
	if err != nil || ch.Action == "unchanged" {
		return ch, err
	}
	return ch, save(c.Path, top, mode)
}

// Uninstall removes what Install added to the config c: ctx0's server, and
// mcpServers if that leaves it empty; a file left empty is removed (unless
// it is a symbolic link, kept in a dotfiles repository, say). A
// server named ctx0 that ctx0 did not register is left alone.
func Uninstall(c Config) (Change, error) {
	ch := newChange(c)
	ch.Action = "absent"
	if _, err := os.Stat(c.Path); errors.Is(err, os.ErrNotExist) {
		return ch, nil
	}
	top, mode, err := load(c.Path)
	if err != nil {
		return ch, err
	}
	top, err = editServers(c, top, func(servers jsonobj.Object) (jsonobj.Object, error) {
		j := servers.Index(ServerName)
		if j < 0 {
			return servers, nil
		}
		if !ours(servers[j].Value) {
			return nil, fmt.Errorf("%s: %w; left as it is", c.Path, ErrNotOurs)
		}
		ch.Action = "removed"
		return append(servers[:j], servers[j+1:]...), nil
	})
	if err != nil || ch.Action == "absent" {
		return ch, err
	}
	if len(top) == 0 && !isLink(c.Path) {
		// Nothing else was in it, as when install created it: the file
		// goes, so uninstall leaves no "{}" behind.
		return ch, os.Remove(c.Path)
	}
	return ch, save(c.Path, top, mode)
}

// isLink reports whether path is a symbolic link.
func isLink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

func newChange(c Config) Change {
	ch := Change{Config: c.Path}
	if len(c.Under) > 0 {
		ch.Project = c.Under[len(c.Under)-1]
	}
	return ch
}

// editServers applies fn to the servers of c in top, the config file's
// object.
func editServers(c Config, top jsonobj.Object, fn func(jsonobj.Object) (jsonobj.Object, error)) (jsonobj.Object, error) {
	return editAt(c.Path, top, append(slices.Clone(c.Under), "mcpServers"), "", fn)
}

// editAt applies fn to the object under keys in obj, creating the objects
// on the way; the last, if fn leaves it empty, is removed. at is where obj
// is in the file, for errors.
func editAt(path string, obj jsonobj.Object, keys []string, at string, fn func(jsonobj.Object) (jsonobj.Object, error)) (jsonobj.Object, error) {
	key := keys[0]
	at = strings.TrimPrefix(at+"."+key, ".")
	i := obj.Index(key)
	var inner jsonobj.Object
	if i >= 0 {
		var err error
		if inner, err = jsonobj.Parse(obj[i].Value); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, at, err)
		}
	}
	var err error
	if len(keys) > 1 {
		inner, err = editAt(path, inner, keys[1:], at, fn)
	} else {
		inner, err = fn(inner)
	}
	switch {
	case err != nil:
		return nil, err
	case len(keys) == 1 && len(inner) == 0 && i >= 0:
		return slices.Delete(obj, i, i+1), nil
	case len(keys) == 1 && len(inner) == 0:
		return obj, nil
	}
	raw, err := inner.MarshalJSON()
	if err != nil {
		return nil, err
	}
	obj.SetRaw(key, raw)
	return obj, nil
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

func load(path string) (jsonobj.Object, os.FileMode, error) {
	data, mode, err := readText(path)
	if err != nil || len(bytes.TrimSpace(data)) == 0 {
		return nil, mode, err
	}
	top, err := jsonobj.Parse(data)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: not a JSON object, so ctx0 leaves it alone: %w", path, err)
	}
	return top, mode, nil
}

// save writes the config atomically, indented with two spaces as the
// agents write theirs.
func save(path string, top jsonobj.Object, mode os.FileMode) error {
	data, err := top.Format()
	if err != nil {
		return err
	}
	return writeText(path, data, mode)
}

// writeText writes a config file atomically and durably, with mode mode,
// through the link path may be (as hooks install writes an agent's
// settings).
func writeText(path string, data []byte, mode os.FileMode) error {
	return atomicfile.Replace(atomicfile.Through(path), data, mode)
}

// Snippets is how to register the same server in other agents, for people
// to paste: Cursor, Codex CLI and Gemini CLI.
func Snippets(e ServerEntry) string {
	plain := ServerEntry{Command: e.Command, Args: e.Args}
	j, _ := json.MarshalIndent(map[string]map[string]ServerEntry{"mcpServers": {ServerName: plain}}, "", "  ")
	var args []string
	for _, a := range e.Args {
		q, _ := json.Marshal(a)
		args = append(args, string(q))
	}
	cmd, _ := json.Marshal(e.Command)
	return fmt.Sprintf(`Cursor: in ~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project):
%s

Codex CLI: in ~/.codex/config.toml:
[mcp_servers.%s]
command = %s
args = [%s]

Gemini CLI: in ~/.gemini/settings.json (or .gemini/settings.json in a project):
%s
`, j, ServerName, cmd, strings.Join(args, ", "), j)
}
