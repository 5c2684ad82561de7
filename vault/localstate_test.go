package vault

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/ctx0/ctx0/templates"
)

func TestIsMachineLocal(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{".ctx0/index.db", true},
		{".ctx0/index.db-wal", true},
		{".ctx0/index.db-shm", true},
		{".ctx0/lock", true},
		{".ctx0/state", true},
		{".ctx0/state/ingest.db", true},
		{".ctx0/state/runs/r1/record.json", true},
		{".ctx0/tmp/x", true},
		{".CTX0/State/ingest.db", true},
		{".ctx0/config.yaml", false},
		{".ctx0/conflicts/abc.yaml", false},
		{".ctx0/queries.yaml", false},
		{".ctx0/index.dbx", false},
		{".ctx0/statement.md", false},
		{"knowledge/state/x.md", false},
		{"state/.ctx0/lock", false},
	} {
		if got := IsMachineLocal(tc.path); got != tc.want {
			t.Errorf("IsMachineLocal(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

// TestMachineLocalIsIgnored: the .gitignore ctx0 init writes lists exactly
// the machine-local paths, so git status and ctx0 agree on a new vault.
func TestMachineLocalIsIgnored(t *testing.T) {
	var ignore string
	for _, f := range templates.Vault() {
		if f.Path == ".gitignore" {
			ignore = string(f.Data)
		}
	}
	var lines []string
	for _, l := range strings.Split(ignore, "\n") {
		if strings.HasPrefix(l, ".ctx0/") {
			lines = append(lines, l)
		}
	}
	if len(lines) != len(machineLocal) {
		t.Fatalf(".gitignore lists %q, machineLocal %v", lines, machineLocal)
	}
	for _, l := range lines {
		p := strings.TrimSuffix(strings.TrimSuffix(l, "*"), "/")
		if !IsMachineLocal(p) && !IsMachineLocal(p+"x") {
			t.Errorf(".gitignore lists %s, which IsMachineLocal does not", l)
		}
	}
}

func TestCheckTakeable(t *testing.T) {
	for _, tc := range []struct {
		path string
		mode filemode.FileMode
		ok   bool
	}{
		{"knowledge/foo.md", filemode.Regular, true},
		{"scripts/run.sh", filemode.Executable, true},
		{".ctx0/config.yaml", filemode.Regular, true},
		{".ctx0/conflicts/a.yaml", filemode.Regular, true},
		{"projects/tool", filemode.Submodule, false},
		{"knowledge/link", filemode.Symlink, false},
		{".ctx0/state/ingest.db", filemode.Regular, false},
		{".ctx0/index.db", filemode.Regular, false},
		{"projects/tool/.git/config", filemode.Regular, false},
		{"knowledge/.GIT/hooks/post-checkout", filemode.Regular, false},
		{"knowledge/.git./x", filemode.Regular, false},
		{"knowledge/.git /x", filemode.Regular, false},
		{"knowledge/git~1/x", filemode.Regular, false},
		{"knowledge/.git::$INDEX_ALLOCATION/x", filemode.Regular, false},
		{"knowledge/.g\u200cit/x", filemode.Regular, false},
		{"knowledge/../x", filemode.Regular, false},
		{"knowledge//x", filemode.Regular, false},
		{"knowledge/a\\b.md", filemode.Regular, false},
		{"knowledge/a\x01.md", filemode.Regular, false},
		{"knowledge/.github/x.md", filemode.Regular, true},
		{"knowledge/.gitkeep", filemode.Regular, true},
		{"knowledge/git.md", filemode.Regular, true},
	} {
		err := checkTakeable(tc.path, tc.mode)
		if (err == nil) != tc.ok {
			t.Errorf("checkTakeable(%q, %v) = %v, want ok %v", tc.path, tc.mode, err, tc.ok)
		}
	}
}

func TestSetAsideShow(t *testing.T) {
	for path, want := range map[string]string{
		"knowledge/foo.md/bar.md": "git show 0123456789:knowledge/foo.md/bar.md",
		"knowledge/my note.md":    "git show '0123456789:knowledge/my note.md'",
		"knowledge/it's.md":       `git show '0123456789:knowledge/it'\''s.md'`,
	} {
		if got := (SetAside{Path: path, Commit: "0123456789abcdef"}).Show(); got != want {
			t.Errorf("Show(%q) = %s, want %s", path, got, want)
		}
	}
}
