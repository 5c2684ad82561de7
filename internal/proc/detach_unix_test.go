//go:build unix

package proc

import (
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestDetachHoldsNoInheritedPipe: a detached child does not hold a pipe
// this process inherited without close-on-exec, as a CI job hands its
// commands one: once this process closes its end, the reader sees the
// end while the child still runs. (Without Detach's marking, the read
// waits for the child's 60 s.)
func TestDetachHoldsNoInheritedPipe(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil { // not close-on-exec, as inherited
		t.Fatal(err)
	}
	r := os.NewFile(uintptr(p[0]), "r")
	defer r.Close()
	syscall.CloseOnExec(p[0])
	cmd := exec.Command("sleep", "60")
	Detach(cmd)
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep to start:", err)
	}
	syscall.Close(p[1])
	if _, err := io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
	// Killed now, it ran still: it did not end by itself.
	cmd.Process.Kill()
	if err := cmd.Wait(); err == nil {
		t.Fatal("the pipe ended only when the child did")
	}
}
