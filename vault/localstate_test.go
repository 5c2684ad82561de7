package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/ctx0/ctx0/internal/atomicfile"
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

// FuzzSetAsides: whatever a record file holds, SetAsides neither fails nor
// panics; a record it cannot read is named as bad, and one it returns has
// the id its file is named by.
func FuzzSetAsides(f *testing.F) {
	f.Add("0123456789ab", []byte(`{"id":"0123456789ab","path":"projects/tool","reason":"a submodule","from":"origin/main","commit":"abc","when":"2026-01-28T10:00:00Z"}`))
	f.Add("0123456789ab", []byte(`{"id":"../../x"}`))
	f.Add("x", []byte("not json"))
	f.Add("0123456789ab", []byte{})
	root := f.TempDir()
	dir := filepath.Join(root, filepath.FromSlash(setAsideDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	v := &Vault{root: root}
	f.Fuzz(func(t *testing.T, id string, data []byte) {
		if id == "" || strings.ContainsAny(id, "/\\\x00") || id == "." || id == ".." || atomicfile.IsTemp(id+".json") {
			return // not a record's name
		}
		p := filepath.Join(dir, id+".json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return // a name this file system refuses
		}
		defer os.Remove(p)
		got, bad, err := v.SetAsides(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(got)+len(bad) != 1 {
			t.Fatalf("%d records and %d bad from one file", len(got), len(bad))
		}
		for _, r := range got {
			if r.ID != id {
				t.Fatalf("record %q read from %s.json", r.ID, id)
			}
		}
	})
}
