package llm

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ctx0/ctx0/internal/config"
	"github.com/ctx0/ctx0/internal/lazy"
)

// Config is what the vault's .ctx0/config.yaml says of the language model:
//
//	llm:
//	  provider: anthropic        # anthropic | openai | claude-code | codex | command | offline (default offline)
//	  model: claude-sonnet-4-5   # default claude-sonnet-4-5, or gpt-4.1-mini for OpenAI's own API,
//	                             # haiku for claude-code, Codex's own choice for codex
//	  base_url: ""               # another endpoint; openai-compatible servers: http://localhost:11434/v1
//	  api_key_env: ANTHROPIC_API_KEY   # the variable holding the key; default ANTHROPIC_API_KEY,
//	                             # or OPENAI_API_KEY for OpenAI's own API; none for other servers
//	  command: ["claude", "-p"]  # provider command: the program and its arguments, run without a shell;
//	                             # claude-code and codex: the CLI to run (default claude, codex)
//	  timeout: 120s              # per attempt (default 5m for claude-code and codex)
//	  max_retries: 4             # after 429, 5xx and connection errors
//	  max_tokens: 8192           # reply cap for requests that set none
//
// Keys are never written in the file: it is committed with the vault.
// claude-code and codex need none: they run the agent's own command line,
// signed in as the user already is, so that one line (provider:
// claude-code) turns model filing on.
type Config struct {
	Provider  string        `yaml:"provider"`
	Model     string        `yaml:"model"`
	BaseURL   string        `yaml:"base_url"`
	APIKeyEnv string        `yaml:"api_key_env"`
	Command   []string      `yaml:"command"`
	Timeout   time.Duration `yaml:"timeout"`
	// MaxRetries 0 means none: LoadConfig, not Open, fills in
	// DefaultMaxRetries when the file does not say.
	MaxRetries int `yaml:"max_retries"`
	MaxTokens  int `yaml:"max_tokens"`
}

// The defaults of settings the file leaves out.
const (
	DefaultTimeout = 2 * time.Minute
	// An agent CLI starts a whole agent before it asks the model.
	DefaultCLITimeout = 5 * time.Minute
	DefaultMaxRetries = 4
	defaultAnthropic  = "claude-sonnet-4-5"
	defaultOpenAI     = "gpt-4.1-mini"
)

// ConfigSection is the section of the vault's config file that Config is.
const ConfigSection = "llm"

// ParseConfig decodes the llm section of the vault's config file f; a
// missing file or section gives the offline provider. The settings each
// provider defaults are filled in.
func ParseConfig(f *config.File) (Config, error) {
	cfg := Config{MaxRetries: DefaultMaxRetries}
	if n := f.Section(ConfigSection); n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			// Named before any other mistake: a key pasted in the file
			// must be pointed out, not reported as an unknown setting.
			if k := n.Content[i]; k.Value == "api_key" {
				return Config{}, fmt.Errorf("parse config %s: llm: api_key: line %d: keys are never read from this file, which is committed with the vault: put the key in an environment variable and name the variable in api_key_env", f.Path(), k.Line)
			}
		}
	}
	if err := f.Decode(ConfigSection, &cfg); err != nil {
		return Config{}, err
	}
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return cfg, fmt.Errorf("parse config %s: llm: %w", f.Path(), err)
	}
	return cfg, nil
}

// withDefaults fills in what c leaves to its provider.
func (c Config) withDefaults() Config {
	if c.Provider == "" {
		c.Provider = "offline"
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
		if c.Provider == "claude-code" || c.Provider == "codex" {
			c.Timeout = DefaultCLITimeout
		}
	}
	switch {
	case c.Provider == "claude-code":
		if c.Model == "" {
			c.Model = DefaultClaudeCodeModel
		}
	case c.Provider == "anthropic":
		if c.Model == "" {
			c.Model = defaultAnthropic
		}
		if c.APIKeyEnv == "" {
			c.APIKeyEnv = "ANTHROPIC_API_KEY"
		}
	case c.Provider == "openai" && isOpenAI(c.BaseURL):
		if c.Model == "" {
			c.Model = defaultOpenAI
		}
		// Only OpenAI's own API gets OPENAI_API_KEY unasked: sending it to
		// whatever server base_url names would leak it.
		if c.APIKeyEnv == "" {
			c.APIKeyEnv = "OPENAI_API_KEY"
		}
	}
	return c
}

var envName = lazy.Regexp(`^[A-Za-z_][A-Za-z0-9_]*$`)

// check reports the first bad setting, naming its field.
func (c Config) check() error {
	switch c.Provider {
	case "anthropic", "openai", "claude-code", "codex", "command", "offline":
	default:
		return fmt.Errorf("provider %q: want anthropic, openai, claude-code, codex, command or offline", c.Provider)
	}
	switch {
	case c.Provider == "command" && (len(c.Command) == 0 || c.Command[0] == ""):
		return errors.New(`command: provider command needs the program to run, e.g. ["claude", "-p"]`)
	case (c.Provider == "claude-code" || c.Provider == "codex") && (c.BaseURL != "" || c.APIKeyEnv != ""):
		return fmt.Errorf("provider %s: runs the signed-in %s command line, which takes no base_url or api_key_env", c.Provider, CLIName(c.Provider))
	case c.Provider == "openai" && c.Model == "":
		return errors.New("model: an openai-compatible server at base_url needs the model to use")
	case c.Timeout < 0:
		return fmt.Errorf("timeout %s: must not be negative", c.Timeout)
	case c.MaxRetries < 0 || c.MaxRetries > 10:
		return fmt.Errorf("max_retries %d: want 0 to 10", c.MaxRetries)
	case c.MaxTokens < 0:
		return fmt.Errorf("max_tokens %d: must not be negative", c.MaxTokens)
	case c.APIKeyEnv != "" && !envName().MatchString(c.APIKeyEnv):
		// The value is not repeated: it may be the key itself, pasted in.
		return errors.New("api_key_env: want the name of the environment variable holding the key, not the key")
	}
	if c.BaseURL != "" {
		if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("base_url %q: want http(s)://host[:port][/path]", c.BaseURL)
		}
	}
	return nil
}

// CLIName is the program a CLI provider (claude-code, codex) runs by
// default.
func CLIName(provider string) string {
	if provider == "claude-code" {
		return "claude"
	}
	return provider
}

// Open returns the provider cfg configures, wrapped in redaction, retries
// and schema validation, reading its API key from the environment through getenv
// (nil: os.Getenv).
func Open(cfg Config, getenv func(string) string) (Provider, error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("llm config: %w", err)
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	var p Provider
	switch cfg.Provider {
	case "offline":
		return Offline{}, nil
	case "command":
		p = NewCommand(cfg.Command, cfg.Model, cfg.Timeout)
	case "claude-code":
		p = NewClaudeCode(cfg.Command, cfg.Model, cfg.Timeout)
	case "codex":
		p = NewCodex(cfg.Command, cfg.Model, cfg.Timeout)
	default:
		e := Endpoint{BaseURL: cfg.BaseURL, Model: cfg.Model, MaxTokens: cfg.MaxTokens, Client: &http.Client{Timeout: cfg.Timeout}}
		if cfg.APIKeyEnv != "" {
			if e.APIKey = getenv(cfg.APIKeyEnv); e.APIKey == "" {
				return nil, fmt.Errorf("llm provider %s: $%s is not set: it holds the API key (api_key_env in %s names the variable)", cfg.Provider, cfg.APIKeyEnv, config.VaultFile)
			}
		}
		if cfg.Provider == "anthropic" {
			p = NewAnthropic(e)
		} else {
			p = NewOpenAI(e)
		}
	}
	return WithSchema(WithRetry(WithRedaction(p), RetryPolicy{MaxRetries: cfg.MaxRetries})), nil
}
