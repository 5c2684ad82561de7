package atomicfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// perm is the permission bits of the file at p.
func perm(t *testing.T, p string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// temps lists the temporary files left in dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if IsTemp(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names
}

func TestWriteFileNew(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "state.json")
	if err := WriteFile(p, []byte("one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "one\n" {
		t.Fatalf("read back %q, %v; want %q", got, err, "one\n")
	}
	if got := perm(t, p); got != 0o600 {
		t.Errorf("new file mode %v, want %v", got, fs.FileMode(0o600))
	}
	if left := temps(t, filepath.Dir(p)); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestWriteFileKeepsMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(p, []byte("{}"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o640); err != nil { // past the umask
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := perm(t, p); got != 0o640 {
		t.Errorf("mode %v after WriteFile, want the file's own %v", got, fs.FileMode(0o640))
	}
}

func TestReplaceSetsMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "entry.md")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Replace(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := perm(t, p); got != 0o644 {
		t.Errorf("mode %v after Replace, want %v", got, fs.FileMode(0o644))
	}
}

// A rename that fails (the target is a folder that holds a file) leaves
// the target as it was and no temporary file.
func TestReplaceFailureLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "busy")
	if err := os.MkdirAll(filepath.Join(p, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Replace(p, []byte("data"), 0o644); err == nil {
		t.Fatal("Replace over a non-empty folder succeeded")
	}
	if left := temps(t, dir); len(left) > 0 {
		t.Errorf("temporary files left after a failed rename: %v", left)
	}
	if fi, err := os.Stat(filepath.Join(p, "inside")); err != nil || !fi.IsDir() {
		t.Errorf("target changed by a failed write: %v", err)
	}
}

// A folder that cannot be written fails the write before any file is made.
func TestWriteTempReadOnlyFolder(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root writes into read-only folders")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	_, err := WriteTemp(filepath.Join(dir, "x"), []byte("data"), 0o644)
	if err == nil {
		t.Fatal("WriteTemp in a read-only folder succeeded")
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		t.Errorf("error %v (%T) does not name the file", err, err)
	}
	if left := temps(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// Readers that race many writers see one whole version or another, never a
// mix or an empty file.
func TestReplaceReadersSeeWholeFiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	versions := make([][]byte, 8)
	for i := range versions {
		versions[i] = bytes.Repeat([]byte(strconv.Itoa(i)), 64<<10)
	}
	if err := Replace(p, versions[0], 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, v := range versions {
		wg.Go(func() {
			for range 5 {
				if err := Replace(p, v, 0o644); err != nil {
					t.Error(err)
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		whole := false
		for _, v := range versions {
			whole = whole || bytes.Equal(got, v)
		}
		if !whole {
			t.Fatalf("read %d bytes that are no version written", len(got))
		}
	}
	if left := temps(t, filepath.Dir(p)); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestTempNames(t *testing.T) {
	p := filepath.Join(t.TempDir(), "entry.md")
	tmp, err := WriteTemp(p, []byte("x"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(tmp)
	name := filepath.Base(tmp)
	if !IsTemp(name) {
		t.Errorf("IsTemp(%q) = false for a temporary file", name)
	}
	if pid, ok := TempPID(name); !ok || pid != os.Getpid() {
		t.Errorf("TempPID(%q) = %d, %v; want %d, true", name, pid, ok, os.Getpid())
	}
	for _, c := range []struct {
		name string
		temp bool
		pid  int
	}{
		{".x.md.tmp-123-456", true, 123},
		{".x.md.tmp-789", true, 0}, // made before names had a pid
		{".x.md.tmp-abc-1", true, 0},
		{"x.md.tmp-123-456", false, 0},
		{"x.md", false, 0},
		{".x.md", false, 0},
	} {
		if got := IsTemp(c.name); got != c.temp {
			t.Errorf("IsTemp(%q) = %v, want %v", c.name, got, c.temp)
		}
		pid, ok := TempPID(c.name)
		if pid != c.pid || ok != (c.pid != 0) {
			t.Errorf("TempPID(%q) = %d, %v; want %d", c.name, pid, ok, c.pid)
		}
	}
}

// Through follows links to the file they lead to, made or not, and gives
// up on a loop, returning the path as it is.
func TestThrough(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "real.json")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"abs.json":     file,
		"rel.json":     "real.json",
		"chain.json":   "rel.json",
		"missing.json": filepath.Join("sub", "new.json"),
		"loop-a.json":  "loop-b.json",
		"loop-b.json":  "loop-a.json",
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, l)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ path, want string }{
		{file, file},
		{filepath.Join(dir, "none.json"), filepath.Join(dir, "none.json")},
		{filepath.Join(dir, "abs.json"), file},
		{filepath.Join(dir, "rel.json"), file},
		{filepath.Join(dir, "chain.json"), file},
		{filepath.Join(dir, "missing.json"), filepath.Join(dir, "sub", "new.json")},
		{filepath.Join(dir, "loop-a.json"), filepath.Join(dir, "loop-a.json")},
	} {
		if got := Through(tt.path); got != tt.want {
			t.Errorf("Through(%s) = %s, want %s", tt.path, got, tt.want)
		}
	}
}
