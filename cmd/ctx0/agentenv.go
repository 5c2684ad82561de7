package main

import (
	"github.com/ctx0/ctx0/integration/claudecode"
	"github.com/ctx0/ctx0/integration/codex"
	"github.com/ctx0/ctx0/integration/cursor"
	"github.com/ctx0/ctx0/integration/gemini"
)

// agentShells are the agents whose shells ctx0 can tell it runs in, by the
// environment variables each sets there.
var agentShells = []struct {
	title string
	env   []string
}{
	{claudecode.Title, claudecode.ShellEnv},
	{codex.Title, codex.ShellEnv},
	{gemini.Title, gemini.ShellEnv},
	{cursor.Title, cursor.ShellEnv},
}

// inAgentShell names the agent whose shell ctx0 runs in, if any: one of
// its variables is set.
func (a *app) inAgentShell() (string, bool) {
	for _, s := range agentShells {
		for _, e := range s.env {
			if a.getenv(e) != "" {
				return s.title, true
			}
		}
	}
	return "", false
}

// writtenBy is the source of what this command writes when it is not
// given one: an agent's, when ctx0 runs in an agent's shell, else the
// person's at the terminal.
func (a *app) writtenBy() string {
	if _, ok := a.inAgentShell(); ok {
		return "agent"
	}
	return "user"
}
