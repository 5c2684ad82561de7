package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ctx0/ctx0/internal/proc"
)

// waitLimit bounds the waits of the watcher command: long enough for a
// loaded machine, short enough that a broken start fails the script.
const waitLimit = time.Minute

// cmdWatcher follows the watchers ctx0 starts by itself for the vault DIR
// (see autowatch.go), for scripts:
//
//	watcher DIR up       wait until one listens on the vault's socket
//	watcher DIR count N  wait until exactly N run (started automatically)
//	watcher DIR failed   wait until a failed one is recorded
//	watcher DIR stop     stop those that run, and wait until they are gone
//
// Every script's watchers are stopped when it ends, however it ends (see
// stopAutoWatchers).
func cmdWatcher(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: watcher DIR up|count N|failed|stop")
	}
	dir := ts.MkAbs(args[0])
	wait := func(what string, done func() bool) {
		for deadline := time.Now().Add(waitLimit); !done(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				ts.Fatalf("watcher %s: %s: not after %v", args[0], what, waitLimit)
			}
		}
	}
	switch args[1] {
	case "up":
		// Connected to, not only there: a killed watcher leaves its
		// socket behind.
		wait("up", func() bool {
			c, err := net.Dial("unix", filepath.Join(dir, ".ctx0", "index.db-sock"))
			if err == nil {
				c.Close()
			}
			return err == nil
		})
	case "count":
		if len(args) != 3 {
			ts.Fatalf("usage: watcher DIR count N")
		}
		n, err := strconv.Atoi(args[2])
		ts.Check(err)
		wait("count "+args[2], func() bool { return len(autoWatchers(dir, false)) == n })
	case "failed":
		wait("failed", func() bool { return readAutoWatch(dir).Failures > 0 })
	case "stop":
		kill(autoWatchers(dir, false))
	default:
		ts.Fatalf("watcher: unknown %q", args[1])
	}
}

// autoWatchers lists the watchers ctx0 started by itself for the vault
// dir, or with under, for every vault under dir, from their command lines
// (Linux's /proc). A zombie's command line is empty.
func autoWatchers(dir string, under bool) []int {
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(bytes.TrimRight(b, "\x00")), "\x00")
		// ctx0 --vault DIR index --watch --auto ...
		if len(args) < 6 || args[1] != "--vault" || args[3] != "index" || args[4] != "--watch" || args[5] != "--auto" {
			continue
		}
		vdir := args[2]
		if d, err := filepath.EvalSymlinks(vdir); err == nil {
			vdir = d
		}
		if vdir == dir || (under && strings.HasPrefix(vdir, dir+string(filepath.Separator))) {
			out = append(out, pid)
		}
	}
	return out
}

// stopAutoWatchers kills the watchers ctx0 started by itself for the
// vaults under dir, and waits until they are gone: no script leaves one
// behind, whether it passed or not.
func stopAutoWatchers(dir string) { kill(autoWatchers(dir, true)) }

// kill kills the processes pids and waits until they are gone.
func kill(pids []int) {
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
		proc.Holder{PID: pid}.WaitGone(waitLimit)
	}
}
