package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// helperArg makes this test binary act as the program the command
// provider runs, instead of running the tests.
const helperArg = "llm-test-helper"

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == helperArg {
		os.Exit(runHelper(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// runHelper is a stand-in for claude -p:
//
//	script DIR [ARG...]  saves its stdin as DIR/prompt-N and ARGs as DIR/args-N on
//	                     its Nth run, and prints DIR/output-N (the last one again
//	                     when there are fewer)
//	fail                 complains on stderr and exits 3
//	hang                 waits to be killed
func runHelper(args []string) int {
	switch args[0] {
	case "script":
		dir := args[1]
		prompts, _ := filepath.Glob(filepath.Join(dir, "prompt-*"))
		n := len(prompts)
		stdin, _ := io.ReadAll(os.Stdin)
		os.WriteFile(filepath.Join(dir, fmt.Sprint("prompt-", n)), stdin, 0o600)
		os.WriteFile(filepath.Join(dir, fmt.Sprint("args-", n)), []byte(strings.Join(args[2:], "\n")), 0o600)
		outputs, _ := filepath.Glob(filepath.Join(dir, "output-*"))
		out, err := os.ReadFile(filepath.Join(dir, fmt.Sprint("output-", min(n, len(outputs)-1))))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		os.Stdout.Write(out)
		return 0
	case "fail":
		fmt.Fprintln(os.Stderr, "Error: usage limit reached\nplease retry later")
		return 3
	case "hang":
		time.Sleep(time.Minute)
		return 0
	}
	return 2
}

// helperPrompts are the stdins the helper got, in order.
func helperPrompts(t *testing.T, dir string) []string {
	t.Helper()
	var prompts []string
	for i := 0; ; i++ {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprint("prompt-", i)))
		if errors.Is(err, os.ErrNotExist) {
			return prompts
		}
		if err != nil {
			t.Fatal(err)
		}
		prompts = append(prompts, string(data))
	}
}

func TestCommandPromptAndArgs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "output-0"), []byte(goodReply), 0o600); err != nil {
		t.Fatal(err)
	}
	// An argument with spaces and shell characters reaches the program
	// intact: no shell runs in between.
	arg := "--append-system-prompt=be brief; $(rm -rf /)"
	p := NewCommand([]string{os.Args[0], helperArg, "script", dir, arg}, "", time.Minute)
	if _, err := p.Complete(t.Context(), testRequest()); err != nil {
		t.Fatal(err)
	}
	prompts := helperPrompts(t, dir)
	if len(prompts) != 1 || !contains(prompts[0], testRequest().System, testRequest().Prompt, "only a JSON object", "extraction", testSchema) {
		t.Errorf("got prompt %q", prompts)
	}
	if args, _ := os.ReadFile(filepath.Join(dir, "args-0")); string(args) != arg {
		t.Errorf("got args %q, want %q", args, arg)
	}
}

func TestCommandFailures(t *testing.T) {
	cancelled, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	tests := []struct {
		name    string
		ctx     context.Context
		argv    []string
		timeout time.Duration
		want    []string
		is      error
	}{
		{"exit status", t.Context(), []string{os.Args[0], helperArg, "fail"}, 0, []string{"exit status 3", "usage limit reached please retry later"}, nil},
		{"no such program", t.Context(), []string{filepath.Join(t.TempDir(), "claude")}, 0, []string{"command claude"}, os.ErrNotExist},
		{"timeout", t.Context(), []string{os.Args[0], helperArg, "hang"}, 100 * time.Millisecond, []string{"no reply within 100ms"}, context.DeadlineExceeded},
		{"cancel", cancelled, []string{os.Args[0], helperArg, "hang"}, time.Minute, []string{"context canceled"}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewCommand(tt.argv, "", tt.timeout).Complete(tt.ctx, testRequest())
			if err == nil || !contains(err.Error(), tt.want...) || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("got %v, want an error saying %q", err, tt.want)
			}
		})
	}
}
