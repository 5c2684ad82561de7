package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// tourNotRun names the README tour's commands that a test cannot run as
// written, each with the reason. Every other command of the tour runs, in
// order, in one shell, in a fresh home: so an edit to the README's tour is
// tested, and a command that stops working there fails CI. An entry here that
// no longer matches a tour command fails the test too, so the list cannot
// outlive the README.
var tourNotRun = map[string]string{
	"ctx0 index --watch":             "runs until stopped",
	"ctx0 index --embed":             "needs an embeddings endpoint",
	"ctx0 runs show ID":              "ID stands for a run's id",
	"ctx0 undo ID":                   "ID stands for a run's id",
	"ctx0 mcp --http 127.0.0.1:8765": "runs until stopped",
	"ctx0 remote add origin git@github.com:me/memory.git": "the remote is an example; no network in tests",
	"ctx0 sync":         "needs the remote",
	"ctx0 sync --watch": "needs the remote, and runs until stopped",
	"ctx0 clone git@github.com:me/memory.git ~/memory": "needs the remote",
	"ctx0 conflicts resolve sarah":                     "needs a conflict, which needs a second machine",
	"ctx0 daemon":                                      "runs until stopped",
	"ctx0 daemon install":                              "starts a service of the machine",
	"ctx0 daemon uninstall":                            "stops a service of the machine",
	"ctx0 ui":                                          "runs until stopped",
	"ctx0 ui --no-open --addr 127.0.0.1:7777":          "runs until stopped",
}

// TestReadmeTour runs the shell blocks of README.md's "A short tour", each
// command as written (comments stripped), top to bottom in a fresh vault,
// with a session file in ~/Downloads as the tour's ingest expects.
func TestReadmeTour(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the tour checks its vault with the git binary, which is not installed")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("the tour runs in bash, which is not installed")
	}
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	commands, err := tourCommands(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	seen := map[string]bool{}
	for _, c := range commands {
		if why, ok := tourNotRun[c]; ok {
			seen[c] = true
			fmt.Fprintf(&script, "# not run (%s): %s\n", why, c)
			continue
		}
		fmt.Fprintf(&script, "echo %s >&2\n%s\n", shellQuote("$ "+c), c)
	}
	for c := range tourNotRun {
		if !seen[c] {
			t.Errorf("tourNotRun names %q, which the README's tour no longer has", c)
		}
	}
	session, err := os.ReadFile(filepath.Join(repoRoot, "librarian", "testdata", "billing.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	txtar := "exec bash $WORK/tour.sh\n" +
		"exec git -C $HOME/notes status --porcelain\n! stdout .\n" +
		"exec git -C $HOME/notes fsck --strict\n" +
		"-- tour.sh --\n" + script.String() +
		"-- home/Downloads/session.jsonl --\n" + string(session)
	if err := os.WriteFile(filepath.Join(dir, "tour.txtar"), []byte(txtar), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			scriptEnv(env)
			return nil
		},
	})
}

// tourCommands returns the commands of the sh blocks between the README's
// "## A short tour" and the next second-level heading: continuation lines
// joined, comments and blank lines dropped.
func tourCommands(readme string) ([]string, error) {
	var cmds []string
	in, block := false, false
	pending := ""
	sc := bufio.NewScanner(strings.NewReader(readme))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## A short tour"
			continue
		case !in:
			continue
		case !block && line == "```sh":
			block = true
			continue
		case block && line == "```":
			block = false
			continue
		case !block:
			continue
		}
		code := strings.TrimSpace(stripComment(line))
		if cont, ok := strings.CutSuffix(code, `\`); ok {
			pending += cont
			continue
		}
		code = strings.TrimSpace(pending + code)
		pending = ""
		if code != "" {
			cmds = append(cmds, strings.Join(strings.Fields(code), " "))
		}
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("README.md: no sh blocks under \"## A short tour\"")
	}
	return cmds, nil
}

// stripComment cuts a shell comment off line: a # at the start of a word,
// outside quotes.
func stripComment(line string) string {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i]
		}
	}
	return line
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
