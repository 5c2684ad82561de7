package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ctx0/ctx0/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files from the actual output")

const command = "ctx0 --vault /home/sam/notes hook claude-code"

// copyFixture copies a settings file from testdata into a temporary
// .claude folder.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func read(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestInstallOverOtherHooks installs into a settings file that already
// has hooks of other tools, including one on an event ctx0 uses: the
// result is the golden file, installing again changes nothing, and
// uninstalling gives back the original byte for byte.
func TestInstallOverOtherHooks(t *testing.T) {
	p := copyFixture(t, "settings.json")
	before := read(t, p)
	ch, err := Install(p, command)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ch.Added, Events) || len(ch.Updated)+len(ch.Removed) != 0 {
		t.Errorf("install: %+v", ch)
	}
	installed := read(t, p)
	golden.Check(t, filepath.Join("testdata", "settings.installed.json"), installed, *update)
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after install: %v %v, want 0600 kept", fi.Mode(), err)
	}

	ch, err = Install(p, command)
	if err != nil || ch.Changed() || !bytes.Equal(read(t, p), installed) {
		t.Errorf("second install: %+v, %v", ch, err)
	}
	// Another vault, or another path to ctx0: the hooks are updated in
	// place, not added again.
	moved := "/opt/bin/ctx0 --vault '/home/sam/my notes' hook claude-code"
	ch, err = Install(p, moved)
	if err != nil || !reflect.DeepEqual(ch.Updated, Events) || len(ch.Added) != 0 {
		t.Errorf("install for another vault: %+v, %v", ch, err)
	}
	if n := bytes.Count(read(t, p), []byte("hook claude-code")); n != len(Events) {
		t.Errorf("%d ctx0 hooks after reinstalling, want %d", n, len(Events))
	}

	ch, err = Uninstall(p)
	if err != nil || !reflect.DeepEqual(ch.Removed, Events) {
		t.Errorf("uninstall: %+v, %v", ch, err)
	}
	if after := read(t, p); !bytes.Equal(after, before) {
		t.Errorf("uninstall did not give back the original:\n%s", after)
	}
	if ch, err := Uninstall(p); err != nil || ch.Changed() {
		t.Errorf("second uninstall: %+v, %v", ch, err)
	}
}

// TestUninstallKeepsNeighbours removes ctx0's hook from a group it shares
// with another tool's hook, written compactly by hand.
func TestUninstallKeepsNeighbours(t *testing.T) {
	p := copyFixture(t, "compact.json")
	ch, err := Uninstall(p)
	if err != nil || !reflect.DeepEqual(ch.Removed, []string{"SessionEnd"}) {
		t.Fatalf("uninstall: %+v, %v", ch, err)
	}
	var got any
	if err := json.Unmarshal(read(t, p), &got); err != nil {
		t.Fatal(err)
	}
	var want any
	json.Unmarshal([]byte(`{"hooks":{"SessionEnd":[{"hooks":[{"type":"command","command":"say bye"}]}]},"model":"sonnet"}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after uninstall: %v, want %v", got, want)
	}
}

func TestInstallNewFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "proj", ".claude", "settings.json")
	if _, err := Install(p, command); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string }
		}
	}
	if err := json.Unmarshal(read(t, p), &got); err != nil {
		t.Fatal(err)
	}
	for _, e := range Events {
		if g := got.Hooks[e]; len(g) != 1 || len(g[0].Hooks) != 1 || g[0].Hooks[0].Command != command || g[0].Hooks[0].Type != "command" {
			t.Errorf("%s: %+v", e, g)
		}
	}
	if _, err := Uninstall(p); err != nil {
		t.Fatal(err)
	}
	// The file install created, left with nothing in it, is gone.
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after uninstall: %v, want the file removed", err)
	}
}

// TestSymlinkedSettings: settings kept elsewhere (a dotfiles repository)
// are edited through the link, which stays.
func TestSymlinkedSettings(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "claude-settings.json")
	os.MkdirAll(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte(`{"model":"opus"}`), 0o644)
	link := filepath.Join(dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if _, err := Install(link, command); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if !bytes.Contains(read(t, target), []byte(command)) {
		t.Errorf("the target was not edited:\n%s", read(t, target))
	}
}

func TestBrokenSettings(t *testing.T) {
	for name, data := range map[string]string{
		"not JSON":          `{"hooks": `,
		"hooks not object":  `{"hooks": []}`,
		"event not a array": `{"hooks": {"Stop": {}}}`,
	} {
		p := filepath.Join(t.TempDir(), "settings.json")
		os.WriteFile(p, []byte(data), 0o644)
		if _, err := Install(p, command); err == nil {
			t.Errorf("%s: no error", name)
		}
		if got := string(read(t, p)); got != data {
			t.Errorf("%s: file changed to %q", name, got)
		}
	}
}

func TestIsOurs(t *testing.T) {
	for cmd, want := range map[string]bool{
		"ctx0 hook claude-code":                           true,
		"ctx0 --vault '/a b' hook claude-code":            true,
		"/usr/local/bin/ctx0 --vault /v hook claude-code": true,
		"ctx0 hook codex":                                 false,
		"notctx0 hook claude-code":                        false,
		"echo ctx0 hook claude-code":                      false,
		"":                                                false,
	} {
		if got := isOurs(cmd); got != want {
			t.Errorf("isOurs(%q) = %v", cmd, got)
		}
	}
	if got := Command("ctx0", "/home/sam/my notes"); got != `ctx0 --vault '/home/sam/my notes' hook claude-code` {
		t.Errorf("Command: %s", got)
	}
	if got := Command("ctx0", "/home/sam/it's"); got != `ctx0 --vault '/home/sam/it'\''s' hook claude-code` {
		t.Errorf("Command: %s", got)
	}
}
