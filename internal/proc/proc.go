// Package proc names a running process well enough to tell, later and from
// another process, whether it still runs: its pid and, where the system
// says, its start time, so that a pid the system has given to a new process
// since is not taken for the old one.
package proc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Holder is a process that holds something: a lock, a temporary file.
type Holder struct {
	PID   int
	Start uint64 // start time in the system's own units (clock ticks since boot on Linux); 0 when unknown
}

// Self is the current process.
func Self() Holder {
	pid := os.Getpid()
	return Holder{PID: pid, Start: startTime(pid)}
}

// Alive tells whether h still runs. A holder whose recorded start time
// differs from the start time of the process now using its pid is dead: its
// pid was reused. Where start times are unknown, a live pid counts as alive.
func (h Holder) Alive() bool {
	if h.PID <= 0 {
		return false
	}
	if h.PID == os.Getpid() {
		return h.Start == 0 || h.Start == startTime(h.PID)
	}
	if !pidAlive(h.PID) {
		return false
	}
	if h.Start == 0 {
		return true
	}
	now := startTime(h.PID)
	return now == 0 || now == h.Start
}

// WaitGone waits up to d for h to end and reports whether it has. A
// process killed with SIGKILL closes its files, and so lets go of its
// flocks, before the system shows it as ended: for a moment after, /proc
// still shows it running (state R, not yet exiting). Whoever takes a lock
// and finds its last holder running waits for it here, so that a holder
// killed a moment ago is not taken for one that still runs.
func (h Holder) WaitGone(d time.Duration) bool {
	if !h.Alive() {
		return true
	}
	if h.PID == os.Getpid() {
		return false
	}
	waitExit(h.PID, d)
	return !h.Alive()
}

// String is "pid start", the form Parse reads.
func (h Holder) String() string { return fmt.Sprintf("%d %d", h.PID, h.Start) }

// Parse reads a holder written by String.
func Parse(s string) (Holder, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return Holder{}, fmt.Errorf("holder %q: want \"pid start\"", s)
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return Holder{}, fmt.Errorf("holder %q: bad pid", s)
	}
	start, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return Holder{}, fmt.Errorf("holder %q: bad start time", s)
	}
	return Holder{PID: pid, Start: start}, nil
}

// Running tells whether a process whose command name is name runs now with
// its working directory in dir or below ("" for anywhere); known is false
// where the system does not let us list processes.
func Running(name, dir string) (running, known bool) { return running0(name, dir) }

// sleepUntilGone looks at pid every few milliseconds until it has ended or
// d has passed: the wait where the system offers no way to block on it.
func sleepUntilGone(pid int, d time.Duration) {
	for deadline := time.Now().Add(d); pidAlive(pid) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
}
