package hooks

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/ctx0/ctx0/internal/proc"
)

// Background returns a Spawn that runs the ctx0 binary exe with
// --vault root and the given arguments, detached, reading stdin from a
// file so that nothing is lost when the hook exits first. Its output goes
// nowhere: it logs like the hook does.
func Background(exe, root, stateDir string) func(args []string, stdin []byte) error {
	return func(args []string, stdin []byte) error {
		in, err := os.CreateTemp(stateDir, "hook-input-*.json")
		if err != nil {
			return fmt.Errorf("start background run: %w", err)
		}
		// The child keeps the open file; the name is not needed.
		defer os.Remove(in.Name())
		defer in.Close()
		if _, err := in.Write(stdin); err != nil {
			return fmt.Errorf("start background run: %w", err)
		}
		if _, err := in.Seek(0, 0); err != nil {
			return fmt.Errorf("start background run: %w", err)
		}
		cmd := exec.Command(exe, append([]string{"--vault", root}, args...)...)
		cmd.Stdin = in
		proc.Detach(cmd)
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start background run: %w", err)
		}
		// Not waited for: it runs on after the hook has returned.
		return cmd.Process.Release()
	}
}
