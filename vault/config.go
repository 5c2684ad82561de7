package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ctx0/ctx0/internal/config"
)

// ConfigFile is the vault's settings, committed with the vault.
const ConfigFile = config.VaultFile

// Config is what .ctx0/config.yaml may say. Every field has a default, so an
// empty file is a valid configuration.
type Config struct {
	Author   Author              `yaml:"author"`
	Remember RememberConfig      `yaml:"remember"`
	Types    map[string]TypeInfo `yaml:"types"`
	Sync     SyncConfig          `yaml:"sync"`
}

// SyncConfig is automatic sync with the vault's remote.
type SyncConfig struct {
	// Auto pulls at each agent session's start and pushes after ctx0's
	// writes, in the background. Off unless set: it needs a remote.
	Auto bool `yaml:"auto"`
	// StartBudget bounds how long a session's start waits for the remote
	// (default 1.5s); past it the session goes on with what the vault has.
	StartBudget time.Duration `yaml:"start_budget"`
}

// Author is the identity on the commits ctx0 makes.
type Author struct {
	Name  string `yaml:"name"`
	Email string `yaml:"email"`
}

// RememberConfig tunes quick capture.
type RememberConfig struct {
	// MaxChars is the longest text remember accepts; longer text is refused
	// so agents save concise, standalone facts rather than transcripts.
	MaxChars int `yaml:"max_chars"`
	// PerClientPerMinute is how many remember calls one MCP client session
	// may make in a minute: a client that loops is slowed, not the team.
	PerClientPerMinute int `yaml:"per_client_per_minute"`
	// PerVaultPerMinute is how many remember calls the vault takes in a
	// minute from every client and server process together.
	PerVaultPerMinute int `yaml:"per_vault_per_minute"`
}

// TypeInfo describes an entry type.
type TypeInfo struct {
	// Folder is where entries of this type go when no folder is named.
	// Episodes add a YYYY-MM subfolder.
	Folder string `yaml:"folder"`
	// Merge is how concurrent edits of the body combine: field-merge,
	// append-only, last-write-wins or rebuilt (see merge.Strategy).
	Merge string `yaml:"merge,omitempty"`
}

// builtinTypes are the types every vault knows.
var builtinTypes = map[string]TypeInfo{
	"note":       {Folder: "knowledge"},
	"fact":       {Folder: "knowledge"},
	"archive":    {Folder: "archive"},
	"contact":    {Folder: "contacts"},
	"project":    {Folder: "projects"},
	"decision":   {Folder: "decisions"},
	"preference": {Folder: "preferences"},
	"episode":    {Folder: "episodes", Merge: "append-only"},
	"insight":    {Folder: "insights"},
	"milestone":  {Folder: "milestones"},
	"log":        {Folder: "logs", Merge: "append-only"},
	"scratch":    {Folder: "inbox", Merge: "last-write-wins"},
	"summary":    {Folder: "summaries", Merge: "rebuilt"},
}

// Sources are the values the source field may take.
var Sources = []string{"user", "agent", "auto", "librarian", "curator"}

// DefaultConfig is the configuration of a vault whose config file says nothing.
func DefaultConfig() Config {
	return Config{
		Author:   Author{Name: "ctx0", Email: "ctx0@localhost"},
		Remember: RememberConfig{MaxChars: 2000, PerClientPerMinute: 60, PerVaultPerMinute: 600},
		Sync:     SyncConfig{StartBudget: 1500 * time.Millisecond},
	}
}

// ConfigSections are the sections of the config file that the vault
// reads; llm:, extractor:, embeddings:, ingest: and curator: belong to
// other packages.
var ConfigSections = []string{"author", "remember", "types", "sync"}

// ReadConfig reads the config file of the vault at root, once, for every
// package to decode its sections from; a missing file is an empty one.
func ReadConfig(root string) (*config.File, error) {
	data, err := ReadFile(root, ConfigFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return config.Parse(filepath.Join(root, filepath.FromSlash(ConfigFile)), data)
}

// ParseConfig decodes the vault's sections of f (ConfigSections); what
// they leave out takes its default.
func ParseConfig(f *config.File) (Config, error) {
	cfg := DefaultConfig()
	p := f.Path()
	for _, s := range []struct {
		name string
		into any
	}{{"author", &cfg.Author}, {"remember", &cfg.Remember}, {"types", &cfg.Types}, {"sync", &cfg.Sync}} {
		if err := f.Decode(s.name, s.into); err != nil {
			return cfg, err
		}
	}
	for name, t := range cfg.Types {
		n, err := NormalizeName(name)
		if err != nil || n != name {
			return cfg, fmt.Errorf("parse config %s: type %q: use lowercase letters, digits and hyphens", p, name)
		}
		if t.Folder != "" {
			if _, err := NormalizeName(t.Folder); err != nil {
				return cfg, fmt.Errorf("parse config %s: type %q: folder: %w", p, name, err)
			}
		}
		switch t.Merge {
		case "", "field-merge", "append-only", "last-write-wins", "rebuilt":
		default:
			return cfg, fmt.Errorf("parse config %s: type %q: merge %q: want field-merge, append-only, last-write-wins or rebuilt", p, name, t.Merge)
		}
	}
	if cfg.Sync.StartBudget < 0 {
		return cfg, fmt.Errorf("parse config %s: sync: start_budget %v: want a positive duration such as 1.5s", p, cfg.Sync.StartBudget)
	}
	if cfg.Sync.StartBudget == 0 {
		cfg.Sync.StartBudget = DefaultConfig().Sync.StartBudget
	}
	if cfg.Remember.MaxChars <= 0 {
		cfg.Remember.MaxChars = DefaultConfig().Remember.MaxChars
	}
	for _, r := range []struct {
		key string
		n   *int
		def int
	}{
		{"per_client_per_minute", &cfg.Remember.PerClientPerMinute, DefaultConfig().Remember.PerClientPerMinute},
		{"per_vault_per_minute", &cfg.Remember.PerVaultPerMinute, DefaultConfig().Remember.PerVaultPerMinute},
	} {
		if *r.n < 0 {
			return cfg, fmt.Errorf("parse config %s: remember: %s %d: want a positive number of calls a minute", p, r.key, *r.n)
		}
		if *r.n == 0 {
			*r.n = r.def
		}
	}
	if cfg.Author.Name == "" || cfg.Author.Email == "" {
		def := DefaultConfig().Author
		if cfg.Author.Name == "" {
			cfg.Author.Name = def.Name
		}
		if cfg.Author.Email == "" {
			cfg.Author.Email = def.Email
		}
	}
	return cfg, nil
}

// Type returns what the vault knows of type t: a type declared in the config
// overrides a built-in one field by field.
func (c Config) Type(t string) (TypeInfo, bool) {
	b, builtin := builtinTypes[t]
	d, declared := c.Types[t]
	if !builtin && !declared {
		return TypeInfo{}, false
	}
	if d.Folder != "" {
		b.Folder = d.Folder
	}
	if d.Merge != "" {
		b.Merge = d.Merge
	}
	if b.Folder == "" {
		b.Folder = t + "s"
	}
	if b.Merge == "" {
		b.Merge = "field-merge"
	}
	return b, true
}

// TypeNames lists the built-in and declared types, sorted.
func (c Config) TypeNames() []string {
	var out []string
	for t := range builtinTypes {
		out = append(out, t)
	}
	for t := range c.Types {
		if _, ok := builtinTypes[t]; !ok {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}
