package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/integration"
	"github.com/ctx0/ctx0/integration/claudecode"
	"github.com/ctx0/ctx0/integration/codex"
	"github.com/ctx0/ctx0/integration/cursor"
	"github.com/ctx0/ctx0/integration/gemini"
	"github.com/ctx0/ctx0/mcp"
	"github.com/ctx0/ctx0/sessions"
)

// installHint says how to put ctx0 on the PATH from a checkout: go install
// puts it in $(go env GOPATH)/bin, which is often not on the PATH.
const installHint = "go install ./cmd/ctx0 in ctx0's checkout, and add $(go env GOPATH)/bin to your PATH"

// warnNotOnPath warns, when no ctx0 is on the PATH, that what an agent
// would run, which consequence says, will fail until one is.
func (a *app) warnNotOnPath(consequence string) {
	if _, err := exec.LookPath("ctx0"); err != nil {
		a.note("ctx0: warning: ctx0 is not on your PATH; %s until it is (%s)", consequence, installHint)
	}
}

func (a *app) newMCPCmd() *cobra.Command {
	var (
		addr        string
		ho          mcp.HTTPOptions
		sessionDirs []string
	)
	cmd := &cobra.Command{
		Use:   "mcp [--http 127.0.0.1:PORT]",
		Short: "Serve the vault to agents over the Model Context Protocol",
		Long: `Serve the vault as an MCP server, so that any agent that speaks MCP gets a
long-term memory: the tools remember, search, retrieve, context, show, query
and archive_now; the memory tool (view, create, str_replace, insert, delete,
rename under /memories, the commands Anthropic's models are trained on),
working on the vault's files; and every entry as the resource
ctx0://entry/NAME. Every write is one git commit; the index follows the files
while the server runs.

It speaks over stdin and stdout, the way agents start their servers; --http
serves streamable HTTP instead, on this machine only (127.0.0.1 or ::1).

Over HTTP, a request from a web page (one with an Origin header) is refused
with 403 unless the page comes from this machine (localhost, 127.0.0.1,
[::1]) or --allow-origin names it, so a site open in a browser cannot use the
vault. With CTX0_MCP_TOKEN set, every request must carry it as
"Authorization: Bearer TOKEN" (401 otherwise). --allow-remote listens beyond
this machine, and requires CTX0_MCP_TOKEN: whoever reaches the server reads
and writes the vault. It keeps at most --max-sessions client sessions (64), a
new one closing the one idle longest, and closes a session idle for 10
minutes; a client whose session was closed starts a new one.

archive_now reads a session's transcript only from the agents' own session
folders ($CLAUDE_CONFIG_DIR/projects, $CODEX_HOME/sessions, Gemini CLI's tmp,
~/.cursor/projects) and the folders named by --session-dir; a transcript_path
elsewhere, or a link that leads out of them, is refused.

  ctx0 mcp install claude-code     register it in Claude Code (and print the
                                   lines for Cursor, Codex CLI, Gemini CLI)
  ctx0 mcp install cursor|gemini|codex
                                   register it in that agent's own config
  ctx0 mcp uninstall AGENT         remove exactly that`,
		Example: `  ctx0 mcp
  ctx0 mcp --http 127.0.0.1:8765
  CTX0_MCP_TOKEN=$(openssl rand -hex 32) ctx0 mcp --http 0.0.0.0:8765 --allow-remote
  ctx0 mcp install claude-code`,
		Args: args(0, "no arguments (see install and uninstall)"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ho.Token = a.getenv(mcp.TokenEnv)
			if ho.MaxSessions < 1 {
				return usagef("mcp: --max-sessions %d: want 1 or more", ho.MaxSessions)
			}
			if addr != "" {
				if err := mcp.CheckAddr(addr, ho); err != nil {
					return usageError{err}
				}
			}
			for i, d := range sessionDirs {
				abs, err := filepath.Abs(d)
				if fi, serr := os.Stat(abs); err != nil || serr != nil || !fi.IsDir() {
					return fmt.Errorf("mcp: --session-dir %s: not a folder", d)
				}
				sessionDirs[i] = abs
			}
			return a.serveMCP(cmd.Context(), addr, ho, sessionDirs)
		},
	}
	cmd.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on this address (127.0.0.1:PORT) instead of stdio")
	cmd.Flags().BoolVar(&ho.AllowRemote, "allow-remote", false, "let --http listen beyond this machine (requires CTX0_MCP_TOKEN)")
	cmd.Flags().StringSliceVar(&ho.Origins, "allow-origin", nil, "a web page origin (https://app.example:8443) allowed to call --http, besides this machine's")
	cmd.Flags().IntVar(&ho.MaxSessions, "max-sessions", mcp.DefaultMaxSessions, "with --http, the client sessions kept at once; a new one closes the one idle longest")
	cmd.Flags().StringSliceVar(&sessionDirs, "session-dir", nil, "a folder of session transcripts archive_now may read, besides the agents' own")
	cmd.AddCommand(a.newMCPInstallCmd("install"), a.newMCPInstallCmd("uninstall"))
	return cmd
}

// serveMCP runs the server until the client leaves or ctx ends, with the
// index's watcher keeping the index fresh meanwhile.
func (a *app) serveMCP(ctx context.Context, addr string, ho mcp.HTTPOptions, sessionDirs []string) error {
	a.ownWatcher = true // it watches, below
	s, m, err := a.mcpServer(ctx, sessionDirs)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		// Only one watcher runs per vault; without this one, reads check
		// the files themselves.
		if err := m.Index.Watch(ctx, nil); err != nil && ctx.Err() == nil {
			a.note("ctx0: mcp: %v; reads check the files instead", err)
		}
	}()
	defer func() { cancel(); <-watched }()
	root := m.Vault.Root()
	if addr == "" {
		err := s.Run(ctx, &sdk.StdioTransport{})
		if errors.Is(err, context.Canceled) || errors.Is(err, sdk.ErrConnectionClosed) {
			return nil
		}
		return err
	}
	return s.ListenAndServe(ctx, addr, ho, func(url string) {
		a.note("ctx0: serving %s over MCP (streamable HTTP) at %s", root, url)
	})
}

// mcpServer is the MCP server of this invocation's vault: it reads the
// container's Memory, as the CLI's commands do, with the extractor's
// budgets from the same config; archive_now reads the agents' session
// folders and sessionDirs.
func (a *app) mcpServer(ctx context.Context, sessionDirs []string) (*mcp.Server, extractor.Memory, error) {
	m, cfg, err := a.services.Memory(ctx)
	if err != nil {
		return nil, m, err
	}
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	return mcp.New(mcp.Options{
		Memory: m, Budgets: cfg.Extractor, Project: currentProject(), Version: version(),
		Archive: &mcp.Sessions{
			Dirs: append(sessions.DefaultDirs(home, a.getenv), sessionDirs...), CWD: cwd, Started: a.now(),
			Open: a.services.OpenStore,
		},
	}), m, nil
}

// newMCPInstallCmd is mcp install or mcp uninstall.
func (a *app) newMCPInstallCmd(verb string) *cobra.Command {
	var flags scopeFlags
	short := "Register ctx0's MCP server in Claude Code, and print it for other agents"
	long := `Register ctx0's MCP server as "ctx0" in Claude Code's configuration, keeping
every other server and setting as written; installing again changes nothing,
or updates ctx0's entry in place. Then print the lines that register it in
Cursor, Codex CLI and Gemini CLI.

ctx0 mcp install cursor, gemini or codex registers it in that agent's own
file instead: ~/.cursor/mcp.json, ~/.gemini/settings.json
($GEMINI_CLI_HOME/.gemini), or the [mcp_servers.ctx0] table of
$CODEX_HOME/config.toml (default ~/.codex), keeping every other byte; with
--project, the project's .cursor/mcp.json, .gemini/settings.json or
.codex/config.toml.

--user (the default) edits ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json if
set): the server serves this vault in every project. --local edits the same
file, under the git repository (or folder) you are in: the server serves this
vault to you in that project alone (Claude Code's own default scope, keyed by
the folder you start claude in: start it at the repository's root). --project
edits .mcp.json at the root of the repository, shared with the project's other
users: there the server serves whatever vault ctx0 finds ($CTX0_VAULT, else
~/.ctx0/vault). Claude Code runs "ctx0", which must be on its PATH.

A config file kept as a symbolic link (into a dotfiles repository, say) is
written through the link, as ctx0 hooks install does: the link stays.`
	if verb == "uninstall" {
		short = "Remove ctx0's MCP server from Claude Code's configuration"
		long = `Remove from Claude Code's configuration exactly what ctx0 mcp install added:
the "ctx0" server (never one that ctx0 did not register), and mcpServers if it
is left empty. --user (the default), --local and --project as for install.`
	}
	cmd := &cobra.Command{
		Use:     verb + " claude-code|cursor|gemini|codex [--user | --local | --project]",
		Short:   short,
		Long:    long,
		Example: fmt.Sprintf("  ctx0 mcp %[1]s claude-code\n  ctx0 mcp %[1]s claude-code --project --json\n  ctx0 mcp %[1]s codex", verb),
		Args:    args(1, "the agent: claude-code, cursor, gemini or codex"),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := a.runMCPInstall(cmd.Context(), verb, args[0], flags)
			if err != nil {
				return err
			}
			return a.out().result(e.Change, func() error { return a.printMCPEdit(e) })
		},
	}
	flags.add(cmd, scopeHelp{
		user:    "edit your user configuration, for every project (the default)",
		project: "edit the project's shared .mcp.json",
		local:   "edit your configuration for this project alone",
	})
	a.jsonFlag(cmd, "print what changed as JSON")
	return cmd
}

// mcpEdit is what mcp install or uninstall changed, and what its text
// says it with.
type mcpEdit struct {
	mcp.Change
	verb  string
	where string // the file edited, for people
	title string // the agent's name, for people
	// snippets, after installing in Claude Code, are the lines that
	// register the server in other agents.
	snippets string
}

// runMCPInstall registers ctx0's MCP server in agent's configuration, or
// with verb "uninstall" removes it, in the file the scope flags name.
func (a *app) runMCPInstall(ctx context.Context, verb, agent string, flags scopeFlags) (mcpEdit, error) {
	switch agent {
	case claudecode.Name, cursor.Name, gemini.Name, codex.Name:
	default:
		return mcpEdit{}, usagef("mcp %s: agent %q: ctx0 registers itself in claude-code, cursor, gemini and codex", verb, agent)
	}
	scope, err := flags.scope("mcp "+verb, agent)
	if err != nil {
		return mcpEdit{}, err
	}
	if agent != claudecode.Name {
		return a.mcpAgentInstall(ctx, verb, agent, scope == integration.Project)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return mcpEdit{}, fmt.Errorf("find Claude Code's configuration: %w", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return mcpEdit{}, err
	}
	config := mcp.ClaudeCodeConfig(scope, home, projectRoot(cwd), a.getenv)
	e := mcpEdit{verb: verb, where: config.Path, title: claudecode.Title}
	if scope == mcp.Local {
		e.where += " for " + projectRoot(cwd)
	}
	if verb == "uninstall" {
		e.Change, err = mcp.Uninstall(config)
		return e, err
	}
	entry, err := a.mcpEntry(ctx, "stdio", scope != mcp.Project)
	if err != nil {
		return mcpEdit{}, err
	}
	a.warnNotOnPath("Claude Code will not start the server")
	e.Change, err = mcp.Install(config, entry)
	e.snippets = mcp.Snippets(entry)
	return e, err
}

// mcpAgentInstall is mcp install or uninstall for Cursor, Gemini CLI or
// Codex CLI, in the agent's own config file.
func (a *app) mcpAgentInstall(ctx context.Context, verb, agent string, project bool) (mcpEdit, error) {
	title := map[string]string{cursor.Name: cursor.Title, gemini.Name: gemini.Title, codex.Name: codex.Title}[agent]
	home, err := os.UserHomeDir()
	if err != nil {
		return mcpEdit{}, fmt.Errorf("find %s's configuration: %w", title, err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return mcpEdit{}, err
	}
	config, err := mcp.AgentConfig(agent, project, home, projectRoot(cwd), a.getenv)
	if err != nil {
		return mcpEdit{}, err
	}
	e := mcpEdit{verb: verb, where: config.Path, title: title}
	if verb == "uninstall" {
		if agent == codex.Name {
			e.Change, err = mcp.UninstallCodex(config.Path)
		} else {
			e.Change, err = mcp.Uninstall(config)
		}
		return e, err
	}
	entry, err := a.mcpEntry(ctx, "", !project)
	if err != nil {
		return mcpEdit{}, err
	}
	a.warnNotOnPath(title + " will not start the server")
	if agent == codex.Name {
		e.Change, err = mcp.InstallCodex(config.Path, entry)
	} else {
		e.Change, err = mcp.Install(config, entry)
	}
	return e, err
}

// printMCPEdit tells a person what mcp install or uninstall changed, on
// stderr, and after installing in Claude Code prints the lines for other
// agents on stdout.
func (a *app) printMCPEdit(e mcpEdit) error {
	registered := map[string]string{"added": "Registered", "updated": "Updated"}[e.Action]
	switch {
	case e.verb == "uninstall" && e.Action == "removed":
		a.note("Removed the ctx0 MCP server from %s.", e.where)
		return nil
	case e.verb == "uninstall":
		a.note("No ctx0 MCP server in %s.", e.where)
		return nil
	case e.Action == "unchanged":
		a.note("The ctx0 MCP server is already in %s.", e.where)
	case e.snippets != "":
		a.note("%s the ctx0 MCP server in %s; Claude Code starts it in its next session (check with /mcp).", registered, e.where)
	default:
		a.note("%s the ctx0 MCP server in %s; %s starts it in its next session.", registered, e.where, e.title)
	}
	if e.snippets == "" {
		return nil
	}
	_, err := fmt.Fprintf(a.stdout, "For other agents:\n\n%s", e.snippets)
	return err
}

// mcpEntry is how an agent starts ctx0's server: ctx0 mcp, with this
// vault's root when withVault (a user's configuration, not a project's
// shared one).
func (a *app) mcpEntry(ctx context.Context, typ string, withVault bool) (mcp.ServerEntry, error) {
	entry := mcp.ServerEntry{Type: typ, Command: "ctx0", Args: []string{"mcp"}}
	if !withVault {
		return entry, nil
	}
	v, err := a.services.Vault(ctx)
	if err != nil {
		return entry, err
	}
	root, err := filepath.Abs(v.Root())
	if err != nil {
		return entry, err
	}
	entry.Args = append(entry.Args, "--vault", root)
	return entry, nil
}
