package curator

import (
	"flag"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

var update = flag.Bool("update", false, "rewrite the golden files from the actual output")

// testNow is the tests' time: after every fixture entry.
var testNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// clock is a settable clock shared by a vault and the runs on it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// testVault makes a new vault in a temporary folder with a clock at
// testNow.
func testVault(t *testing.T) (*vault.Vault, *clock) {
	t.Helper()
	c := &clock{t: testNow}
	return vaulttest.New(t, vault.WithClock(c.Now)), c
}

// fixtureVault makes a vault holding the files of the txtar archive at
// path: entries are created one commit each; .ctx0/config.yaml is written
// as the vault's settings.
func fixtureVault(t *testing.T, path string) (*vault.Vault, *clock) {
	t.Helper()
	v, c := testVault(t)
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == vault.ConfigFile {
			if _, err := v.EditSettings(t.Context(), "config.yaml", "settings", func([]byte) ([]byte, error) { return f.Data, nil }); err != nil {
				t.Fatal(err)
			}
			continue
		}
		put(t, v, strings.TrimSuffix(f.Name, ".md"), string(f.Data))
	}
	return v, c
}

// put creates entry name with the file text.
func put(t *testing.T, v *vault.Vault, name, text string) {
	t.Helper()
	if _, err := v.Create(t.Context(), name, []byte(text)); err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
}

// entryFiles returns every entry file of the vault's branch, by path.
func entryFiles(t *testing.T, v *vault.Vault) map[string]string {
	t.Helper()
	tree, err := v.TreeAt(t.Context(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	files, err := tree.List(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range files {
		if _, ok := vault.NameOf(p); !ok {
			continue
		}
		data, err := tree.Read(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = string(data)
	}
	return out
}

// dumpVault prints the vault's entry files, for golden files.
func dumpVault(t *testing.T, v *vault.Vault) string {
	t.Helper()
	files := entryFiles(t, v)
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, "-- %s --\n%s", p, files[p])
		if !strings.HasSuffix(files[p], "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// head is the branch's commit.
func head(t *testing.T, v *vault.Vault) string {
	t.Helper()
	tree, err := v.TreeAt(t.Context(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return tree.Commit()
}

// changeLines prints a run's changes and notes, one a line.
func changeLines(res Result) string {
	var b strings.Builder
	for _, c := range res.Changes {
		b.WriteString(c.String() + "\n")
	}
	for _, n := range res.Notes {
		b.WriteString("note: " + n + "\n")
	}
	return b.String()
}
