//go:build !unix

package proc

import "os/exec"

// Detach does nothing where there are no sessions to leave: the child is
// not waited for either way.
func Detach(*exec.Cmd) {}
