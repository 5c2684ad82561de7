//go:build !unix

package proc

import (
	"os"
	"time"
)

func startTime(int) uint64 { return 0 }

// pidAlive: on Windows, FindProcess opens the process and fails when no
// process has the pid.
func pidAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}

func running0(string, string) (bool, bool) { return false, false }

func waitExit(pid int, d time.Duration) { sleepUntilGone(pid, d) }
