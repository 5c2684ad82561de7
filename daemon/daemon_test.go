package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var testNow = time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)

func now() time.Time { return testNow }

// running starts Run with parts in the background, and returns a func
// that stops it and returns Run's error.
func running(t *testing.T, root string, parts ...Part) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Root: root, Parts: parts, Now: now, RetryPause: time.Millisecond, RetryMax: time.Millisecond})
	}()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() { cancel(); err = <-done })
		return err
	}
	t.Cleanup(func() { stop() })
	return stop
}

// waitFor polls cond until it holds, failing the test after a generous
// deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within a minute", what)
		}
	}
}

// idle is a part that records one line, then waits for the end.
func idle(name, line string) Part {
	return Part{Name: name, Run: func(ctx context.Context, record func(string)) error {
		record(line)
		<-ctx.Done()
		return nil
	}}
}

func TestStatusWhileRunningAndAfter(t *testing.T) {
	root := t.TempDir()
	if st, err := ReadStatus(root); err != nil || st != nil {
		t.Fatalf("status before any daemon = %+v, %v; want nil", st, err)
	}
	stop := running(t, root, idle("index", "indexed"), idle("worker", "filed"))
	waitFor(t, "record of both parts", func() bool {
		st, err := ReadStatus(root)
		return err == nil && st != nil && st.Parts[0].LastLine == "indexed" && st.Parts[1].LastLine == "filed"
	})
	st, err := ReadStatus(root)
	if err != nil || !st.Running || st.PID != os.Getpid() || !st.Started.Equal(testNow) {
		t.Errorf("status while running = %+v, %v", st, err)
	}

	// A second daemon for the vault is refused, naming the first.
	err = Run(t.Context(), Options{Root: root, Parts: []Part{idle("index", "")}})
	var re *RunningError
	if !errors.As(err, &re) || re.PID != os.Getpid() || !strings.Contains(err.Error(), "another daemon runs for "+root) {
		t.Errorf("second daemon: %v, want a RunningError with pid %d", err, os.Getpid())
	}

	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	st, err = ReadStatus(root)
	if err != nil || st.Running || st.Stopped == nil || st.Parts[1].LastLine != "filed" {
		t.Errorf("status after the stop = %+v, %v; want stopped, with the parts' last lines", st, err)
	}
}

func TestStateLeftByAKilledDaemonIsNotRunning(t *testing.T) {
	root := t.TempDir()
	stop := running(t, root, idle("index", "indexed"))
	waitFor(t, "record", func() bool { st, _ := ReadStatus(root); return st != nil && st.Parts[0].Last != nil })
	path := filepath.Join(root, ".ctx0", "state", stateFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	// The state file as a daemon killed with -9 leaves it: never stopped.
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := ReadStatus(root)
	if err != nil || st.Running || st.Stopped != nil {
		t.Errorf("status = %+v, %v; want not running though the file says nothing of a stop", st, err)
	}
}

func TestAFailedPartRunsAgain(t *testing.T) {
	root := t.TempDir()
	var mu sync.Mutex
	runs := 0
	flaky := Part{Name: "sync", Run: func(ctx context.Context, record func(string)) error {
		mu.Lock()
		runs++
		n := runs
		mu.Unlock()
		if n < 3 {
			return errors.New("remote unreachable")
		}
		record("synced")
		<-ctx.Done()
		return nil
	}}
	stop := running(t, root, flaky)
	waitFor(t, "the third run", func() bool { st, _ := ReadStatus(root); return st != nil && st.Parts[0].LastLine == "synced" })
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

func TestNewService(t *testing.T) {
	o := ServiceOptions{Home: "/home/sam", Exe: "/usr/local/bin/ctx0", Root: "/home/sam/My Notes"}
	linux := o
	linux.GOOS = "linux"
	s, err := NewService(linux)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Path, "/home/sam/.config/systemd/user/ctx0-daemon-my-notes-") || !strings.HasSuffix(s.Path, ".service") {
		t.Errorf("unit path %s", s.Path)
	}
	for _, want := range []string{
		"\nExecStart=/usr/local/bin/ctx0 --vault \"/home/sam/My Notes\" daemon\n",
		"\nRestart=on-failure\n",
		"# Written by ctx0 daemon install for the vault /home/sam/My Notes; ctx0 daemon uninstall removes it.\n",
	} {
		if !strings.Contains(string(s.Content), want) {
			t.Errorf("unit lacks %q:\n%s", want, s.Content)
		}
	}
	xdg := linux
	xdg.ConfigHome = "/xdg"
	if s2, _ := NewService(xdg); filepath.Dir(s2.Path) != "/xdg/systemd/user" || s2.Name != s.Name {
		t.Errorf("with XDG_CONFIG_HOME: %s", s2.Path)
	}
	other := linux
	other.Root = "/srv/my-notes"
	if s3, _ := NewService(other); s3.Name == s.Name {
		t.Errorf("two vaults share the unit %s", s.Name)
	}

	mac := o
	mac.GOOS = "darwin"
	m, err := NewService(mac)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(m.Path) != "/home/sam/Library/LaunchAgents" || !strings.HasPrefix(m.Name, "dev.ctx0.daemon.my-notes-") {
		t.Errorf("agent %s at %s", m.Name, m.Path)
	}
	if !strings.Contains(string(m.Content), "<string>/home/sam/My Notes</string>") || m.Commands(m.Enable)[0] != "launchctl load -w "+m.Path {
		t.Errorf("agent:\n%s\n%v", m.Content, m.Commands(m.Enable))
	}

	if _, err := NewService(ServiceOptions{GOOS: "windows", Exe: o.Exe, Root: o.Root}); !errors.Is(err, ErrNoServiceManager) {
		t.Errorf("windows: %v", err)
	}
	if _, err := NewService(ServiceOptions{GOOS: "linux", Exe: "ctx0", Root: o.Root}); err == nil {
		t.Error("a relative program path was taken")
	}
}

// A restart stops every part, lets go of what they used, then runs the new
// parts under the same lock; a part of the same name keeps its record.
func TestRestartRunsTheNewParts(t *testing.T) {
	root := t.TempDir()
	restart := make(chan Restart)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Root: root, Parts: []Part{idle("index", "indexed"), idle("worker", "filed")}, Now: now, Restart: restart})
	}()
	waitFor(t, "record of both parts", func() bool {
		st, _ := ReadStatus(root)
		return st != nil && len(st.Parts) == 2 && st.Parts[1].LastLine == "filed"
	})
	var workerRunning sync.Mutex // held while the new worker runs
	stoppedBeforeStart := make(chan bool, 1)
	started := false
	restart <- Restart{
		Parts: []Part{
			{Name: "worker", Run: func(ctx context.Context, record func(string)) error {
				workerRunning.Lock()
				started = true
				workerRunning.Unlock()
				<-ctx.Done()
				return nil
			}},
			idle("sync", "synced"),
		},
		Stopped: func() {
			workerRunning.Lock()
			stoppedBeforeStart <- !started
			workerRunning.Unlock()
		},
	}
	if !<-stoppedBeforeStart {
		t.Error("the new parts started before Stopped ran")
	}
	waitFor(t, "the new part's record", func() bool {
		st, _ := ReadStatus(root)
		return st != nil && len(st.Parts) == 2 && st.Parts[1].LastLine == "synced"
	})
	st, err := ReadStatus(root)
	if err != nil || !st.Running || st.Parts[0].Name != "worker" || st.Parts[0].LastLine != "filed" || st.Parts[1].Name != "sync" {
		t.Errorf("status after the restart = %+v, %v", st, err)
	}
	// Another daemon is still refused: the lock was held throughout.
	if err := Run(t.Context(), Options{Root: root, Parts: []Part{idle("index", "")}}); !errors.As(err, new(*RunningError)) {
		t.Errorf("a second daemon: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
