package vault

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLocate(t *testing.T) {
	home := t.TempDir()
	vaultDir := filepath.Join(home, "notes")
	deep := filepath.Join(vaultDir, "contacts", "deeper")
	if err := os.MkdirAll(filepath.Join(vaultDir, ".ctx0"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	// ~/.ctx0 holds the default vault; it must not make home look like a vault.
	if err := os.MkdirAll(filepath.Join(home, ".ctx0", "vault"), 0o755); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	tests := []struct {
		name, flag, env, cwd, want string
	}{
		{"flag wins", "/x", "/y", deep, "/x"},
		{"env next", "", "/y", deep, "/y"},
		{"nearest ancestor with .ctx0", "", "", deep, vaultDir},
		{"the vault root itself", "", "", vaultDir, vaultDir},
		{"default under home", "", "", elsewhere, filepath.Join(home, ".ctx0", "vault")},
		{"home is not a vault", "", "", home, filepath.Join(home, ".ctx0", "vault")},
	}
	for _, tt := range tests {
		if got := Locate(tt.flag, tt.env, tt.cwd, home); got != tt.want {
			t.Errorf("%s: Locate = %q, want %q", tt.name, got, tt.want)
		}
	}
}
