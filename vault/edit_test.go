package vault

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Concurrent read-modify-writes of one body lose nothing: each sees the
// others' changes, because the read is under the vault lock.
func TestEditBodyConcurrent(t *testing.T) {
	v := testVault(t)
	if _, _, err := v.Add(t.Context(), AddOptions{Name: "logs/shared", Meta: Meta{Type: "log"}, Body: new("start\n")}); err != nil {
		t.Fatal(err)
	}
	const writers, each = 4, 5
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				_, _, err := v.EditBody(t.Context(), "logs/shared", "append to", func(body string) (string, error) {
					return body + fmt.Sprintf("writer %d line %d\n", w, i), nil
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	d, err := v.Get(t.Context(), "logs/shared")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(d.Entry.Body(), "\n"); n != 1+writers*each {
		t.Errorf("%d lines, want %d:\n%s", n, 1+writers*each, d.Entry.Body())
	}
	runGit(t, v, "fsck", "--strict")
	// An error from fn writes nothing; an unchanged body commits nothing.
	before := runGit(t, v, "rev-parse", "HEAD")
	boom := errors.New("boom")
	if _, _, err := v.EditBody(t.Context(), "logs/shared", "x", func(string) (string, error) { return "", boom }); !errors.Is(err, boom) {
		t.Errorf("fn's error: %v", err)
	}
	if _, c, err := v.EditBody(t.Context(), "logs/shared", "x", func(b string) (string, error) { return b, nil }); err != nil || c.Hash != "" {
		t.Errorf("unchanged body: %v, %v", c, err)
	}
	if after := runGit(t, v, "rev-parse", "HEAD"); after != before {
		t.Error("a commit was made")
	}
}

func TestCreateExactName(t *testing.T) {
	v := testVault(t)
	data := []byte("---\ntitle: Notes\ntype: note\n---\nat the top\n")
	c, err := v.Create(t.Context(), "notes.txt", data)
	if err != nil || c.Message != "add notes.txt" {
		t.Fatalf("create: %v, %v", c, err)
	}
	d, err := v.Read(t.Context(), "notes.txt")
	if err != nil || string(d.Entry.Bytes()) != string(data) {
		t.Errorf("read back: %v, %v", d, err)
	}
	if _, err := v.Create(t.Context(), "notes.txt", data); !errors.Is(err, ErrExists) {
		t.Errorf("create again: %v", err)
	}
	if _, err := v.Create(t.Context(), "Notes/Big", data); err == nil {
		t.Error("a name that is not normalized: want an error")
	}
	if _, err := v.Create(t.Context(), "../x", data); err == nil {
		t.Error("a name that leaves the vault: want an error")
	}
	if _, err := v.Create(t.Context(), "bad", []byte("---\ntitle: [\n---\n")); err == nil {
		t.Error("a file that does not parse: want an error")
	}
	if st := runGit(t, v, "status", "--porcelain"); st != "" {
		t.Errorf("git status:\n%s", st)
	}
}

// A person's editor appending to an entry while ctx0 sets a field on it
// loses no line: the write path replaces the file only if it is still what
// ctx0 read, and otherwise applies the change again to what is there.
func TestSetDoesNotLoseConcurrentAppends(t *testing.T) {
	v := testVault(t)
	if _, _, err := v.Add(t.Context(), AddOptions{Name: "knowledge/shared", Body: new("start\n")}); err != nil {
		t.Fatal(err)
	}
	path := v.path("knowledge/shared")
	stop := make(chan struct{})
	appended := make(chan int)
	go func() {
		n := 0
		defer func() { appended <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Error(err)
				return
			}
			fmt.Fprintf(f, "line %d\n", n)
			f.Close()
			n++
			time.Sleep(10 * time.Millisecond)
		}
	}()
	const sets = 40
	for i := range sets {
		if _, _, err := v.Set(t.Context(), "knowledge/shared", "counter", strconv.Itoa(i)); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	n := <-appended
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lost []int
	for i := range n {
		if !strings.Contains(string(data), fmt.Sprintf("line %d\n", i)) {
			lost = append(lost, i)
		}
	}
	if len(lost) > 0 {
		t.Errorf("lost %d of %d appended lines: %v", len(lost), n, lost)
	}
	if !strings.Contains(string(data), fmt.Sprintf("counter: %d\n", sets-1)) {
		t.Errorf("the last set is not in the file:\n%s", data)
	}
}

// A program that opens the file ctx0 is replacing, just after ctx0 read it,
// loses nothing it writes: neither a line appended at once (before ctx0's
// check), nor one written only after ctx0's commit, for which the write
// path waits until the program closes the file (Linux only).
func TestSetKeepsWhatAnotherProgramWritesMeanwhile(t *testing.T) {
	for _, tt := range []struct {
		name  string
		delay time.Duration // from the open to the write; the close follows it
		linux bool
	}{
		{"appended right after ctx0's read", 0, false},
		{"written after ctx0's commit", 300 * time.Millisecond, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.linux && runtime.GOOS != "linux" {
				t.Skip("only Linux tells whether a program has a file open for writing")
			}
			v := testVault(t)
			if _, _, err := v.Add(t.Context(), AddOptions{Name: "knowledge/shared", Body: new("start\n")}); err != nil {
				t.Fatal(err)
			}
			path := v.path("knowledge/shared")
			var writer sync.WaitGroup
			opened := false
			v.afterReplaceRead = func() {
				if opened {
					return
				}
				opened = true
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Error(err)
					return
				}
				write := func() {
					defer f.Close()
					time.Sleep(tt.delay)
					if _, err := f.WriteString("written meanwhile\n"); err != nil {
						t.Error(err)
					}
				}
				if tt.delay == 0 {
					write()
				} else {
					writer.Go(write)
				}
			}
			if _, _, err := v.Set(t.Context(), "knowledge/shared", "status", "done"); err != nil {
				t.Fatal(err)
			}
			writer.Wait()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !opened || !strings.Contains(string(data), "written meanwhile\n") || !strings.Contains(string(data), "status: done\n") {
				t.Errorf("want both the set field and the line written meanwhile:\n%s", data)
			}
		})
	}
}
