//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// Detach makes cmd its own session, so that it outlives the process that
// starts it and the signals sent to that process's group (a terminal's
// Ctrl-C, a CI job's end).
func Detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
