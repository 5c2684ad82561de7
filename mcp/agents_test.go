package mcp

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCodexInstall(t *testing.T) {
	entry := ServerEntry{Command: "ctx0", Args: []string{"mcp", "--vault", "/home/sam/notes"}}
	const table = "[mcp_servers.ctx0]\ncommand = \"ctx0\"\nargs = [\"mcp\", \"--vault\", \"/home/sam/notes\"]\n"
	const config = "model = \"gpt-5.5\"\n\n[mcp_servers.github]\ncommand = \"gh-mcp\" # the GitHub server\n\n[features]\ncodex_hooks = true\n"
	tests := []struct {
		name, before, installed string
	}{
		{"no file", "", table},
		{"after other tables", config, config + "\n" + table},
		{"after a blank line", config + "\n", config + "\n\n" + table},
		{"updated in place", "[mcp_servers.ctx0]\ncommand = \"/old/ctx0\"\nargs = [\"mcp\"]\n\n[features]\nx = 1\n",
			table + "\n[features]\nx = 1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if tt.before != "" {
				if err := os.WriteFile(path, []byte(tt.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			ch, err := InstallCodex(path, entry)
			if err != nil {
				t.Fatal(err)
			}
			if got := read(t, path); got != tt.installed {
				t.Fatalf("installed (%s):\n%s\nwant:\n%s", ch.Action, got, tt.installed)
			}
			if ch, err := InstallCodex(path, entry); err != nil || ch.Action != "unchanged" {
				t.Errorf("again: %+v, %v", ch, err)
			}
			if ch, err := UninstallCodex(path); err != nil || ch.Action != "removed" {
				t.Fatalf("uninstall: %+v, %v", ch, err)
			}
			if tt.before == "" {
				// The file install created, with nothing else in it, is gone.
				if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("uninstalled: %v, want the file removed", err)
				}
			} else if want := tt.before; !strings.HasPrefix(tt.name, "updated") && read(t, path) != want {
				t.Errorf("uninstalled:\n%q\nwant:\n%q", read(t, path), want)
			}
			if ch, err := UninstallCodex(path); err != nil || ch.Action != "absent" {
				t.Errorf("uninstall again: %+v, %v", ch, err)
			}
		})
	}
}

// TestCodexNotOurs: a ctx0 table someone else wrote is left alone.
func TestCodexNotOurs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	theirs := "[mcp_servers.ctx0]\ncommand = \"npx\"\nargs = [\"ctx0-server\"]\n"
	if err := os.WriteFile(path, []byte(theirs), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallCodex(path, ServerEntry{Command: "ctx0", Args: []string{"mcp"}}); !errors.Is(err, ErrNotOurs) {
		t.Errorf("install: %v", err)
	}
	if _, err := UninstallCodex(path); !errors.Is(err, ErrNotOurs) {
		t.Errorf("uninstall: %v", err)
	}
	if read(t, path) != theirs {
		t.Error("their table was changed")
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
