package vault

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// waitForWriters waits, at most within, until no program holds f's file
// open for writing. f is open read-only.
//
// A read lease is granted only while nobody has the file open for writing,
// so asking for one and giving it back at once answers the question
// without holding anyone up. A file replaced by rename has no name left,
// so once no writer has it open nobody can write to it again. Where leases
// are not to be had (another owner's file, a file system without them) it
// returns at once.
func waitForWriters(f *os.File, within time.Duration) {
	deadline := time.Now().Add(within)
	pause := time.Millisecond
	for {
		_, err := unix.FcntlInt(f.Fd(), unix.F_SETLEASE, unix.F_RDLCK)
		if err == nil {
			unix.FcntlInt(f.Fd(), unix.F_SETLEASE, unix.F_UNLCK)
			return
		}
		if !errors.Is(err, unix.EAGAIN) || time.Now().After(deadline) {
			return
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}
