package synthvault

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchVault is the vault a benchmark runs on: the one $CTX0_BENCH_VAULT
// names (scripts/genvault makes large ones), or else a generated vault of
// 2,000 entries in b's temporary folder.
func BenchVault(b testing.TB) string {
	b.Helper()
	return BenchVaultOf(b, 2000)
}

// BenchVaultOf is BenchVault with n entries when it generates one.
func BenchVaultOf(b testing.TB, n int) string {
	b.Helper()
	if dir := os.Getenv("CTX0_BENCH_VAULT"); dir != "" {
		return dir
	}
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("generating a vault needs the git binary")
	}
	dir := filepath.Join(b.TempDir(), "vault")
	if err := Generate(dir, n, 1000, 1); err != nil {
		b.Fatal(err)
	}
	return dir
}
