//go:build unix

package hooks

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A transcript_path that names a FIFO (or any file that is not a regular
// file) is refused at once: opening a FIFO with no writer would block the
// hook, and the background run it leaves, forever.
func TestClaudeCodeTranscriptIsFIFO(t *testing.T) {
	_, _, o := hookEnv(t)
	fifo := filepath.Join(t.TempDir(), "session.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, event := range []string{"Stop", "PreCompact", "SessionEnd"} {
		t.Run(event, func(t *testing.T) {
			// Spawn nil: the background run's own path, with no deadline.
			o.Spawn = nil
			if out := ClaudeCode(t.Context(), input(event, fifo, ""), o); out != "" {
				t.Errorf("printed %q", out)
			}
			if log := logText(t, o); !strings.Contains(log, "not a regular file") {
				t.Errorf("log does not say the transcript is not a regular file:\n%s", log)
			}
		})
	}
}
