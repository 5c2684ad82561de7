package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctx0/ctx0/internal/jsonobj"
)

// FuzzInstallUninstall edits arbitrary settings files for every agent:
// install never breaks a file it accepts, installing twice changes nothing
// more, and uninstalling after installing gives what uninstalling alone
// gives, so install leaves no trace beyond its own hooks.
func FuzzInstallUninstall(f *testing.F) {
	for _, name := range []string{"settings.json", "settings.installed.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"version":1,"hooks":{"stop":[{"command":"./audit.sh"}],"sessionStart":[]}}`))
	f.Add([]byte(`{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"ctx0 --vault /v hook codex"}]}]}}`))
	f.Add([]byte(`{"hooks":{"AfterAgent":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, a := range Agents {
			dir := t.TempDir()
			write := func(name string, b []byte) string {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, b, 0o600); err != nil {
					t.Fatal(err)
				}
				return p
			}
			read := func(p string) []byte {
				b, err := os.ReadFile(p)
				if errors.Is(err, fs.ErrNotExist) {
					return nil // removed, left with nothing in it
				}
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			cmd := a.Command("ctx0", "/home/sam/notes")
			once := write("once.json", data)
			if _, err := a.Install(once, cmd); err != nil {
				if !bytes.Equal(read(once), data) {
					t.Fatalf("%s: a failed install changed the file", a.Name)
				}
				continue
			}
			installed := read(once)
			if ch, err := a.Install(once, cmd); err != nil || ch.Changed() || !bytes.Equal(read(once), installed) {
				t.Fatalf("%s: installing again: %+v, %v", a.Name, ch, err)
			}
			if _, err := a.Uninstall(once); err != nil {
				t.Fatalf("%s: uninstall after install: %v", a.Name, err)
			}
			alone := write("alone.json", data)
			if _, err := a.Uninstall(alone); err != nil {
				continue // not a file uninstall can read: nothing to compare
			}
			if !bytes.Equal(normal(t, read(once), a.Flat), normal(t, read(alone), a.Flat)) {
				t.Fatalf("%s: uninstall after install gives\n%s\nuninstall alone\n%s", a.Name, read(once), read(alone))
			}
		}
	})
}

// normal is a settings file compacted, without empty hook lists and an
// empty hooks object: the one thing uninstall cannot give back is an
// empty list (or hooks object) that was there before install filled it.
// With flat, Cursor's version line, which install adds and uninstall
// leaves, is left out too.
func normal(t *testing.T, data []byte, flat bool) []byte {
	var settings jsonobj.Object
	if len(bytes.TrimSpace(data)) == 0 {
		return []byte("{}") // an empty file is an empty object
	}
	if json.Unmarshal(data, &settings) != nil {
		return data
	}
	if flat {
		settings.Remove("version")
	}
	if raw, ok := settings.Get("hooks"); ok {
		var hooks jsonobj.Object
		if json.Unmarshal(raw, &hooks) == nil {
			kept := hooks[:0]
			for _, m := range hooks {
				var c bytes.Buffer
				if json.Compact(&c, m.Value) == nil && c.String() == "[]" {
					continue
				}
				kept = append(kept, m)
			}
			if len(kept) == 0 {
				settings.Remove("hooks")
			} else if err := settings.Set("hooks", kept); err != nil {
				t.Fatal(err)
			}
		}
	}
	b, err := settings.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		t.Fatal(err)
	}
	return c.Bytes()
}
