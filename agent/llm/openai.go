package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// OpenAIURL is the OpenAI API's base URL.
const OpenAIURL = "https://api.openai.com/v1"

// OpenAI completes with the chat completions API, asking for a reply
// matching the schema through response_format. With another base URL it
// serves the OpenAI-compatible servers: Ollama (http://localhost:11434/v1),
// llama.cpp's server, vLLM, LM Studio.
type OpenAI struct{ e Endpoint }

var _ Provider = (*OpenAI)(nil)

// NewOpenAI returns a provider for the chat completions API at e.BaseURL
// (OpenAIURL when empty).
func NewOpenAI(e Endpoint) *OpenAI { return &OpenAI{e} }

func (o *OpenAI) Name() string  { return "openai" }
func (o *OpenAI) Model() string { return o.e.Model }

type openaiRequest struct {
	Model    string          `json:"model"`
	Messages []openaiMessage `json:"messages"`
	// OpenAI's own API wants max_completion_tokens (its reasoning models
	// refuse max_tokens); the compatible servers know max_tokens.
	MaxCompletionTokens int                  `json:"max_completion_tokens,omitempty"`
	MaxTokens           int                  `json:"max_tokens,omitempty"`
	ResponseFormat      openaiResponseFormat `json:"response_format"`
}

type openaiMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type openaiResponseFormat struct {
	Type       string           `json:"type"`
	JSONSchema openaiJSONSchema `json:"json_schema"`
}

type openaiJSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	// Strict mode would refuse schemas that leave properties optional or
	// allow additional ones; the reply is validated here instead.
	Strict bool `json:"strict"`
}

type openaiResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		FinishReason string `json:"finish_reason"`
		Message      struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// isOpenAI reports whether base is OpenAI's own API rather than a
// compatible server.
func isOpenAI(base string) bool {
	return base == "" || strings.TrimSuffix(base, "/") == OpenAIURL
}

// Complete asks for a message whose content is the reply.
func (o *OpenAI) Complete(ctx context.Context, r Request) (Reply, error) {
	body := openaiRequest{
		Model: o.e.Model,
		ResponseFormat: openaiResponseFormat{
			Type:       "json_schema",
			JSONSchema: openaiJSONSchema{Name: r.schemaName(), Schema: r.schema()},
		},
	}
	if r.System != "" {
		body.Messages = append(body.Messages, openaiMessage{Role: "system", Content: r.System})
	}
	body.Messages = append(body.Messages, openaiMessage{Role: "user", Content: r.Prompt})
	if isOpenAI(o.e.BaseURL) {
		body.MaxCompletionTokens = o.e.maxTokens(r)
	} else {
		body.MaxTokens = o.e.maxTokens(r)
	}
	header := http.Header{}
	if o.e.APIKey != "" {
		header.Set("Authorization", "Bearer "+o.e.APIKey)
	}
	var resp openaiResponse
	if err := postJSON(ctx, o.e.client(), o.Name(), o.e.url(OpenAIURL, "/chat/completions"), header, body, &resp); err != nil {
		return Reply{}, err
	}
	model := cmp.Or(resp.Model, o.e.Model)
	reply := Reply{Model: model, Usage: usage(model, resp.Usage.PromptTokens, resp.Usage.CompletionTokens)}
	if len(resp.Choices) == 0 {
		return reply, fmt.Errorf("%s: the reply has no choices", o.Name())
	}
	c := resp.Choices[0]
	switch {
	case c.Message.Refusal != nil && *c.Message.Refusal != "":
		return reply, fmt.Errorf("%s: the model refused to answer: %s", o.Name(), *c.Message.Refusal)
	case c.FinishReason == "length":
		return reply, fmt.Errorf("%s: the reply was cut off at %d tokens", o.Name(), o.e.maxTokens(r))
	case c.Message.Content == nil:
		return reply, &SchemaError{Provider: o.Name(), Schema: r.schemaName(), Problem: "the reply has no content"}
	}
	// Servers that ignore response_format answer in prose or a fence.
	obj, err := extractJSON([]byte(*c.Message.Content))
	if err != nil {
		return reply, &SchemaError{Provider: o.Name(), Schema: r.schemaName(), Problem: err.Error()}
	}
	reply.JSON = obj
	return reply, nil
}
