package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/ctx0/ctx0/integration"
	"github.com/ctx0/ctx0/librarian/hooks"
)

// agentHooks is where ctx0's hooks are installed for one agent, in one
// of its hook files: the events they run at, those of the agent's events
// they miss, and those ctx0 no longer uses (an install by an older ctx0,
// or one edited by hand).
type agentHooks struct {
	Agent   string            `json:"agent"`
	Scope   integration.Scope `json:"scope"`
	File    string            `json:"file"`
	Events  []string          `json:"events"`
	Missing []string          `json:"missing,omitempty"`
	Retired []string          `json:"retired,omitempty"`
	Error   string            `json:"error,omitempty"`
}

// installedHooks finds ctx0's hooks in each agent's hook files, the
// person's and the current project's. A file that cannot be read is
// reported, not fatal: status must still show the rest.
func (a *app) installedHooks() []agentHooks {
	var found []agentHooks
	for _, agent := range hooks.Agents {
		seen := map[string]bool{}
		for _, scope := range []integration.Scope{integration.User, integration.Project, integration.Local} {
			if scope == integration.Local && agent.Name != hooks.ClaudeCodeAgent.Name {
				continue
			}
			path, err := a.hookSettingsPath(agent, scope)
			if err != nil || seen[path] {
				continue
			}
			seen[path] = true
			if _, err := os.Stat(path); err != nil {
				continue
			}
			h := agentHooks{Agent: agent.Name, Scope: scope, File: path}
			installed, err := agent.Installed(path)
			if err != nil {
				h.Error = err.Error()
				found = append(found, h)
				continue
			}
			if len(installed) == 0 {
				continue
			}
			for _, e := range installed {
				if slices.Contains(agent.Retired, e) {
					h.Retired = append(h.Retired, e)
				} else {
					h.Events = append(h.Events, e)
				}
			}
			for _, e := range agent.Events {
				if !slices.Contains(installed, e) {
					h.Missing = append(h.Missing, e)
				}
			}
			found = append(found, h)
		}
	}
	return found
}

// printHooks says, one line per hook file, for which events ctx0's hooks
// run and how to add those missing.
func printHooks(w io.Writer, found []agentHooks) {
	if len(found) == 0 {
		fmt.Fprintf(w, "hooks\tnone (ctx0 hooks install AGENT hands an agent's sessions to ctx0)\n")
		return
	}
	for _, h := range found {
		if h.Error != "" {
			fmt.Fprintf(w, "hooks\t%s\tunreadable: %s\n", h.Agent, h.Error)
			continue
		}
		var wrong []string
		if len(h.Missing) > 0 {
			wrong = append(wrong, "not at "+strings.Join(h.Missing, " "))
		}
		if len(h.Retired) > 0 {
			wrong = append(wrong, "also at "+strings.Join(h.Retired, " ")+", which ctx0 no longer uses")
		}
		if len(wrong) == 0 {
			fmt.Fprintf(w, "hooks\t%s\t%s in %s\n", h.Agent, strings.Join(h.Events, " "), h.File)
			continue
		}
		flag := ""
		if h.Scope != integration.User {
			flag = " --" + string(h.Scope)
		}
		fmt.Fprintf(w, "hooks\t%s\t%s in %s; %s: run ctx0 hooks install %s%s\n",
			h.Agent, strings.Join(h.Events, " "), h.File, strings.Join(wrong, "; "), h.Agent, flag)
	}
}
