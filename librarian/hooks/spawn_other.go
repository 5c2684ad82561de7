//go:build !unix

package hooks

import "os/exec"

// detach does nothing where there are no sessions to leave: the child is
// not waited for either way.
func detach(*exec.Cmd) {}
