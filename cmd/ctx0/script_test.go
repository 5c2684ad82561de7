package main

import (
	"flag"
	"os"
	"os/exec"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the scripts' expected files (cmp) from the actual output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ctx0": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: ctx0 commands
// against temporary vaults, checked with the real git binary.
func TestScripts(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the scripts check vaults with the git binary, which is not installed")
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"repofile": cmdRepofile, "watcher": cmdWatcher},
		Setup: func(env *testscript.Env) error {
			scriptEnv(env)
			// A watcher ctx0 started by itself outlives the command that
			// started it, by design; not the script.
			env.Defer(func() { stopAutoWatchers(env.WorkDir) })
			env.Setenv("NOW", "2026-01-28T10:00:00Z")
			// The ctx0 that exec runs, for scripts that run it with a PATH
			// where it is not.
			bin, err := exec.LookPath("ctx0")
			if err != nil {
				return err
			}
			env.Setenv("CTX0_BIN", bin)
			return nil
		},
	})
}

// scriptEnv is the world every script runs in: a home of its own, so
// ~/.ctx0/vault and git's global config never touch the developer's, a
// fixed clock, and a fixed git identity.
func scriptEnv(env *testscript.Env) {
	env.Setenv("HOME", env.WorkDir+"/home")
	env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	env.Setenv("CTX0_NOW", "2026-01-28T10:00:00Z")
	env.Setenv("GIT_AUTHOR_NAME", "Test Person")
	env.Setenv("GIT_AUTHOR_EMAIL", "person@example.com")
	env.Setenv("GIT_COMMITTER_NAME", "Test Person")
	env.Setenv("GIT_COMMITTER_EMAIL", "person@example.com")
}
