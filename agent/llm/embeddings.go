package llm

import (
	"context"
	"fmt"
	"net/http"

	"github.com/ctx0/ctx0/redact"
)

// Embeddings is a client of an OpenAI-compatible embeddings endpoint
// (POST {base}/embeddings), which OpenAI, Ollama, llama.cpp's server, vLLM
// and LM Studio all serve. It retries as WithRetry does.
type Embeddings struct {
	e          Endpoint
	dimensions int
	policy     RetryPolicy
}

// NewEmbeddings returns a client of e that asks for vectors of dimensions
// (0: the model's own; OpenAI's text-embedding-3 models can shorten them).
func NewEmbeddings(e Endpoint, dimensions int, policy RetryPolicy) *Embeddings {
	return &Embeddings{e: e, dimensions: dimensions, policy: policy.withDefaults()}
}

// Model is the model asked for.
func (em *Embeddings) Model() string { return em.e.Model }

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

// Embed returns a vector per text, in the order of texts (the API does not
// promise the order of its reply).
func (em *Embeddings) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	const name = "embeddings"
	// Texts leave the machine: redacted first, as every request is.
	sent := make([]string, len(texts))
	for i, t := range texts {
		sent[i] = redact.String(t)
	}
	body := embedRequest{Model: em.e.Model, Input: sent, EncodingFormat: "float", Dimensions: em.dimensions}
	header := http.Header{}
	if em.e.APIKey != "" {
		header.Set("Authorization", "Bearer "+em.e.APIKey)
	}
	var resp embedResponse
	err := em.policy.do(ctx, name, func() error {
		resp = embedResponse{}
		return postJSON(ctx, em.e.client(), name, em.e.url(OpenAIURL, "/embeddings"), header, body, &resp)
	})
	if err != nil {
		return nil, err
	}
	if len(resp.Data) != len(texts) {
		return nil, fmt.Errorf("%s: asked for %d vectors, got %d", name, len(texts), len(resp.Data))
	}
	vecs := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(texts) || vecs[d.Index] != nil || len(d.Embedding) == 0 {
			return nil, fmt.Errorf("%s: reply: bad or repeated index %d", name, d.Index)
		}
		vecs[d.Index] = d.Embedding
	}
	return vecs, nil
}
