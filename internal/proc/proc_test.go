package proc

import (
	"os/exec"
	"testing"
)

func TestSelfAlive(t *testing.T) {
	h := Self()
	if !h.Alive() {
		t.Fatalf("Self() = %v is not alive", h)
	}
	back, err := Parse(h.String())
	if err != nil || back != h {
		t.Fatalf("Parse(%q) = %v, %v; want %v", h.String(), back, err, h)
	}
}

func TestDeadAndReused(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no `true` command:", err)
	}
	dead := Holder{PID: cmd.Process.Pid}
	if dead.Alive() {
		t.Errorf("exited process %d is alive", dead.PID)
	}
	self := Self()
	if self.Start == 0 {
		t.Skip("start times unknown on this system")
	}
	reused := Holder{PID: self.PID, Start: self.Start + 1}
	if reused.Alive() {
		t.Errorf("holder %v with another start time than the running pid is alive", reused)
	}
}

func TestParseRejects(t *testing.T) {
	for _, s := range []string{"", "12", "x 1", "-3 1", "1 y", "1 2 3"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) = nil error", s)
		}
	}
}

func TestRunning(t *testing.T) {
	cmd := exec.Command("sleep", "5")
	cmd.Dir = t.TempDir()
	if err := cmd.Start(); err != nil {
		t.Skip("no `sleep` command:", err)
	}
	defer cmd.Process.Kill()
	running, known := Running("sleep", cmd.Dir)
	if !known {
		t.Skip("processes cannot be listed here")
	}
	if !running {
		t.Errorf("Running(sleep) = false with sleep %d running", cmd.Process.Pid)
	}
	if running, _ := Running("no-such-command-ctx0", ""); running {
		t.Errorf("Running(no-such-command-ctx0) = true")
	}
	if running, _ := Running("sleep", t.TempDir()); running {
		t.Errorf("Running(sleep) in an empty folder = true")
	}
}
