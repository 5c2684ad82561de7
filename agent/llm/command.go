package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Command completes by running a program (such as claude -p) with the
// prompt on its stdin and reading the reply from its stdout. Such programs
// report no token counts, so its usage is zero.
type Command struct {
	argv    []string
	model   string
	timeout time.Duration
}

var _ Provider = (*Command)(nil)

// NewCommand returns a provider running argv (the program and its
// arguments, run without a shell). model is only reported: pass the
// program its model in argv. timeout bounds each run; 0 leaves it to ctx.
func NewCommand(argv []string, model string, timeout time.Duration) *Command {
	return &Command{argv: argv, model: model, timeout: timeout}
}

func (c *Command) Name() string  { return "command" }
func (c *Command) Model() string { return c.model }

// waitDelay is how long a killed program's pipes may stay open (held by a
// child it started) before they are closed on it.
const waitDelay = 2 * time.Second

// Complete runs the program once. It is killed when ctx ends or the
// timeout passes.
func (c *Command) Complete(ctx context.Context, r Request) (Reply, error) {
	if len(c.argv) == 0 {
		return Reply{}, errors.New("command: no program configured")
	}
	reply := Reply{Model: c.model}
	out, err := runProgram(ctx, program{argv: c.argv, stdin: commandPrompt(r), timeout: c.timeout})
	if err != nil {
		return reply, fmt.Errorf("command %w", err)
	}
	obj, err := extractJSON(out)
	if err != nil {
		return reply, &SchemaError{Provider: c.Name(), Schema: r.schemaName(), Problem: err.Error()}
	}
	reply.JSON = obj
	return reply, nil
}

// program is one run of a program that answers on its stdout.
type program struct {
	argv    []string
	stdin   string
	timeout time.Duration // 0 leaves it to ctx
	dir     string        // the working directory; "" is ctx0's
	env     []string      // added to ctx0's environment
}

// runProgram runs p without a shell and returns its stdout. It is killed
// when ctx ends or its timeout passes. An error starts with the program's
// name and, when it failed, ends with the tail of its stderr.
func runProgram(ctx context.Context, p program) ([]byte, error) {
	prog := filepath.Base(p.argv[0])
	runCtx := ctx
	if p.timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, p.timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(runCtx, p.argv[0], p.argv[1:]...)
	cmd.Stdin = strings.NewReader(p.stdin)
	cmd.Dir = p.dir
	if len(p.env) > 0 {
		cmd.Env = append(os.Environ(), p.env...)
	}
	stdout, stderr := &capped{max: maxBody}, &capped{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = waitDelay
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s: %w", prog, ctx.Err())
	case runCtx.Err() != nil:
		return nil, fmt.Errorf("%s: no reply within %s: %w", prog, p.timeout, runCtx.Err())
	case err != nil:
		// What the program printed may say why (a CLI reports its errors
		// as JSON on stdout): the caller gets it with the error.
		return stdout.buf.Bytes(), &programError{prog: prog, err: err, stderr: stderr.tail(500)}
	}
	return stdout.buf.Bytes(), nil
}

// programError is a program that ran and failed.
type programError struct {
	prog   string
	err    error
	stderr string // its tail, on one line
}

func (e *programError) Error() string {
	if e.stderr != "" {
		return fmt.Sprintf("%s: %v: %s", e.prog, e.err, e.stderr)
	}
	return fmt.Sprintf("%s: %v", e.prog, e.err)
}

func (e *programError) Unwrap() error { return e.err }

// commandPrompt is the whole request as one text: a program has no
// separate system prompt or response format.
func commandPrompt(r Request) string {
	var b strings.Builder
	if r.System != "" {
		b.WriteString(r.System)
		b.WriteString("\n\n")
	}
	b.WriteString(r.Prompt)
	fmt.Fprintf(&b, "\n\nAnswer with only a JSON object, and no other text, matching this JSON Schema (named %s):\n%s\n", r.schemaName(), r.schema())
	return b.String()
}

// capped keeps the first max bytes written to it and drops the rest,
// without failing the writer (a program blocked on a full pipe would hang).
type capped struct {
	buf bytes.Buffer
	max int
}

func (w *capped) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// tail is the end of what was written, on one line, at most n bytes.
func (w *capped) tail(n int) string {
	s := strings.Join(strings.Fields(w.buf.String()), " ")
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return "…" + s[i:]
}
