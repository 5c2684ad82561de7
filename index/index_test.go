package index

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// openIndex opens the index of v and makes it the vault's catalog, as the
// CLI does. Notices are collected in *notices if it is not nil.
func openIndex(t *testing.T, v *vault.Vault, notices *[]string) *Index {
	t.Helper()
	ix, err := Open(t.Context(), v, WithNotify(func(m string) {
		if notices != nil {
			*notices = append(*notices, m)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	v.SetCatalog(ix)
	return ix
}

// writeFile writes a file of the vault with plain file operations, as a
// person's editor or an agent's file tools would.
func writeFile(t *testing.T, v *vault.Vault, rel, content string) {
	t.Helper()
	writeFileF(t, v, rel, content)
}

func writeFileF(t testing.TB, v *vault.Vault, rel, content string) {
	t.Helper()
	p := filepath.Join(v.Root(), filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runGit runs the real git binary in the vault.
func runGit(t *testing.T, v *vault.Vault, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("this test checks the vault with the git binary")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = v.Root()
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(),
		"GIT_AUTHOR_NAME=p", "GIT_AUTHOR_EMAIL=p@p", "GIT_COMMITTER_NAME=p", "GIT_COMMITTER_EMAIL=p@p")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func names(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Name
	}
	return out
}

func find(t *testing.T, ix *Index, q Query) []Result {
	t.Helper()
	rs, err := ix.Search(t.Context(), q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	return rs
}

func TestSearchFindsWhatWasJustWritten(t *testing.T) {
	v := vaulttest.New(t)
	var notices []string
	ix := openIndex(t, v, &notices)
	if len(notices) != 1 || !strings.Contains(notices[0], "missing") {
		t.Errorf("notices = %q, want one that says the index was missing", notices)
	}
	ctx := t.Context()
	if _, err := v.Remember(ctx, vault.RememberOptions{Text: "The staging deploy key lives in 1Password."}); err != nil {
		t.Fatal(err)
	}
	if got := names(find(t, ix, Query{Text: "deploying"})); len(got) != 1 || !strings.HasPrefix(got[0], "knowledge/the-staging-deploy-key") {
		t.Fatalf("search after remember = %q", got)
	}
	// A file written with plain tools, then edited in place.
	writeFile(t, v, "contacts/sarah-chen.md", "---\ntitle: Sarah Chen\naliases: [Sarah]\n---\nPartner at Example Ventures.\n")
	if got := names(find(t, ix, Query{Text: "ventures"})); len(got) != 1 || got[0] != "contacts/sarah-chen" {
		t.Fatalf("search after writing a file = %q", got)
	}
	writeFile(t, v, "contacts/sarah-chen.md", "---\ntitle: Sarah Chen\naliases: [Sarah]\n---\nPartner at Other Capital.\n")
	if got := names(find(t, ix, Query{Text: "ventures"})); len(got) != 0 {
		t.Fatalf("search after editing a file still finds the old text: %q", got)
	}
	if got := names(find(t, ix, Query{Text: "capital"})); len(got) != 1 {
		t.Fatalf("search after editing a file = %q", got)
	}
	if n, err := v.Resolve(ctx, "sarah"); err != nil || n != "contacts/sarah-chen" {
		t.Fatalf("resolve by alias = %q, %v", n, err)
	}
	if err := os.Remove(filepath.Join(v.Root(), "contacts/sarah-chen.md")); err != nil {
		t.Fatal(err)
	}
	if got := names(find(t, ix, Query{Text: "capital"})); len(got) != 0 {
		t.Fatalf("search after deleting a file = %q", got)
	}
}

// runtimeGosched lets other goroutines run while a test waits for them.
func runtimeGosched() { time.Sleep(time.Millisecond) }
