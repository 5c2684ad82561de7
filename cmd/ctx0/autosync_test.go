//go:build unix

package main

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ctx0/ctx0/vault"
)

// The background pusher of automatic sync killed with SIGKILL while its
// sync runs leaves the push wanted, so the next write or session start
// pushes the commits. Here the remote answers nothing: the pusher is
// killed once it has connected.
func TestPusherKilledMidSyncKeepsPushWanted(t *testing.T) {
	dir := newVault(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if out, err := ctx0Cmd(t, dir, "remote", "add", "origin", "git://"+l.Addr().String()+"/memory.git").CombinedOutput(); err != nil {
		t.Fatalf("remote add: %v\n%s", err, out)
	}
	if out, err := ctx0Cmd(t, dir, "remember", "Waits to be pushed.").CombinedOutput(); err != nil {
		t.Fatalf("remember: %v\n%s", err, out)
	}
	if _, err := vault.WantPush(dir); err != nil {
		t.Fatal(err)
	}
	pusher := ctx0Cmd(t, dir, "sync", "--push-wanted")
	if err := pusher.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { pusher.Wait(); close(exited) }()
	connected := make(chan net.Conn, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			connected <- c
		}
	}()
	select {
	case c := <-connected:
		defer c.Close()
	case <-exited:
		t.Fatal("the pusher stopped before it reached the remote")
	case <-time.After(time.Minute):
		// Not a measure of speed: a pusher that never connects would hang the test.
		pusher.Process.Kill()
		t.Fatal("the pusher did not reach the remote in a minute")
	}
	pusher.Process.Signal(syscall.SIGKILL)
	<-exited
	if !vault.PushIsWanted(dir) {
		entries, _ := os.ReadDir(filepath.Join(dir, ".ctx0", "state"))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("after the pusher was killed mid-sync, no push is wanted (.ctx0/state holds %v)", names)
	}
}
