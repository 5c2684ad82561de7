package main

import (
	"context"
	"slices"

	"github.com/spf13/cobra"

	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/vault"
)

func (a *app) newInitCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create a vault, or add ctx0 to an existing git repository",
		Long: `Create a vault in DIR (default: the vault folder, see ctx0 --help): the git
repository if there is none, .ctx0/config.yaml, .gitignore, .gitattributes,
CONTEXT.md, me.md and the standard folders, in one commit. In an existing git
repository, existing files and history are left as they are.

.ctx0/config.yaml holds the vault's settings, each section read by the part
of ctx0 it names (author, remember, types, sync, llm, extractor, embeddings,
ingest, curator); the file ctx0 init writes shows them. A key no setting
has is an error naming the file, the line and the key
(.ctx0/config.yaml:12: unknown key "indx" in sync), never ignored; so is a
section one letter or two from a known one (curatr). Any other section, and
in a file whose version: is newer than this ctx0's, any setting it does not
know, was written by a newer ctx0: a warning, and ignored.

The settings that run a program or reach out (llm.provider, llm.command,
llm.base_url, llm.api_key_env, llm.model, embeddings.url,
embeddings.api_key_env, sync.auto) are applied only once this machine
approved them: ctx0 init
approves what it writes; after editing them, or pulling someone else's
change to them, run ctx0 trust.`,
		Example: `  ctx0 init ~/notes
  cd my-repo && ctx0 init .`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := a.dir()
			if len(args) == 1 {
				dir = args[0]
			}
			v, c, err := a.runInit(cmd.Context(), dir)
			if err != nil {
				return err
			}
			return a.out().result(map[string]any{"vault": v.Root(), "commit": c}, func() error {
				a.note("Initialized ctx0 vault in %s", v.Root())
				a.noteModelCLIs(v)
				return nil
			})
		},
	}
	a.jsonFlag(cmd, "print the vault and its first commit as JSON")
	return cmd
}

// runInit creates the vault in dir, and its index, and returns the vault
// and its first commit.
func (a *app) runInit(ctx context.Context, dir string) (*vault.Vault, vault.Commit, error) {
	v, c, err := vault.Init(ctx, dir, vault.WithClock(a.now))
	if err != nil {
		return nil, c, err
	}
	return v, c, a.buildIndex(ctx, v)
}

// buildIndex makes the index of a vault that has just come into being (init,
// clone), quietly: its absence is no news there.
func (a *app) buildIndex(ctx context.Context, v *vault.Vault) error {
	ix, err := index.Open(ctx, v, index.WithClock(a.now), index.WithProgress(a.progress("indexing")))
	if err != nil {
		return err
	}
	return ix.Close()
}

// noteModelCLIs says in one line, when vault v files sessions offline
// and an agent CLI is on the PATH, how to have the model the person is
// already signed in to file them instead.
func (a *app) noteModelCLIs(v *vault.Vault) {
	cfg, err := llm.ParseConfig(v.Settings())
	if err != nil || cfg.Provider != "offline" || slices.Contains(v.Trust().Unapproved, "llm.provider") {
		// A provider waiting for ctx0 trust is said by the warning.
		return
	}
	found := llm.CLIsOnPath(nil)
	file := v.Settings().Path()
	switch len(found) {
	case 0:
	case 1:
		a.note("%s is on your PATH: to file sessions with the model you are signed in to (no API key), set llm.provider: %s in %s and run ctx0 trust", llm.CLIName(found[0]), found[0], file)
	default:
		a.note("claude and codex are on your PATH: to file sessions with the model you are signed in to (no API key), set llm.provider: claude-code (or codex) in %s and run ctx0 trust", file)
	}
}
