package proc

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A process killed but not yet reaped by its parent (a zombie) is not
// alive: it holds nothing and writes nothing more.
func TestZombieIsNotAlive(t *testing.T) {
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Skip("no `sleep` command:", err)
	}
	h := Holder{PID: cmd.Process.Pid, Start: startTime(cmd.Process.Pid)}
	if !h.Alive() {
		t.Fatalf("running process %v is not alive", h)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	// Not reaped until cmd.Wait: wait until the kernel shows the zombie.
	stat := "/proc/" + strconv.Itoa(h.PID) + "/stat"
	for deadline := time.Now().Add(time.Minute); ; {
		b, err := os.ReadFile(stat)
		if err != nil {
			t.Fatalf("the killed process was reaped already: %v", err)
		}
		if _, rest, ok := strings.Cut(string(b), ") "); ok && strings.HasPrefix(rest, "Z") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d never became a zombie: %s", h.PID, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if h.Alive() {
		t.Errorf("zombie %v is alive", h)
	}
	cmd.Wait()
}
