// Package llmtest runs HTTP servers that speak the Anthropic Messages API
// and OpenAI chat completions and answer with scripted replies, so that
// code using agent/llm is tested against the real wire formats: point a
// provider's base URL at Server.BaseURL.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// What every scripted reply reports.
const (
	AnthropicModel = "claude-sonnet-4-5-20250929"
	OpenAIModel    = "gpt-4.1-mini-2025-04-14"
	InputTokens    = 1000
	OutputTokens   = 500
)

// Answer is one scripted HTTP reply.
type Answer struct {
	Status int // 0: 200
	Header map[string]string
	Body   string
	// toolInput, when set, makes the body an Anthropic tool call with this
	// input, of the tool the request asked for.
	toolInput *string
}

// AnthropicReply is a Messages API reply calling the requested tool with
// input, a JSON object (the model's structured answer).
func AnthropicReply(input string) Answer { return Answer{toolInput: &input} }

// OpenAIReply is a chat completion whose message content is content (the
// model's answer: JSON, or whatever a model may say instead).
func OpenAIReply(content string) Answer {
	c, _ := json.Marshal(content)
	return Answer{Body: `{"id":"chatcmpl-1","object":"chat.completion","created":1763870000,"model":"` + OpenAIModel + `",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":` + string(c) + `,"refusal":null},"logprobs":null,"finish_reason":"stop"}],` +
		fmt.Sprintf(`"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, InputTokens, OutputTokens, InputTokens+OutputTokens)}
}

// Failure is an error reply in the shape both APIs use, with a
// retry-after header when retryAfter is not empty.
func Failure(status int, retryAfter string) Answer {
	a := Answer{Status: status, Body: fmt.Sprintf(`{"type":"error","error":{"type":"scripted","message":"scripted %d"}}`, status)}
	if retryAfter != "" {
		a.Header = map[string]string{"Retry-After": retryAfter}
	}
	return a
}

// Request is a request a Server got.
type Request struct {
	Header http.Header
	Body   map[string]any
}

// Server answers the requests to its API with its answers in turn,
// repeating the last, and records them.
type Server struct {
	*httptest.Server
	base     string
	mu       sync.Mutex
	answers  []Answer
	requests []Request
}

// NewAnthropic starts a server speaking the Messages API, closed when the
// test ends.
func NewAnthropic(t testing.TB, answers ...Answer) *Server {
	return start(t, "", "/v1/messages", answers)
}

// NewOpenAI starts a server speaking chat completions under /v1, as Ollama
// and the other OpenAI-compatible servers do, closed when the test ends.
func NewOpenAI(t testing.TB, answers ...Answer) *Server {
	return start(t, "/v1", "/v1/chat/completions", answers)
}

func start(t testing.TB, base, path string, answers []Answer) *Server {
	t.Helper()
	if len(answers) == 0 {
		t.Fatal("llmtest: no answers scripted")
	}
	s := &Server{answers: answers}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != path {
			t.Errorf("llmtest: got %s %s, want POST %s", r.Method, r.URL.Path, path)
		}
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(data, &body); err != nil {
			t.Errorf("llmtest: the request body is not a JSON object: %v", err)
		}
		s.mu.Lock()
		a := s.answers[min(len(s.requests), len(s.answers)-1)]
		s.requests = append(s.requests, Request{r.Header.Clone(), body})
		s.mu.Unlock()
		if a.toolInput != nil {
			a.Body = anthropicToolCall(body, *a.toolInput)
		}
		for k, v := range a.Header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(max(a.Status, http.StatusOK))
		io.WriteString(w, a.Body)
	}))
	s.base = s.URL + base
	t.Cleanup(s.Close)
	return s
}

// anthropicToolCall is a reply calling the tool the request forces.
func anthropicToolCall(req map[string]any, input string) string {
	choice, _ := req["tool_choice"].(map[string]any)
	name, _ := json.Marshal(choice["name"])
	return `{"id":"msg_01","type":"message","role":"assistant","model":"` + AnthropicModel + `",` +
		`"content":[{"type":"tool_use","id":"toolu_01","name":` + string(name) + `,"input":` + input + `}],` +
		fmt.Sprintf(`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":%d}}`, InputTokens, OutputTokens)
}

// BaseURL is the base URL to configure a provider with.
func (s *Server) BaseURL() string { return s.base }

// Requests are the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Prompts are the user messages of the requests received so far.
func (s *Server) Prompts() []string {
	var prompts []string
	for _, r := range s.Requests() {
		msgs, _ := r.Body["messages"].([]any)
		var last map[string]any
		if len(msgs) > 0 {
			last, _ = msgs[len(msgs)-1].(map[string]any)
		}
		content, _ := last["content"].(string)
		prompts = append(prompts, content)
	}
	return prompts
}
