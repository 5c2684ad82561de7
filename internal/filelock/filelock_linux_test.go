package filelock

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A waiter blocks in the kernel for the lock rather than trying again and
// again: /proc/locks lists it as a blocked request ("->") on the file while
// the holder holds it. A waiter that polls is never listed so.
func TestExclusiveBlocksInKernel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	held, err := Exclusive(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	ino := fmt.Sprintf(":%d ", fi.Sys().(*syscall.Stat_t).Ino)
	ctx, cancel := context.WithTimeout(t.Context(), long)
	defer cancel()
	got := lockLater(ctx, p)
	for !blockedOn(t, ino) {
		if ctx.Err() != nil {
			t.Fatalf("no waiter blocked in flock on %s within %v (/proc/locks)", p, long)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("waiter: %v", err)
	}
}

// blockedOn tells whether /proc/locks lists a blocked flock request on the
// file whose inode field ends in ino (":<inode> ").
func blockedOn(t *testing.T, ino string) bool {
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		t.Skipf("no /proc/locks: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "-> FLOCK") && strings.Contains(line, ino) {
			return true
		}
	}
	return false
}
