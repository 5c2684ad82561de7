package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/curator"
	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/internal/config"
	"github.com/ctx0/ctx0/internal/lazy"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
)

// container wires the services of the vault one command invocation uses:
// the vault, its index, its config's sections, the language model, the
// embeddings endpoint and the ingest state. Each is opened when a command
// first asks for it and then shared, so a command that files a
// conversation and then curates opens the vault, its index and its model
// once; close releases what it opened, once, when the command ends.
// Commands ask it rather than opening services themselves, so that every
// vault is opened with the same options (vaultOptions: the clock and
// automatic sync) and every index becomes its vault's catalog.
//
// An open that fails is not remembered: the next ask tries again, so a
// command that creates the vault (quickstart) can open it after. Each
// service has its own lock, not the container's: opening the index opens
// the vault.
type container struct {
	a *app

	vault      lazy.Value[*vault.Vault]
	index      lazy.Value[*index.Index]
	llm        lazy.Value[llm.Config]
	model      lazy.Value[llm.Provider]
	extractor  lazy.Value[extractor.Config]
	curator    lazy.Value[curator.Config]
	ingest     lazy.Value[sessions.Config]
	embeddings lazy.Value[index.Embedder]
	store      lazy.Value[*sessions.Store]
	sessions   lazy.Value[*extractor.StoredSessions]
	memory     lazy.Value[extractor.Memory]
}

// Vault is the vault this invocation uses (see app.dir), opened without
// its index: for commands that need neither the index nor the entries'
// catalog, such as a hook, which must not wait for the index.
//
// Opening it reads the vault's config file, once: the vault decodes its
// sections, withholding the settings that run or reach out which this
// machine has not approved (vault.Trust), the container sorts the sections
// no package reads (a typo is an error, another a warning: a newer ctx0's),
// and the other sections are decoded, strictly, when first asked for.
// What is withheld and what is ignored is said once, on stderr.
//
// A config that does not decode fails the command, but for the commands
// that must work to repair it (app.anyConfig: sync, doctor, status,
// trust), which say so and go on with the defaults.
func (c *container) Vault(ctx context.Context) (*vault.Vault, error) {
	return c.vault.Get(func() (*vault.Vault, error) {
		v, err := vault.Open(ctx, c.a.dir(), c.a.vaultOptions()...)
		if err != nil {
			return nil, err
		}
		if err := c.a.sayConfig(v); err != nil {
			return nil, err
		}
		return v, nil
	})
}

// sayConfig says, once per command, on stderr, what of vault v's config
// is ignored (sections a newer ctx0 reads) and what is withheld until
// ctx0 trust; a config that does not decode is an error, or, for the
// commands that work whatever it says (app.anyConfig), one more warning.
func (a *app) sayConfig(v *vault.Vault) error {
	warnings, err := v.Settings().Check(configSections()...)
	if err == nil {
		err = v.ConfigError()
	}
	if err != nil && !a.anyConfig {
		return err
	}
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("%v; going on with the default settings", err))
	}
	if w := v.Trust().Warning(); w != "" && !a.quietTrust {
		warnings = append(warnings, w)
	}
	for _, w := range warnings {
		if !a.said[w] {
			if a.said == nil {
				a.said = map[string]bool{}
			}
			a.said[w] = true
			a.note("ctx0: %s", w)
		}
	}
	return nil
}

// configSections are the sections the vault's config file may have.
func configSections() []string {
	s := slices.Concat(vault.ConfigSections, extractor.ConfigSections)
	return append(s, llm.ConfigSection, sessions.ConfigSection, curator.ConfigSection, index.ConfigSection)
}

// section decodes one package's settings from the vault's config file
// with parse, once.
func section[T any](ctx context.Context, c *container, l *lazy.Value[T], parse func(*config.File) (T, error)) (T, error) {
	return l.Get(func() (T, error) {
		v, err := c.Vault(ctx)
		if err != nil {
			var zero T
			return zero, err
		}
		return parse(v.Settings())
	})
}

// Index is the vault's index, built if needed (with a notice and, on a
// terminal, a progress bar), made the vault's catalog; a big vault's reads
// start a watcher when none runs.
//
// The index is not closed with the container: the process ends with the
// command, and closing would first hand SQLite's page cache back to the
// allocator page by page (0.1 to 0.2 s after the full check of 100,000
// entries) only for the process to drop it whole. Nothing is lost by not
// closing: every transaction is committed to the WAL, which the next open
// reads.
func (c *container) Index(ctx context.Context) (*index.Index, error) {
	return c.index.Get(func() (*index.Index, error) {
		v, err := c.Vault(ctx)
		if err != nil {
			return nil, err
		}
		// A read that checks every file of a big vault starts a watcher
		// for the commands after it (see autowatch.go).
		return c.a.attachIndex(ctx, v, c.a.watcherWanted(v))
	})
}

// Model is the language model the vault's config names (llm:), or the
// offline provider when it names none (see llm.IsOffline).
func (c *container) Model(ctx context.Context) (llm.Provider, error) {
	return c.model.Get(func() (llm.Provider, error) {
		cfg, err := section(ctx, c, &c.llm, llm.ParseConfig)
		if err != nil {
			return nil, err
		}
		return llm.Open(cfg, c.a.getenv)
	})
}

// ExtractorConfig is the extractor's settings (extractor: and embeddings:)
// in the vault's config.
func (c *container) ExtractorConfig(ctx context.Context) (extractor.Config, error) {
	return section(ctx, c, &c.extractor, extractor.ParseConfig)
}

// CuratorConfig is the curator's settings (curator:) in the vault's config.
func (c *container) CuratorConfig(ctx context.Context) (curator.Config, error) {
	return section(ctx, c, &c.curator, curator.ParseConfig)
}

// IngestConfig is the ingest settings (ingest:) in the vault's config.
func (c *container) IngestConfig(ctx context.Context) (sessions.Config, error) {
	return section(ctx, c, &c.ingest, sessions.ParseConfig)
}

// Embeddings is the embeddings endpoint the vault's config names, or nil
// when it names none.
func (c *container) Embeddings(ctx context.Context) (index.Embedder, error) {
	return c.embeddings.Get(func() (index.Embedder, error) {
		cfg, err := c.ExtractorConfig(ctx)
		if err != nil || !cfg.Embeddings.Configured() {
			return nil, err
		}
		e, err := extractor.NewEmbeddings(cfg.Embeddings, c.a.getenv)
		if err != nil {
			return nil, err // not e: a nil *llm.Embeddings is no nil Embedder
		}
		return e, nil
	})
}

// Store is the vault's ingest state (.ctx0/state/), shared by the
// command's parts and closed with the container.
func (c *container) Store(ctx context.Context) (*sessions.Store, error) {
	return c.store.Get(func() (*sessions.Store, error) { return c.OpenStore(ctx) })
}

// OpenStore opens an ingest state of the vault of its own, which the
// caller closes: for work that outlives a command's parts, such as the
// hook's background steps or an MCP tool call.
func (c *container) OpenStore(ctx context.Context) (*sessions.Store, error) {
	v, err := c.Vault(ctx)
	if err != nil {
		return nil, err
	}
	cfg, err := c.IngestConfig(ctx)
	if err != nil {
		return nil, err
	}
	return sessions.Open(ctx, v.Root(), sessions.WithClock(c.a.now), sessions.WithConfig(cfg))
}

// Sessions are the past sessions the extractor searches, opened on their
// first search, and closed with the container.
func (c *container) Sessions(ctx context.Context) (*extractor.StoredSessions, error) {
	return c.sessions.Get(func() (*extractor.StoredSessions, error) {
		v, err := c.Vault(ctx)
		if err != nil {
			return nil, err
		}
		return extractor.OpenSessions(v.Root(), sessions.WithClock(c.a.now)), nil
	})
}

// Memory is what the extractor reads, the same for every request of the
// CLI, the MCP server and the page: the vault, its index, the past
// sessions ingested into it, the language model and the embeddings
// endpoint if the vault's config names them, the app's clock; and the
// extractor's settings. Neither the model nor the embeddings are needed
// to answer: one that fails to open is said, once, and left out.
func (c *container) Memory(ctx context.Context) (extractor.Memory, extractor.Config, error) {
	m, err := c.memory.Get(func() (extractor.Memory, error) {
		v, err := c.Vault(ctx)
		if err != nil {
			return extractor.Memory{}, err
		}
		ix, err := c.Index(ctx)
		if err != nil {
			return extractor.Memory{}, err
		}
		if _, err := c.ExtractorConfig(ctx); err != nil {
			return extractor.Memory{}, err
		}
		sessions, err := c.Sessions(ctx)
		if err != nil {
			return extractor.Memory{}, err
		}
		m := extractor.Memory{Vault: v, Index: ix, Sessions: sessions, Now: c.a.now}
		// Hybrid search is an addition: without its key, BM25 still answers.
		if e, err := c.Embeddings(ctx); err != nil {
			c.a.note("ctx0: %v; searching without embeddings", err)
		} else {
			m.Embeddings = e
		}
		// A model plans and condenses retrievals; offline retrieval is
		// the fallback for any failure, a bad setting included.
		if p, err := c.Model(ctx); err != nil {
			c.a.note("ctx0: %v; retrieving offline", err)
		} else if !llm.IsOffline(p) {
			m.Model = p
		}
		return m, nil
	})
	if err != nil {
		return m, extractor.Config{}, err
	}
	cfg, err := c.ExtractorConfig(ctx)
	return m, cfg, err
}

// closeAll releases what the container opened, the index too: for a
// process that goes on without them (the daemon, when its settings
// change).
func (c *container) closeAll() {
	c.close()
	if ix, ok := c.index.Opened(); ok {
		ix.Close()
	}
}

// close releases what the container opened, but the index (see Index).
func (c *container) close() {
	if s, ok := c.store.Opened(); ok {
		s.Close()
	}
	if s, ok := c.sessions.Opened(); ok {
		s.Close()
	}
}
