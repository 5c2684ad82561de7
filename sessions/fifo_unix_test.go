//go:build unix

package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Only regular files are read as session files: a FIFO, whose open blocks
// until a writer comes, and a folder are refused, through a symlink too.
func TestOpenRegularRefusesOthers(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	regular := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(regular, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want error // nil: opens
	}{
		{fifo, errNotRegular},
		{link, errNotRegular},
		{dir, errNotRegular},
		{regular, nil},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			f, err := openRegular(tt.path)
			if f != nil {
				f.Close()
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("openRegular(%s) = %v, want %v", tt.path, err, tt.want)
			}
			if tt.want == nil {
				return
			}
			if _, err := FileAt(tt.path); err == nil {
				t.Errorf("FileAt(%s) took it", tt.path)
			}
			if _, err := readPiece(tt.path, 0, 10, 10); !errors.Is(err, errNotRegular) {
				t.Errorf("readPiece(%s) = %v, want %v", tt.path, err, errNotRegular)
			}
		})
	}
}
