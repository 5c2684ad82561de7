package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/integration"
	"github.com/ctx0/ctx0/integration/claudecode"
	"github.com/ctx0/ctx0/integration/codex"
	"github.com/ctx0/ctx0/integration/cursor"
	"github.com/ctx0/ctx0/integration/gemini"
	"github.com/ctx0/ctx0/librarian/hooks"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
)

// maxHookInput bounds what a hook reads from stdin: an agent's hook input
// is a small JSON object.
const maxHookInput = 1 << 20

func (a *app) newHookCmd() *cobra.Command {
	var (
		deadline   time.Duration
		background bool
	)
	cmd := &cobra.Command{
		Use:   "hook claude-code|codex|gemini|cursor",
		Short: "Handle an agent's hook event (run by the agent)",
		Long: `Handle the hook event an agent passes as JSON on stdin (see ctx0 hooks
install). Before a compaction (Claude Code and Codex: PreCompact; Cursor:
preCompact) and at the end of a session (SessionEnd), the session's
transcript is ingested and its conversations are finished and queued for the
librarian; after each turn (Stop; Gemini CLI: AfterAgent), what the turn
added is ingested and conversations silent for the gap are queued. At
SessionStart it prints the context block of the session's folder (see ctx0
context) in the form the agent adds to the session: plain text for Claude
Code, hookSpecificOutput.additionalContext JSON for Codex and Gemini CLI,
additional_context JSON for Cursor (whose sessionStart, preCompact, stop and
sessionEnd events it handles alike). Gemini CLI's PreCompress, which comes
before every model request whether or not it compresses, does nothing. In a
session that ctx0 itself started to ask a model ($CTX0_CHILD is set), it does
nothing.

The hook never breaks the session: it exits 0 whatever happens, writes what
it did and any error to .ctx0/state/hooks.log in the vault, and returns within
--deadline, leaving what is left to a background process.`,
		Example: `  echo '{"session_id":"5b53…","transcript_path":"/home/sam/.claude/projects/-home-sam-app/5b53….jsonl","cwd":"/home/sam/app","hook_event_name":"SessionEnd","reason":"other"}' | ctx0 hook claude-code`,
		// A hook must not fail on how it was called: the agents read
		// exit code 2 as "block", so every problem is logged instead.
		Args:               cobra.ArbitraryArgs,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			input, err := io.ReadAll(io.LimitReader(a.stdin, maxHookInput))
			if err != nil {
				a.note("ctx0 hook: read stdin: %v", err)
				return nil
			}
			v, err := a.services.Vault(cmd.Context())
			if err != nil {
				a.note("ctx0 hook: %v", err)
				return nil
			}
			root := v.Root()
			stateDir := filepath.Join(root, filepath.FromSlash(sessions.StateDir))
			if err := os.MkdirAll(stateDir, 0o755); err != nil {
				a.note("ctx0 hook: %v", err)
				return nil
			}
			log := hooks.OpenLog(stateDir, a.now)
			if w := v.Trust().Warning(); w != "" {
				log.Printf("hook %v: %s", args, w)
			}
			if llm.IsChild(a.getenv) {
				// The session is the one ctx0 itself started to file
				// another: filing it would file ctx0's own prompt, and
				// start another run whose session would be filed too.
				log.Printf("hook %v: skipped: the session is ctx0's own model run ($%s is set)", args, llm.ChildEnv)
				return nil
			}
			var agent hooks.Agent
			if len(args) == 1 {
				agent, _ = hooks.AgentNamed(args[0])
			}
			if agent.Name == "" {
				log.Printf("hook %v: want ctx0 hook AGENT, one of %v", args, hooks.AgentNames())
				return nil
			}
			o := hooks.Options{
				Deadline: deadline,
				Store:    a.services.OpenStore,
				Context:  a.sessionContext,
				Log:      log,
			}
			if sync := v.Config().Sync; sync.Auto {
				o.Pull = func(ctx context.Context) (string, error) { return a.sessionPull(ctx, root) }
				o.PullBudget = sync.StartBudget
			}
			cfg, err := a.services.IngestConfig(cmd.Context())
			if err != nil {
				log.Printf("hook: %v", err)
				cfg = sessions.DefaultConfig()
			}
			if exe, err := os.Executable(); err == nil {
				spawn := hooks.Background(exe, root, stateDir)
				if !background {
					o.Spawn = spawn
				}
				// Without its index, the context block would wait for a
				// build the hook's deadline cuts short, every time: the
				// build runs in its own process instead, started once.
				o.Context = func(ctx context.Context, cwd string) (string, error) {
					present, err := index.EnsureBuilding(root, func() error { return spawn([]string{"index"}, nil) })
					if err != nil {
						return "", err
					}
					if !present {
						return "", errors.New("the index is missing; it is being built in the background, and the next session gets the context block")
					}
					return a.sessionContext(ctx, cwd)
				}
				if cfg.FileAfterSession {
					o.File = func() error { return spawn([]string{"librarian", "run", "--all", "--queued", "--curate"}, nil) }
				}
			}
			if _, err := io.WriteString(a.stdout, hooks.Handle(cmd.Context(), agent, input, o)); err != nil {
				log.Printf("hook: print for %s: %v", agent.Title, err)
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&deadline, "deadline", hooks.DefaultDeadline, "how long to work before leaving the rest to a background process")
	cmd.Flags().BoolVar(&background, "background", false, "run to the end however long it takes (how the hook continues in the background)")
	cmd.Flags().MarkHidden("background")
	return cmd
}

// ownModelRun reports, and says on stderr, that this process runs inside
// a session that ctx0 itself started to ask a model ($CTX0_CHILD is set):
// hooks and ingestion leave such a session alone, so that filing a session
// never files ctx0's own prompt nor starts another run.
func (a *app) ownModelRun(command string) bool {
	if !llm.IsChild(a.getenv) {
		return false
	}
	a.note("ctx0 %s: skipped: this is ctx0's own model run ($%s is set)", command, llm.ChildEnv)
	return true
}

// sessionContext is the context block (see ctx0 context) of a session that
// runs in cwd.
func (a *app) sessionContext(ctx context.Context, cwd string) (string, error) {
	m, cfg, err := a.openMemory(ctx)
	if err != nil {
		return "", err
	}
	b, err := extractor.Context(ctx, m, extractor.ContextOptions{Project: sessions.ProjectOf(cwd), Budget: cfg.Extractor.ContextBudget})
	return b.Text, err
}

func (a *app) newHooksCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Install or remove ctx0's hooks in an agent's settings",
		Example: `  ctx0 hooks install claude-code
  ctx0 hooks install codex
  ctx0 hooks install gemini
  ctx0 hooks uninstall claude-code --project`,
	}
	cmd.AddCommand(a.newHooksEditCmd("install"), a.newHooksEditCmd("uninstall"))
	return cmd
}

// newHooksEditCmd is hooks install or hooks uninstall.
func (a *app) newHooksEditCmd(verb string) *cobra.Command {
	var flags scopeFlags
	short := "Add ctx0's hooks to an agent's settings"
	long := `Merge ctx0's hook (see ctx0 hook) into an agent's hook settings, so that the
agent starts each session with the vault's context block and hands every
session to this vault. The events it installs for:
` + hookEventsHelp() + `
Every other hook and setting is kept as it is; installing again changes
nothing, or updates ctx0's hooks in place for another vault, and takes
ctx0's hook off events an older ctx0 used and this one does not. The hook
runs "ctx0", which must be on the PATH the agent runs with.`
	if verb == "uninstall" {
		short = "Remove ctx0's hooks from an agent's settings"
		long = `Remove from an agent's hook settings exactly what ctx0 hooks install added
(and what an older ctx0 added): ctx0's hooks, and the groups and events left
empty without them.`
	}
	cmd := &cobra.Command{
		Use:   verb + " claude-code|codex|gemini|cursor [--user | --project | --local]",
		Short: short,
		Long: long + `

--user (the default) edits the agent's own file for every project:
~/.claude/settings.json ($CLAUDE_CONFIG_DIR if set), ~/.codex/hooks.json
($CODEX_HOME if set), ~/.gemini/settings.json ($GEMINI_CLI_HOME/.gemini if
set), ~/.cursor/hooks.json. --project edits the file of the git repository (or
folder) you are in, shared with its other users: .claude/settings.json,
.codex/hooks.json, .gemini/settings.json, .cursor/hooks.json. --local (Claude Code only) edits
.claude/settings.local.json there, for you alone.`,
		Example: fmt.Sprintf(`  ctx0 hooks %[1]s claude-code
  ctx0 hooks %[1]s codex
  ctx0 hooks %[1]s gemini --project --json`, verb),
		Args: args(1, "the agent: claude-code, codex, gemini or cursor"),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.runHooksEdit(cmd.Context(), verb, args[0], flags)
			if e.vault != nil {
				defer a.noteModelCLIs(e.vault)
			}
			if err != nil {
				return err
			}
			return a.out().result(e.Change, func() error { a.printHooksEdit(e); return nil })
		},
	}
	flags.add(cmd, scopeHelp{
		user:    "edit your user settings, for every project (the default)",
		project: "edit the project's shared settings",
		local:   "edit the project's .claude/settings.local.json, for you alone (Claude Code)",
	})
	a.jsonFlag(cmd, "print what changed as JSON")
	return cmd
}

// hookNotes is what a person should know of an agent's hooks beyond
// their events.
var hookNotes = map[string]string{
	hooks.CodexAgent.Name: "Codex runs a new hook once you approve it in /hooks; SessionEnd " +
		"comes from 0.145.0 on; releases before 0.124 need [features] codex_hooks = true",
	hooks.GeminiAgent.Name: "hooks are on by default since hooksConfig.enabled; older releases " +
		"need them enabled in settings",
	hooks.CursorAgent.Name: "Cursor records no times in its transcripts: a message is dated " +
		"when ctx0 reads it, and no tool outcomes",
}

// hookEventsHelp lists, for the help of hooks install, the events ctx0
// installs its hook for in each agent, from the agents' own lists.
func hookEventsHelp() string {
	var b strings.Builder
	for _, agent := range hooks.Agents {
		fmt.Fprintf(&b, "  %-12s %s", agent.Name, strings.Join(agent.Events, ", "))
		if n := hookNotes[agent.Name]; n != "" {
			b.WriteString("\n" + wrapIndent("("+n+")", 15, 78))
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// wrapIndent wraps text in lines of at most width columns, each indented
// by indent spaces.
func wrapIndent(text string, indent, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && indent+len(line)+1+len(w) > width {
			lines = append(lines, strings.Repeat(" ", indent)+line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, strings.Repeat(" ", indent)+line)
	}
	return strings.Join(lines, "\n")
}

// hooksEdit is what hooks install or uninstall changed, and where.
type hooksEdit struct {
	hooks.Change
	verb  string
	agent hooks.Agent
	path  string // the settings file edited
	// vault is the vault the installed hooks serve: after installing,
	// ctx0 says how it could file sessions with a model already at hand.
	vault *vault.Vault
}

// runHooksEdit merges ctx0's hooks into the settings of the agent named
// name, or with verb "uninstall" removes them, in the file the scope flags
// name. Its edit holds the vault, once opened, even when it fails.
func (a *app) runHooksEdit(ctx context.Context, verb, name string, flags scopeFlags) (hooksEdit, error) {
	agent, ok := hooks.AgentNamed(name)
	if !ok {
		return hooksEdit{}, usagef("hooks %s: agent %q: ctx0 has hooks for %s", verb, name, strings.Join(hooks.AgentNames(), ", "))
	}
	scope, err := flags.scope("hooks "+verb, agent.Name)
	if err != nil {
		return hooksEdit{}, err
	}
	e := hooksEdit{verb: verb, agent: agent}
	if e.path, err = a.hookSettingsPath(agent, scope); err != nil {
		return e, err
	}
	if verb != "install" {
		e.Change, err = agent.Uninstall(e.path)
		return e, err
	}
	v, err := a.services.Vault(ctx)
	if err != nil {
		return e, err
	}
	e.vault = v
	a.warnNotOnPath(agent.Title + " will not find the hook")
	e.Change, err = agent.Install(e.path, agent.Command("ctx0", e.vault.Root()))
	return e, err
}

// printHooksEdit tells a person what hooks install or uninstall changed,
// on stderr.
func (a *app) printHooksEdit(e hooksEdit) {
	switch {
	case !e.Changed() && e.verb == "install":
		a.note("ctx0's hooks are already in %s.", e.path)
	case !e.Changed():
		a.note("No ctx0 hooks in %s.", e.path)
	default:
		for _, c := range []struct {
			what   string
			events []string
		}{{"Added", e.Added}, {"Updated", e.Updated}, {"Removed", e.Removed}} {
			if len(c.events) > 0 {
				a.note("%s ctx0's hook for %v in %s.", c.what, c.events, e.path)
			}
		}
		if e.verb == "install" && e.agent.Name == hooks.CodexAgent.Name {
			a.note("Codex runs a new hook once you trust it: open /hooks in Codex.")
		}
	}
}

// hookSettingsPath is the file holding agent's hooks to edit in scope:
// the user's, or the project's (or, Local, Claude Code's local settings).
func (a *app) hookSettingsPath(agent hooks.Agent, scope integration.Scope) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil && scope == integration.User {
		return "", fmt.Errorf("find %s's settings: %w", agent.Title, err)
	}
	var root string
	if scope != integration.User {
		cwd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the project's settings: %w", err)
		}
		root = projectRoot(cwd)
	}
	switch agent.Name {
	case codex.Name:
		return codex.HooksFile(scope, home, root, a.getenv), nil
	case gemini.Name:
		return gemini.SettingsFile(scope, home, root, a.getenv), nil
	case cursor.Name:
		return cursor.HooksFile(scope, home, root), nil
	}
	return claudecode.HooksFile(scope, home, root, a.getenv), nil
}

// projectRoot is the top of the git work tree holding dir, else dir: where
// Claude Code looks for a project's .claude folder.
func projectRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		} else if !errors.Is(err, os.ErrNotExist) || filepath.Dir(d) == d {
			return dir
		}
	}
}
