package proc

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// startTime is field 22 of /proc/<pid>/stat (starttime, in clock ticks
// since boot), or 0 if the process is gone. The second field, the command
// name, is in parentheses and may hold spaces or parentheses itself, so
// fields are counted after its last ')'.
func startTime(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state), so field 22 is f[19].
	if len(f) < 20 {
		return 0
	}
	n, err := strconv.ParseUint(string(f[19]), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// pidAlive tells whether a process has pid and has not ended. A zombie
// (killed or exited, not yet reaped by its parent) holds no lock and
// writes nothing more, so it is gone: a ctx0 killed with SIGKILL whose
// parent does not reap it (a background pusher, detached and then
// reparented to an init that does not reap, as in some containers) stays
// a zombie, and what it held must be recovered all the same.
func pidAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state is the field after the command name, which ends at the
	// last ')'.
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		switch b[i+2] {
		case 'Z', 'X', 'x':
			return false
		}
	}
	return true
}

// running0 reads /proc/<pid>/comm of every process: a few hundred small
// reads, about a millisecond. A process whose working directory cannot be
// read (another user's) counts as in dir.
func running0(name, dir string) (bool, bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false, false
	}
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/comm")
		if err != nil || string(bytes.TrimSpace(b)) != name {
			continue
		}
		if dir == "" {
			return true, true
		}
		cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd")
		if errors.Is(err, os.ErrNotExist) {
			continue // it exited meanwhile
		}
		if err != nil || cwd == dir || strings.HasPrefix(cwd, strings.TrimSuffix(dir, "/")+"/") {
			return true, true
		}
	}
	return false, true
}

// waitExit blocks until the process pid has ended or d has passed: a
// pidfd becomes readable when its process ends, so nothing polls. Where
// pidfds are missing (kernels before 5.3), it sleeps and looks again.
func waitExit(pid int, d time.Duration) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return
		}
		sleepUntilGone(pid, d)
		return
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if n > 0 || (err != nil && !errors.Is(err, unix.EINTR)) {
			return
		}
	}
}
