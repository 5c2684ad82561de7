package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/vault"
)

// Exit codes, the same for every command.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// app is what every command shares: the streams, the environment, the clock
// and the --vault flag.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	now            func() time.Time
	noAutoPush     bool // the command syncs itself: no background push after its commits
	// ownWatcher: the command runs the vault's watcher itself (index
	// --watch, daemon, mcp, ui), so its reads start none (autowatch.go).
	ownWatcher bool
	// watcherFor is the vault for which this command starts a watcher,
	// for the next commands, when it is done (see startWanted).
	watcherFor string
	// anyConfig: the command works whatever the vault's config says
	// (sync, doctor, status, trust), so that a broken config pulled from
	// a remote can always be repaired; it warns and uses the defaults.
	anyConfig bool
	// quietTrust: the command reports the settings waiting for approval
	// itself (status, trust), rather than in a warning.
	quietTrust bool
	// said are the warnings about the config said so far (see sayConfig).
	said     map[string]bool
	vaultDir string
	json     bool // --json: print results, and errors, as JSON
	// services are the vault's, opened as the command asks for them.
	services *container
}

// usageError is a mistake in how a command was called: exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// run executes one command line and returns the exit code. Ctrl-C or
// SIGTERM cancels the command's context, so long work stops cleanly.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := stopOnSignal(stderr)
	defer stop()
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, now: time.Now}
	a.services = &container{a: a}
	// The daemon puts new services in place when its settings change.
	defer func() { a.services.close() }()
	// After the command's output and error: see startWanted.
	defer a.startWanted()
	if s := a.getenv("CTX0_NOW"); s != "" {
		// A fixed clock, for reproducible runs such as tests and demos.
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			fmt.Fprintf(stderr, "ctx0: CTX0_NOW=%q: want an RFC 3339 time such as 2026-01-28T10:00:00Z\n", s)
			return exitUsage
		}
		a.now = func() time.Time { return t }
	}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	c, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	if unknownCommand(root, args) {
		err = usageError{err}
	}
	code := exitFailure
	// The one usage-error path: a usage error of the command line, or a
	// request the vault refuses as given (empty text, unknown type), exits 2
	// whichever command made it.
	var ue usageError
	if errors.As(err, &ue) || vault.IsBadRequest(err) {
		code = exitUsage
	}
	// The one place an error is printed, so the one place that says "ctx0:";
	// errors name commands without it (cmdName), and a message that has it
	// anyway is not prefixed twice. A command asked for JSON gets its error
	// as JSON too, so a program reading it parses one format.
	msg := "ctx0: " + strings.TrimPrefix(err.Error(), "ctx0: ")
	printError(stderr, msg, code, c != nil && wantsJSON(c, args))
	return code
}

// unknownCommand reports whether args name no command. cobra reports that
// as a plain error, so it is told by where args lead instead: Find fails
// only when words are left over at the root, which runs nothing itself,
// and none of them names a subcommand. It is asked after Execute, which
// adds the help and completion commands first.
func unknownCommand(root *cobra.Command, args []string) bool {
	c, _, err := root.Find(args)
	return err != nil && c == root
}

// stopGrace is how long a command may take to stop once asked to: work
// blocked where it cannot see its context (a read that never returns) must
// not keep the process alive.
const stopGrace = 3 * time.Second

// stopOnSignal returns a context that the first Ctrl-C or SIGTERM cancels.
// The process then exits after stopGrace, or at once on a second signal,
// whatever the command is doing: a process asked to stop never lingers.
func stopOnSignal(stderr io.Writer) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		var sig os.Signal
		select {
		case sig = <-sigs:
		case <-ctx.Done():
			return
		}
		cancel()
		select {
		case <-sigs:
		case <-time.After(stopGrace):
		}
		fmt.Fprintf(stderr, "ctx0: stopped by %v\n", sig)
		os.Exit(exitFailure)
	}()
	return ctx, func() { signal.Stop(sigs); cancel() }
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "ctx0",
		Short: "A long-term memory for AI agents: markdown entries in a git vault",
		Long: `ctx0 keeps an AI agent's long-term memory as a vault: a folder of markdown
files with YAML frontmatter, versioned in git, that agents read with plain file
tools and people browse in an editor such as Obsidian.

The vault is --vault DIR, else $CTX0_VAULT, else the nearest folder upwards
holding .ctx0/, else ~/.ctx0/vault.

Commands that print data take --json. Exit codes: 0 success, 1 failure,
2 bad usage. An error is one line on stderr, "ctx0: ..."; with --json it is
a JSON object instead: {"error":"ctx0: ...","code":2}.`,
		Example: `  ctx0 init ~/notes
  ctx0 remember "Sarah prefers email over calls" --tags contact
  ctx0 add contacts/sarah-chen --type contact --alias Sarah --body "Partner at Example Ventures."
  ctx0 show sarah`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetVersionTemplate(versionText())
	root.PersistentFlags().StringVar(&a.vaultDir, "vault", "", "the vault folder")
	root.PersistentFlags().Var(nowFlag{a}, "now", "the time to take for now, for tests and replays: a date (2023-05-08) or an RFC 3339 time; \"last week\" in a question is the week before it (default: the clock, or $CTX0_NOW)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if n := cmdName(c); n != "" {
			err = fmt.Errorf("%s: %w", n, err)
		}
		return usageError{fmt.Errorf("%w (see %s --help)", err, c.CommandPath())}
	})
	root.AddCommand(
		a.newInitCmd(),
		a.newQuickstartCmd(),
		a.newAddCmd(),
		a.newRememberCmd(),
		a.newWriteCmd(),
		a.newSetCmd(),
		a.newAliasCmd(),
		a.newRenameCmd(),
		a.newRmCmd(),
		a.newSupersedeCmd(),
		a.newShowCmd(),
		a.newListCmd(),
		a.newHistoryCmd(),
		a.newLogCmd(),
		a.newSyncCmd(),
		a.newRemoteCmd(),
		a.newCloneCmd(),
		a.newConflictsCmd(),
		a.newMergeDriverCmd(),
		a.newIndexCmd(),
		a.newSearchCmd(),
		a.newLinksCmd(),
		a.newBacklinksCmd(),
		a.newStatusCmd(),
		a.newDoctorCmd(),
		a.newTrustCmd(),
		a.newExportCmd(),
		a.newImportCmd(),
		a.newRetrieveCmd(),
		a.newContextCmd(),
		a.newQueryCmd(),
		a.newIngestCmd(),
		a.newConversationsCmd(),
		a.newConversationCmd(),
		a.newHookCmd(),
		a.newHooksCmd(),
		a.newDumpCmd(),
		a.newMCPCmd(),
		a.newRunsCmd(),
		a.newUndoCmd(),
		a.newUICmd(),
		a.newLibrarianCmd(),
		a.newCuratorCmd(),
		a.newDaemonCmd(),
		a.newVersionCmd(),
	)
	return root
}

// args checks the positional arguments as a usage error, naming the command.
func args(n int, names string) cobra.PositionalArgs {
	return func(c *cobra.Command, got []string) error {
		if len(got) != n {
			return usagef("%s takes %s (see %s --help)", cmdName(c), names, c.CommandPath())
		}
		return nil
	}
}

// cmdName is how an error names command c: its path without "ctx0", which
// run prints before every error; "" for ctx0 itself.
func cmdName(c *cobra.Command) string {
	if !c.HasParent() {
		return ""
	}
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}

// dir is the vault folder this invocation uses.
func (a *app) dir() string {
	cwd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	return vault.Locate(a.vaultDir, a.getenv("CTX0_VAULT"), cwd, home)
}

// open opens the vault this invocation uses, with its index as the
// vault's catalog.
func (a *app) open(ctx context.Context) (*vault.Vault, error) {
	v, err := a.services.Vault(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := a.services.Index(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		// The index is derived: a command that needs only the files goes
		// on without it, reading them instead.
		a.note("ctx0: %v; going on without the index", err)
	}
	return v, nil
}

// readBody reads an entry body from stdin.
func (a *app) readBody() (string, error) {
	data, err := io.ReadAll(a.stdin)
	if err != nil {
		return "", fmt.Errorf("read stdin: %w", err)
	}
	return string(data), nil
}

// splitList reads a comma-separated flag value.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// note prints a message for people on stderr.
func (a *app) note(format string, args ...any) {
	fmt.Fprintf(a.stderr, format+"\n", args...)
}

// nowFlag is --now: it sets the app's clock as it is parsed, so that every
// command reads the same fixed time, as with $CTX0_NOW.
type nowFlag struct{ a *app }

func (f nowFlag) String() string { return "" }

func (f nowFlag) Type() string { return "time" }

func (f nowFlag) Set(s string) error {
	t, err := vault.ParseTime(s)
	if err != nil {
		return err
	}
	f.a.now = func() time.Time { return t }
	return nil
}
