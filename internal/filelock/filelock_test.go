package filelock

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestMain lets the test binary hold a lock as another process: with
// FILELOCK_HOLD set it takes the exclusive lock on that path, says
// "locked" and waits until it is killed.
func TestMain(m *testing.M) {
	if p := os.Getenv("FILELOCK_HOLD"); p != "" {
		l, err := Exclusive(context.Background(), p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("locked")
		// A lock nothing refers to is collected, and its file's
		// finalizer closes it, which lets go of the lock: keep it.
		for {
			time.Sleep(time.Hour)
			runtime.KeepAlive(l)
		}
	}
	os.Exit(m.Run())
}

// lockLater waits for the exclusive lock on p in another goroutine, lets
// go of it at once, and sends what the wait returned.
func lockLater(ctx context.Context, p string) <-chan error {
	got := make(chan error, 1)
	go func() {
		l, err := Exclusive(ctx, p)
		if err == nil {
			l.Unlock()
		}
		got <- err
	}()
	return got
}

// long bounds the waits that must succeed, far above any machine's load.
const long = time.Minute

func TestExclusiveMakesFolder(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a", "b", "x.lock")
	l, err := Exclusive(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if l.Path() != p {
		t.Errorf("Path() = %q, want %q", l.Path(), p)
	}
	if _, err := os.Stat(p); err != nil {
		t.Errorf("lock file not made: %v", err)
	}
}

func TestTryExclusive(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	l, ok, err := TryExclusive(p)
	if err != nil || !ok {
		t.Fatalf("TryExclusive on a free lock = %v, %v", ok, err)
	}
	// A second handle in the same process is a second holder.
	if _, ok, err := TryExclusive(p); err != nil || ok {
		t.Fatalf("TryExclusive on a held lock = %v, %v; want false, nil", ok, err)
	}
	if _, ok, err := TryShared(p); err != nil || ok {
		t.Fatalf("TryShared on an exclusive lock = %v, %v; want false, nil", ok, err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, ok, err := TryExclusive(p)
	if err != nil || !ok {
		t.Fatalf("TryExclusive after Unlock = %v, %v", ok, err)
	}
	l2.Unlock()
}

func TestShared(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	a, err := Shared(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Unlock()
	b, ok, err := TryShared(p)
	if err != nil || !ok {
		t.Fatalf("a second shared lock = %v, %v; want it taken", ok, err)
	}
	defer b.Unlock()
	if _, ok, err := TryExclusive(p); err != nil || ok {
		t.Fatalf("TryExclusive under shared locks = %v, %v; want false, nil", ok, err)
	}
}

// A waiter gets the lock once its holder lets go.
func TestExclusiveWaits(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	held, err := Exclusive(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), long)
	defer cancel()
	got := lockLater(ctx, p)
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("waiter: %v", err)
	}
}

// A wait ends with its context, and leaves nothing held.
func TestExclusiveCancelled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	held, err := Exclusive(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	got := lockLater(ctx, p)
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait returned %v, want context.Canceled", err)
	}
	if _, err := Shared(ctx, p); !errors.Is(err, context.Canceled) {
		t.Fatalf("Shared with an ended context returned %v, want context.Canceled", err)
	}
	held.Unlock()
	// The cancelled wait may take the lock for a moment once it is free,
	// and lets go of it at once: a later wait gets it.
	ctx, cancel = context.WithTimeout(t.Context(), long)
	defer cancel()
	l, err := Exclusive(ctx, p)
	if err != nil {
		t.Fatalf("lock after a cancelled wait: %v", err)
	}
	l.Unlock()
}

// Another process holds the lock until it dies, however it dies.
func TestOtherProcess(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FILELOCK_HOLD="+p)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("holder said %q, %v", line, err)
	}
	if _, ok, err := TryExclusive(p); err != nil || ok {
		t.Fatalf("TryExclusive while another process holds it = %v, %v; want false, nil", ok, err)
	}
	if _, ok, err := TryShared(p); err != nil || ok {
		t.Fatalf("TryShared while another process holds it = %v, %v; want false, nil", ok, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), long)
	defer cancel()
	got := lockLater(ctx, p)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if err := <-got; err != nil {
		t.Fatalf("lock after its holder was killed: %v", err)
	}
}
