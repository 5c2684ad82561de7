package mcp

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const claudeJSON = `{
  "numStartups": 12,
  "projects": {
    "/home/me/app": {
      "allowedTools": []
    }
  },
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_TOKEN": "x"}
    }
  },
  "zLast": true
}
`

func TestInstallKeepsEverythingElse(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude.json")
	if err := os.WriteFile(path, []byte(claudeJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	c := Config{Path: path}
	e := ServerEntry{Type: "stdio", Command: "ctx0", Args: []string{"mcp", "--vault", "/v"}}
	ch, err := Install(c, e)
	if err != nil || ch.Action != "added" {
		t.Fatalf("install: %v, %v", ch, err)
	}
	data, _ := os.ReadFile(path)
	got := string(data)
	// The other keys, in their order, and the other server, unchanged.
	order := []string{`"numStartups": 12`, `"projects"`, `"/home/me/app"`, `"mcpServers"`, `"github"`, `"GITHUB_TOKEN": "x"`, `"ctx0"`, `"zLast": true`}
	at := 0
	for _, w := range order {
		i := strings.Index(got[at:], w)
		if i < 0 {
			t.Fatalf("after install, %s is missing or out of order:\n%s", w, got)
		}
		at += i
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	// Again: nothing changes.
	if ch, err := Install(c, e); err != nil || ch.Action != "unchanged" {
		t.Errorf("second install: %v, %v", ch, err)
	}
	again, _ := os.ReadFile(path)
	if string(again) != got {
		t.Error("a second install changed the file")
	}
	// Another vault: updated in place.
	e.Args[2] = "/w"
	if ch, err := Install(c, e); err != nil || ch.Action != "updated" {
		t.Errorf("install for another vault: %v, %v", ch, err)
	}
	// Uninstall: exactly what install added is gone.
	if ch, err := Uninstall(c); err != nil || ch.Action != "removed" {
		t.Fatalf("uninstall: %v, %v", ch, err)
	}
	data, _ = os.ReadFile(path)
	if strings.Contains(string(data), "ctx0") || !strings.Contains(string(data), `"github"`) || !strings.Contains(string(data), `"zLast": true`) {
		t.Errorf("after uninstall:\n%s", data)
	}
	if ch, err := Uninstall(c); err != nil || ch.Action != "absent" {
		t.Errorf("second uninstall: %v, %v", ch, err)
	}
}

// TestInstallLocalScope: the local scope is the project's entry under
// projects in ~/.claude.json, where Claude Code keeps the project's other
// settings; a project without an entry gets one.
func TestInstallLocalScope(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude.json")
	if err := os.WriteFile(path, []byte(claudeJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	e := ServerEntry{Type: "stdio", Command: "ctx0", Args: []string{"mcp", "--vault", "/v"}}
	for _, project := range []string{"/home/me/app", "/home/me/new"} {
		c := ClaudeCodeConfig(Local, filepath.Dir(path), project, func(string) string { return "" })
		ch, err := Install(c, e)
		if err != nil || ch.Action != "added" || ch.Project != project {
			t.Fatalf("install in %s: %+v, %v", project, ch, err)
		}
		var got struct {
			Projects map[string]struct {
				AllowedTools []string               `json:"allowedTools"`
				MCPServers   map[string]ServerEntry `json:"mcpServers"`
			} `json:"projects"`
			MCPServers map[string]ServerEntry `json:"mcpServers"`
		}
		data, _ := os.ReadFile(path)
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if s := got.Projects[project].MCPServers[ServerName]; s.Command != "ctx0" {
			t.Errorf("after install in %s, projects[%s].mcpServers = %+v:\n%s", project, project, got.Projects[project].MCPServers, data)
		}
		if _, ok := got.MCPServers[ServerName]; ok || len(got.MCPServers) != 1 {
			t.Errorf("install in the local scope changed the user scope's servers: %+v", got.MCPServers)
		}
		if project == "/home/me/app" && got.Projects[project].AllowedTools == nil {
			t.Errorf("the project's other settings are gone:\n%s", data)
		}
		if ch, err := Uninstall(c); err != nil || ch.Action != "removed" {
			t.Fatalf("uninstall in %s: %+v, %v", project, ch, err)
		}
		if ch, err := Uninstall(c); err != nil || ch.Action != "absent" {
			t.Errorf("second uninstall in %s: %+v, %v", project, ch, err)
		}
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), `"ctx0"`) || !strings.Contains(string(data), `"allowedTools": []`) {
		t.Errorf("after uninstall:\n%s", data)
	}
}

func TestInstallNewProjectFile(t *testing.T) {
	dir := t.TempDir()
	c := ClaudeCodeConfig(Project, "/home/x", dir, func(string) string { return "" })
	if c.Path != filepath.Join(dir, ".mcp.json") || c.Under != nil {
		t.Fatalf("project config: %+v", c)
	}
	path := c.Path
	if _, err := Install(c, ServerEntry{Type: "stdio", Command: "ctx0", Args: []string{"mcp"}}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want := "{\n  \"mcpServers\": {\n    \"ctx0\": {\n      \"type\": \"stdio\",\n      \"command\": \"ctx0\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n"
	if string(data) != want {
		t.Errorf("new .mcp.json:\n%s\nwant:\n%s", data, want)
	}
	if _, err := Uninstall(c); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Error("uninstall left the .mcp.json that install made")
	}
}

func TestInstallLeavesOthersCtx0Alone(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude.json")
	theirs := `{"mcpServers": {"ctx0": {"command": "node", "args": ["server.js"]}}}`
	if err := os.WriteFile(path, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(Config{Path: path}, ServerEntry{Command: "ctx0", Args: []string{"mcp"}}); !errors.Is(err, ErrNotOurs) {
		t.Errorf("install over someone else's ctx0: %v", err)
	}
	if _, err := Uninstall(Config{Path: path}); !errors.Is(err, ErrNotOurs) {
		t.Errorf("uninstall of someone else's ctx0: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != theirs {
		t.Errorf("the file changed:\n%s", data)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("[1, 2]"), 0o644)
	if _, err := Install(Config{Path: bad}, ServerEntry{Command: "ctx0", Args: []string{"mcp"}}); err == nil {
		t.Error("install into a file that is not a JSON object: want an error")
	}
}

func TestClaudeCodeConfig(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := ClaudeCodeConfig(User, "/home/me", "/p", getenv); got.Path != "/home/me/.claude.json" || got.Under != nil {
		t.Errorf("user: %+v", got)
	}
	if got := ClaudeCodeConfig(Local, "/home/me", "/p", getenv); got.Path != "/home/me/.claude.json" || strings.Join(got.Under, " ") != "projects /p" {
		t.Errorf("local: %+v", got)
	}
	env["CLAUDE_CONFIG_DIR"] = "/cfg"
	if got := ClaudeCodeConfig(User, "/home/me", "/p", getenv); got.Path != "/cfg/.claude.json" {
		t.Errorf("user with CLAUDE_CONFIG_DIR: %+v", got)
	}
}

func TestSnippets(t *testing.T) {
	s := Snippets(ServerEntry{Type: "stdio", Command: "ctx0", Args: []string{"mcp", "--vault", "/v"}})
	for _, want := range []string{"Cursor", "~/.cursor/mcp.json", "[mcp_servers.ctx0]", `args = ["mcp", "--vault", "/v"]`, "Gemini CLI", "~/.gemini/settings.json"} {
		if !strings.Contains(s, want) {
			t.Errorf("snippets lack %q:\n%s", want, s)
		}
	}
}

// A config kept as a link (into a dotfiles repository, by a relative or an
// absolute link, or a chain of them) is written through the link, as hooks
// install writes an agent's settings: the link stays a link, the file it
// leads to gets ctx0's server, and uninstall takes it out the same way.
// A link whose file does not exist yet gets that file made.
func TestInstallWritesThroughALink(t *testing.T) {
	for _, tt := range []struct {
		name     string
		link     func(t *testing.T, home, target string)
		existing bool
	}{
		{"absolute", func(t *testing.T, home, target string) { symlink(t, target, filepath.Join(home, ".claude.json")) }, true},
		{"relative", func(t *testing.T, home, target string) {
			symlink(t, filepath.Join("dotfiles", "claude.json"), filepath.Join(home, ".claude.json"))
		}, true},
		{"chain", func(t *testing.T, home, target string) {
			symlink(t, target, filepath.Join(home, "middle.json"))
			symlink(t, "middle.json", filepath.Join(home, ".claude.json"))
		}, true},
		{"to a file not made yet", func(t *testing.T, home, target string) { symlink(t, target, filepath.Join(home, ".claude.json")) }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			target := filepath.Join(home, "dotfiles", "claude.json")
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.existing {
				if err := os.WriteFile(target, []byte(claudeJSON), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			tt.link(t, home, target)
			link := filepath.Join(home, ".claude.json")
			c := ClaudeCodeConfig(User, home, "", func(string) string { return "" })
			if c.Path != link {
				t.Fatalf("config path %s, want %s", c.Path, link)
			}
			if ch, err := Install(c, ServerEntry{Type: "stdio", Command: "ctx0", Args: []string{"mcp"}}); err != nil || ch.Action != "added" {
				t.Fatalf("install: %v, %v", ch, err)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("%s is no longer a link: %v, %v", link, fi, err)
			}
			data, err := os.ReadFile(target)
			if err != nil || !strings.Contains(string(data), `"ctx0"`) {
				t.Fatalf("the linked file: %s, %v", data, err)
			}
			if tt.existing && !strings.Contains(string(data), `"github"`) {
				t.Errorf("the linked file lost its other server:\n%s", data)
			}
			if ch, err := Uninstall(c); err != nil || ch.Action != "removed" {
				t.Fatalf("uninstall: %v, %v", ch, err)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("%s is no longer a link after uninstall: %v, %v", link, fi, err)
			}
			if data, _ := os.ReadFile(target); strings.Contains(string(data), `"ctx0"`) {
				t.Errorf("ctx0 still in the linked file:\n%s", data)
			}
		})
	}
}
