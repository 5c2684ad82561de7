package kind

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// TestInitCompilesNoPattern: every ctx0 command starts this package, so its
// initialisation must build no pattern (each is compiled on first use). The
// test binary runs itself with the runtime's init trace and reads what this
// package's initialisation allocated: its maps and pattern texts take some
// 40 KB; compiling decision's two halves at start took 160 KB and 0.9 ms.
func TestInitCompilesNoPattern(t *testing.T) {
	if os.Getenv("KIND_INIT_CHILD") != "" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInitCompilesNoPattern$")
	cmd.Env = append(os.Environ(), "KIND_INIT_CHILD=1", "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run %s: %v\n%s", os.Args[0], err, out)
	}
	m := regexp.MustCompile(`(?m)^init github\.com/ctx0/ctx0/internal/kind @.*, (\d+) bytes, \d+ allocs$`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no init trace of internal/kind in:\n%s", out)
	}
	n, _ := strconv.Atoi(string(m[1]))
	const most = 64 << 10
	if n > most {
		t.Errorf("initialising internal/kind allocated %d bytes, more than %d: a pattern is compiled at start", n, most)
	}
}
