package extractor

import (
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata from the actual output")

// clock is the tests' now: a few days after the fixture vault's newest
// entries.
var clock = time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)

func now() time.Time { return clock }

// fixture makes a vault of testdata/vault in a temporary folder, opens its
// index as the CLI does, and returns what the extractor reads.
func fixture(t testing.TB) Memory {
	t.Helper()
	v := vaulttest.New(t, vault.WithClock(now))
	copyTree(t, "testdata/vault", v.Root())
	settle(t, v.Root())
	return open(t, v)
}

// settle dates the files and folders under dir an hour back, as in a vault
// that has been around: the index trusts the size and mtime of a file
// changed more than a moment ago, and reads again those changed just now.
func settle(t testing.TB, dir string) {
	t.Helper()
	past := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		return os.Chtimes(p, past, past)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// open opens the index of v, makes it the vault's catalog, and returns the
// extractor's view of both.
func open(t testing.TB, v *vault.Vault) Memory {
	t.Helper()
	// The index keeps the real clock: it compares it with the files'
	// mtimes, which are real.
	ix, err := index.Open(t.Context(), v)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	v.SetCatalog(ix)
	return Memory{Vault: v, Index: ix, Now: now}
}

// copyTree copies the files under src into dst, as plain file writes.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return writeFile(filepath.Join(dst, rel), data)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// jsonOf renders v as the CLI's --json does.
func jsonOf(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// openSessions opens the past sessions' store of m's vault at now, closed
// when the test ends.
func openSessions(t testing.TB, m Memory) *sessions.Store {
	t.Helper()
	st, err := sessions.Open(t.Context(), m.Vault.Root(), sessions.WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
