package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// AnthropicURL is the Messages API's base URL.
const AnthropicURL = "https://api.anthropic.com"

// anthropicVersion is the API version the request and reply shapes below
// are written against.
const anthropicVersion = "2023-06-01"

// Anthropic completes with the Messages API. The reply's shape is forced
// by offering one tool whose input schema is the request's schema and
// requiring the model to call it: the call's input is the reply.
type Anthropic struct{ e Endpoint }

var _ Provider = (*Anthropic)(nil)

// NewAnthropic returns a provider for the Messages API at e.BaseURL
// (AnthropicURL when empty).
func NewAnthropic(e Endpoint) *Anthropic { return &Anthropic{e} }

func (a *Anthropic) Name() string  { return "anthropic" }
func (a *Anthropic) Model() string { return a.e.Model }

type anthropicRequest struct {
	Model      string             `json:"model"`
	MaxTokens  int                `json:"max_tokens"`
	System     string             `json:"system,omitempty"`
	Messages   []anthropicMessage `json:"messages"`
	Tools      []anthropicTool    `json:"tools"`
	ToolChoice anthropicChoice    `json:"tool_choice"`
}

type anthropicMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type anthropicChoice struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

type anthropicResponse struct {
	Model      string `json:"model"`
	StopReason string `json:"stop_reason"`
	Content    []struct {
		Type  string          `json:"type"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
	Usage struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
}

// Complete asks for one forced call of a tool named r.SchemaName.
func (a *Anthropic) Complete(ctx context.Context, r Request) (Reply, error) {
	tool := r.schemaName()
	body := anthropicRequest{
		Model:     a.e.Model,
		MaxTokens: a.e.maxTokens(r),
		System:    r.System,
		Messages:  []anthropicMessage{{Role: "user", Content: r.Prompt}},
		Tools: []anthropicTool{{
			Name:        tool,
			Description: "Record the answer. Its input is the whole reply.",
			InputSchema: r.schema(),
		}},
		ToolChoice: anthropicChoice{Type: "tool", Name: tool},
	}
	header := http.Header{}
	header.Set("X-Api-Key", a.e.APIKey)
	header.Set("Anthropic-Version", anthropicVersion)
	var resp anthropicResponse
	if err := postJSON(ctx, a.e.client(), a.Name(), a.e.url(AnthropicURL, "/v1/messages"), header, body, &resp); err != nil {
		return Reply{}, err
	}
	model := cmp.Or(resp.Model, a.e.Model)
	reply := Reply{Model: model, Usage: usage(model, resp.Usage.InputTokens, resp.Usage.OutputTokens)}
	switch resp.StopReason {
	case "max_tokens":
		return reply, fmt.Errorf("%s: the reply was cut off at max_tokens %d", a.Name(), body.MaxTokens)
	case "refusal":
		return reply, fmt.Errorf("%s: the model refused to answer", a.Name())
	}
	for _, c := range resp.Content {
		if c.Type == "tool_use" && c.Name == tool {
			reply.JSON = c.Input
			return reply, nil
		}
	}
	return reply, &SchemaError{Provider: a.Name(), Schema: tool, Problem: fmt.Sprintf("the reply does not call the tool %s", tool)}
}
