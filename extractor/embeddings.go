package extractor

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/index"
)

// Retries of an embeddings request: 3 attempts, backing off from 500 ms (or
// waiting what a Retry-After header asks, up to maxWait), on 429, 5xx and
// connection errors; none on other 4xx (a bad key, a bad model), which
// another attempt would not fix.
var embedRetries = llm.RetryPolicy{MaxRetries: 2, BaseDelay: 500 * time.Millisecond, MaxDelay: 30 * time.Second}

const defaultTimeout = 30 * time.Second

// NewEmbeddings returns a client of the endpoint cfg names, reading the key
// from the environment variable cfg names through getenv.
func NewEmbeddings(cfg EmbeddingsConfig, getenv func(string) string) (*llm.Embeddings, error) {
	if !cfg.Configured() {
		return nil, errors.New("embeddings: no url configured")
	}
	ep := llm.Endpoint{BaseURL: cfg.URL, Model: cfg.Model, Client: &http.Client{Timeout: cmp.Or(cfg.Timeout, defaultTimeout)}}
	if cfg.APIKeyEnv != "" {
		if ep.APIKey = getenv(cfg.APIKeyEnv); ep.APIKey == "" {
			return nil, fmt.Errorf("embeddings: $%s is not set (the config's api_key_env)", cfg.APIKeyEnv)
		}
	}
	return llm.NewEmbeddings(ep, cfg.Dimensions, embedRetries), nil
}

var _ index.Embedder = (*llm.Embeddings)(nil)
