// Package vaulttest makes vaults for tests: real ones, as ctx0 init makes
// them, each in a temporary folder of its own.
//
// The vault package's own tests cannot use it (it imports vault); every
// package above vault can.
package vaulttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/internal/gittest"
	"github.com/ctx0/ctx0/vault"
)

// Now is what a test vault's clock shows unless the test gives its own.
var Now = time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)

// New makes a new vault, alone in a folder of t's temporary directory, so a
// test can tell that nothing was written beside it. Its clock shows Now;
// opts are applied after that, so vault.WithClock replaces it. A failure
// fails t.
func New(t testing.TB, opts ...vault.Option) *vault.Vault {
	t.Helper()
	opts = append([]vault.Option{vault.WithClock(func() time.Time { return Now })}, opts...)
	v, _, err := vault.Init(t.Context(), filepath.Join(t.TempDir(), "vault"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Shared makes a vault as New does, adds a new bare remote (gittest.Bare)
// as origin and syncs it there: a victim for a sharing test. It returns
// the vault, the remote's URL and a collaborator's plain git clone of it,
// who can push whatever git lets them; the victim then runs Sync.
func Shared(t testing.TB, opts ...vault.Option) (*vault.Vault, string, *gittest.Collaborator) {
	t.Helper()
	v := New(t, opts...)
	url := gittest.Bare(t)
	if err := v.AddRemote("origin", url); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Sync(t.Context(), vault.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	return v, url, gittest.Clone(t, url)
}

// StartProcess starts cmd, a long-running process that serves a vault
// (a watcher), and returns once the socket it listens on exists, with a
// channel closed once it has exited. It is killed when t ends; if it exits
// first, or the socket is not there within a minute, t fails with what it
// printed.
func StartProcess(t testing.TB, cmd *exec.Cmd, sock string) <-chan struct{} {
	t.Helper()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			return exited
		}
		select {
		case <-exited:
			t.Fatalf("%s exited: %s", strings.Join(cmd.Args, " "), out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no socket %s after a minute", sock)
		}
	}
}
