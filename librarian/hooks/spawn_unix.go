//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// detach makes cmd its own session, so it outlives the hook and the
// signals sent to the hook's process group.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
