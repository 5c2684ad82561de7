package main

import (
	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/integration"
	"github.com/ctx0/ctx0/integration/claudecode"
)

// scopeFlags are the flags mcp install and hooks install (and their
// uninstalls) share: whose file to edit.
type scopeFlags struct {
	user, project, local bool
}

// scopeHelp says what each scope edits, in one command's words.
type scopeHelp struct{ user, project, local string }

// add adds the flags to cmd.
func (f *scopeFlags) add(cmd *cobra.Command, h scopeHelp) {
	cmd.Flags().BoolVar(&f.user, "user", false, h.user)
	cmd.Flags().BoolVar(&f.project, "project", false, h.project)
	cmd.Flags().BoolVar(&f.local, "local", false, h.local)
}

// scope checks the flags for agent, named in errors as command (such as
// "hooks install"), and returns the scope they give: one at most, and
// --local for Claude Code alone.
func (f *scopeFlags) scope(command, agent string) (integration.Scope, error) {
	if btoi(f.user)+btoi(f.project)+btoi(f.local) > 1 {
		return "", usagef("%s: --user, --project and --local name different files; give one", command)
	}
	switch {
	case f.local && agent != claudecode.Name:
		return "", usagef("%s %s: --local is Claude Code's; use --project or --user", command, agent)
	case f.local:
		return integration.Local, nil
	case f.project:
		return integration.Project, nil
	}
	return integration.User, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
