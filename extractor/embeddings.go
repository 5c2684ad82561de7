package extractor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ctx0/ctx0/index"
)

// Embeddings is a client of an OpenAI-compatible embeddings endpoint
// (POST {url}/embeddings), which OpenAI, Ollama, llama.cpp's server, vLLM
// and LM Studio all serve.
type Embeddings struct {
	cfg    EmbeddingsConfig
	key    string
	client *http.Client
	// sleep waits between retries; tests make it instant.
	sleep func(ctx context.Context, d time.Duration) error
}

var _ index.Embedder = (*Embeddings)(nil)

// Retries, as seed 002's embeddings service does them: 3 attempts, waiting
// 500 ms and then 2 s (or what a Retry-After header asks, up to maxWait),
// on 429, 5xx and connection errors; none on other 4xx (a bad key, a bad
// model), which another attempt would not fix.
var retryWaits = []time.Duration{500 * time.Millisecond, 2 * time.Second}

const (
	maxWait        = 30 * time.Second
	defaultTimeout = 30 * time.Second
)

// NewEmbeddings returns a client for cfg, reading the key from the
// environment variable cfg names through getenv.
func NewEmbeddings(cfg EmbeddingsConfig, getenv func(string) string) (*Embeddings, error) {
	if !cfg.Configured() {
		return nil, errors.New("embeddings: no url configured")
	}
	e := &Embeddings{cfg: cfg, client: &http.Client{Timeout: cfg.Timeout}, sleep: sleepCtx}
	if e.client.Timeout == 0 {
		e.client.Timeout = defaultTimeout
	}
	if cfg.APIKeyEnv != "" {
		if e.key = getenv(cfg.APIKeyEnv); e.key == "" {
			return nil, fmt.Errorf("embeddings: $%s is not set (the config's api_key_env)", cfg.APIKeyEnv)
		}
	}
	return e, nil
}

// Model is the configured model.
func (e *Embeddings) Model() string { return e.cfg.Model }

type embedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type embedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// Embed returns a vector per text, in order.
func (e *Embeddings) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(embedRequest{Model: e.cfg.Model, Input: texts, EncodingFormat: "float", Dimensions: e.cfg.Dimensions})
	if err != nil {
		return nil, err
	}
	endpoint := strings.TrimSuffix(e.cfg.URL, "/") + "/embeddings"
	for attempt := 0; ; attempt++ {
		vecs, wait, err := e.post(ctx, endpoint, body, len(texts))
		if err == nil {
			return vecs, nil
		}
		if wait < 0 || attempt == len(retryWaits) || ctx.Err() != nil {
			return nil, err
		}
		if wait == 0 {
			wait = retryWaits[attempt]
		}
		if err := e.sleep(ctx, min(wait, maxWait)); err != nil {
			return nil, err
		}
	}
}

// post makes one request. wait is -1 when retrying cannot help, else what
// the server asked to wait (0: not said).
func (e *Embeddings) post(ctx context.Context, endpoint string, body []byte, n int) (vecs [][]float32, wait time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, -1, fmt.Errorf("embeddings %s: %w", endpoint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.key != "" {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("embeddings %s: %w", endpoint, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, 0, fmt.Errorf("embeddings %s: %w", endpoint, err)
	}
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("embeddings %s: %s: %s", endpoint, resp.Status, apiError(data))
		if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
			return nil, -1, err
		}
		if s, perr := strconv.Atoi(resp.Header.Get("Retry-After")); perr == nil && s >= 0 {
			wait = time.Duration(s) * time.Second
		}
		return nil, wait, err
	}
	var r embedResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, -1, fmt.Errorf("embeddings %s: reply: %w", endpoint, err)
	}
	if len(r.Data) != n {
		return nil, -1, fmt.Errorf("embeddings %s: asked for %d vectors, got %d", endpoint, n, len(r.Data))
	}
	vecs = make([][]float32, n)
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n || vecs[d.Index] != nil || len(d.Embedding) == 0 {
			return nil, -1, fmt.Errorf("embeddings %s: reply: bad or repeated index %d", endpoint, d.Index)
		}
		vecs[d.Index] = d.Embedding
	}
	return vecs, 0, nil
}

// apiError is the message of an OpenAI-style error body, else the body's
// start.
func apiError(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
