package extractor

import (
	"fmt"
	"net/url"
	"time"

	"github.com/ctx0/ctx0/internal/config"
)

// Config is what the vault's .ctx0/config.yaml says of the extractor:
//
//	extractor:
//	  retrieve_budget: 2000    # tokens, when retrieve is not given --budget
//	  context_budget: 1500     # tokens, when context is not given --budget
//	embeddings:                # hybrid search; absent: BM25 only
//	  url: http://localhost:11434/v1   # an OpenAI-compatible API: OpenAI, Ollama, llama.cpp, vLLM
//	  model: nomic-embed-text
//	  api_key_env: OPENAI_API_KEY      # the environment variable holding the key, if one is needed
//	  dimensions: 0            # ask for this many dimensions (OpenAI's text-embedding-3 models); 0: the model's
//	  timeout: 30s
//
// Keys are never written in the file: it is committed with the vault.
type Config struct {
	Extractor  ExtractorConfig  `yaml:"extractor"`
	Embeddings EmbeddingsConfig `yaml:"embeddings"`
}

// ExtractorConfig are the extractor's defaults.
type ExtractorConfig struct {
	RetrieveBudget int `yaml:"retrieve_budget"`
	ContextBudget  int `yaml:"context_budget"`
}

// EmbeddingsConfig says which embeddings endpoint hybrid search uses.
type EmbeddingsConfig struct {
	URL        string        `yaml:"url"`
	Model      string        `yaml:"model"`
	APIKeyEnv  string        `yaml:"api_key_env"`
	Dimensions int           `yaml:"dimensions"`
	Timeout    time.Duration `yaml:"timeout"`
}

// Configured reports whether an endpoint is set up.
func (c EmbeddingsConfig) Configured() bool { return c.URL != "" }

// ConfigSections are the sections of the vault's config file that Config
// reads.
var ConfigSections = []string{"extractor", "embeddings"}

// ParseConfig decodes the extractor's sections of the vault's config file
// f; what they leave out takes its default.
func ParseConfig(f *config.File) (Config, error) {
	cfg := Config{Extractor: ExtractorConfig{RetrieveBudget: DefaultBudget, ContextBudget: DefaultContextBudget}}
	p := f.Path()
	if err := f.Decode("extractor", &cfg.Extractor); err != nil {
		return cfg, err
	}
	if err := f.Decode("embeddings", &cfg.Embeddings); err != nil {
		return cfg, err
	}
	ex, em := cfg.Extractor, cfg.Embeddings
	switch {
	case ex.RetrieveBudget < MinBudget:
		return cfg, fmt.Errorf("parse config %s: extractor: retrieve_budget %d: want %d or more", p, ex.RetrieveBudget, MinBudget)
	case ex.ContextBudget < MinContextBudget:
		return cfg, fmt.Errorf("parse config %s: extractor: context_budget %d: want %d or more", p, ex.ContextBudget, MinContextBudget)
	case em.URL == "" && em.Model != "":
		return cfg, fmt.Errorf("parse config %s: embeddings: model %q but no url", p, em.Model)
	case em.URL != "" && em.Model == "":
		return cfg, fmt.Errorf("parse config %s: embeddings: url but no model", p)
	case em.Dimensions < 0 || em.Timeout < 0:
		return cfg, fmt.Errorf("parse config %s: embeddings: dimensions and timeout must not be negative", p)
	}
	if em.URL != "" {
		if u, err := url.Parse(em.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return cfg, fmt.Errorf("parse config %s: embeddings: url %q: want http(s)://host[:port]/v1", p, em.URL)
		}
	}
	return cfg, nil
}
