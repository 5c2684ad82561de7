//go:build unix && !linux

package proc

import (
	"errors"
	"syscall"
	"time"
)

func startTime(int) uint64 { return 0 }

// pidAlive sends signal 0: no error, or EPERM (the process exists but
// belongs to another user), means it runs.
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func running0(string, string) (bool, bool) { return false, false }

func waitExit(pid int, d time.Duration) { sleepUntilGone(pid, d) }
