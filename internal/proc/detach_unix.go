//go:build unix

package proc

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// Detach makes cmd its own session, so that it outlives the process that
// starts it and the signals sent to that process's group (a terminal's
// Ctrl-C, a CI job's end). It also marks every descriptor this process
// inherited close-on-exec (Go opens its own so): a long-lived child must
// not hold a pipe that whoever started this process waits on, as a CI job
// or a test harness waits for the end of its command's output.
func Detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	for _, fd := range inherited() {
		syscall.CloseOnExec(fd)
	}
}

// inherited lists this process's descriptors above stderr: from /proc or
// /dev/fd where the system has one, else every number up to the limit.
func inherited() []int {
	var fds []int
	for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
				fds = append(fds, fd)
			}
		}
		return fds
	}
	limit := uint64(1024)
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil && rl.Cur < 1<<16 {
		limit = rl.Cur
	}
	for fd := 3; uint64(fd) < limit; fd++ {
		fds = append(fds, fd)
	}
	return fds
}
