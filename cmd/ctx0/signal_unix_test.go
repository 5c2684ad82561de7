//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A ctx0 process asked to stop with SIGTERM exits even when its work is
// blocked where it cannot see its context: here the hook's read of stdin,
// from a pipe that no one writes to or closes.
func TestSIGTERMStopsBlockedProcess(t *testing.T) {
	cmd := ctx0Cmd(t, t.TempDir(), "hook", "claude-code", "--background")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	waitBlockedOnPipe(cmd.Process.Pid)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err == nil {
			t.Errorf("exited 0 after SIGTERM; stderr: %s", stderr.String())
		}
	case <-time.After(time.Minute):
		// Not a measure of speed: a process that ignores SIGTERM never
		// exits, and the test must end.
		cmd.Process.Kill()
		<-exited
		t.Fatalf("still running a minute after SIGTERM; stderr: %s", stderr.String())
	}
}

// waitBlockedOnPipe waits, where Linux shows it, until a thread of process
// pid sleeps reading a pipe: by then the process has set up its signal
// handling, so a signal tests that and not the runtime's default. Where
// /proc does not tell, it returns after a while, and the test still
// checks that the process exits.
func waitBlockedOnPipe(pid int) {
	for range 200 {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
		for _, w := range tasks {
			if b, err := os.ReadFile(w); err == nil && strings.Contains(string(b), "pipe") {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}
