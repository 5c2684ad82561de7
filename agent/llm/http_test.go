package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/agent/llm/llmtest"
)

func TestAnthropicRequest(t *testing.T) {
	api := llmtest.NewAnthropic(t, llmtest.AnthropicReply(goodReply))
	p := NewAnthropic(Endpoint{BaseURL: api.BaseURL(), APIKey: testKey, Model: "claude-sonnet-4-5"})
	for _, maxTokens := range []int{0, 1234} {
		r := testRequest()
		r.MaxTokens = maxTokens
		if _, err := p.Complete(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	got := api.Requests()
	if len(got) != 2 {
		t.Fatalf("got %d requests", len(got))
	}
	h, body := got[0].Header, got[0].Body
	if h.Get("x-api-key") != testKey || h.Get("anthropic-version") != "2023-06-01" || h.Get("content-type") != "application/json" || h.Get("authorization") != "" {
		t.Errorf("headers: %v", h)
	}
	checks := []struct {
		path []any
		want any
	}{
		{[]any{"model"}, "claude-sonnet-4-5"},
		{[]any{"max_tokens"}, 8192.0},
		{[]any{"system"}, "You are the librarian."},
		{[]any{"messages", 0, "role"}, "user"},
		{[]any{"messages", 0, "content"}, "Summarize the conversation."},
		{[]any{"messages", 1}, nil},
		{[]any{"tools", 0, "name"}, "extraction"},
		{[]any{"tools", 0, "input_schema", "required", 1}, "facts"},
		{[]any{"tools", 1}, nil},
		{[]any{"tool_choice", "type"}, "tool"},
		{[]any{"tool_choice", "name"}, "extraction"},
	}
	for _, c := range checks {
		if v := field(body, c.path...); v != c.want {
			t.Errorf("%v: got %#v, want %#v", c.path, v, c.want)
		}
	}
	if v := field(got[1].Body, "max_tokens"); v != 1234.0 {
		t.Errorf("max_tokens of a request asking 1234: got %v", v)
	}
}

func TestOpenAIRequest(t *testing.T) {
	tests := []struct {
		name      string
		endpoint  func(api *llmtest.Server) Endpoint
		auth      string
		maxTokens string // the field that carries the cap
	}{
		{"OpenAI's API", func(api *llmtest.Server) Endpoint {
			return Endpoint{APIKey: testKey, Model: "gpt-4.1-mini", Client: redirect(api.Server)}
		}, "Bearer " + testKey, "max_completion_tokens"},
		{"local server", func(api *llmtest.Server) Endpoint {
			return Endpoint{BaseURL: api.BaseURL() + "/", Model: "qwen3:8b"}
		}, "", "max_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := llmtest.NewOpenAI(t, llmtest.OpenAIReply(goodReply))
			if _, err := NewOpenAI(tt.endpoint(api)).Complete(t.Context(), testRequest()); err != nil {
				t.Fatal(err)
			}
			got := api.Requests()
			h, body := got[0].Header, got[0].Body
			if h.Get("authorization") != tt.auth || h.Get("content-type") != "application/json" {
				t.Errorf("headers: %v", h)
			}
			other := map[string]string{"max_tokens": "max_completion_tokens", "max_completion_tokens": "max_tokens"}[tt.maxTokens]
			checks := []struct {
				path []any
				want any
			}{
				{[]any{"model"}, tt.endpoint(api).Model},
				{[]any{"messages", 0, "role"}, "system"},
				{[]any{"messages", 0, "content"}, "You are the librarian."},
				{[]any{"messages", 1, "role"}, "user"},
				{[]any{"messages", 1, "content"}, "Summarize the conversation."},
				{[]any{"response_format", "type"}, "json_schema"},
				{[]any{"response_format", "json_schema", "name"}, "extraction"},
				{[]any{"response_format", "json_schema", "strict"}, false},
				{[]any{"response_format", "json_schema", "schema", "required", 0}, "summary"},
				{[]any{tt.maxTokens}, 8192.0},
				{[]any{other}, nil},
			}
			for _, c := range checks {
				if v := field(body, c.path...); v != c.want {
					t.Errorf("%v: got %#v, want %#v", c.path, v, c.want)
				}
			}
		})
	}
}

// toolCall is a Messages API reply calling the tool "extraction".
func toolCall(stopReason, input string) string {
	return `{"model":"claude-haiku-4-5","content":[{"type":"text","text":"Sure!"},{"type":"tool_use","id":"t","name":"extraction","input":` + input + `}],` +
		`"stop_reason":"` + stopReason + `","usage":{"input_tokens":5,"output_tokens":2}}`
}

// choice is a chat completion whose one choice is message.
func choice(finishReason, message string) string {
	return `{"model":"gpt-4o","choices":[{"index":0,"message":` + message + `,"finish_reason":"` + finishReason + `"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`
}

// TestReplies covers the replies a provider reads besides a plain answer.
func TestReplies(t *testing.T) {
	anthropic := func(body string) Provider {
		return anthropicAt(llmtest.NewAnthropic(t, llmtest.Answer{Body: body}).BaseURL())
	}
	openai := func(body string) Provider {
		return openaiAt(llmtest.NewOpenAI(t, llmtest.Answer{Body: body}).BaseURL())
	}
	tests := []struct {
		name   string
		p      Provider
		want   string // the JSON read, or a part of the error
		schema bool   // whether the error is a *SchemaError
	}{
		{"anthropic cut off", anthropic(toolCall("max_tokens", `{}`)), "cut off at max_tokens 8192", false},
		{"anthropic refusal", anthropic(toolCall("refusal", `{}`)), "refused", false},
		{"anthropic text before the tool", anthropic(toolCall("tool_use", goodReply)), goodReply, false},
		{"anthropic text instead of the tool",
			anthropic(`{"model":"claude-haiku-4-5","content":[{"type":"text","text":"Sure!"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":2}}`),
			"does not call the tool extraction", true},
		{"openai refusal", openai(choice("stop", `{"role":"assistant","content":null,"refusal":"I can't help with that."}`)),
			"refused to answer: I can't help with that.", false},
		{"openai cut off", openai(choice("length", `{"role":"assistant","content":"{\"summary\":"}`)), "cut off at 8192 tokens", false},
		{"openai no content", openai(choice("stop", `{"role":"assistant"}`)), "no content", true},
		{"openai no choices", openai(`{"model":"gpt-4o","choices":[],"usage":{}}`), "no choices", false},
		{"openai prose around the object", openai(llmtest.OpenAIReply("Sure! " + goodReply + " Anything else?").Body), goodReply, false},
		{"openai prose only", openai(llmtest.OpenAIReply("I am not sure what you mean.").Body), "holds no JSON object", true},
		{"openai not JSON at all", openai(`<html>gateway</html>`), "decode reply", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply, err := tt.p.Complete(t.Context(), testRequest())
			if strings.HasPrefix(tt.want, "{") {
				if err != nil || !jsonEqual(t, string(reply.JSON), tt.want) {
					t.Errorf("got %s, %v; want %s", reply.JSON, err, tt.want)
				}
				return
			}
			var se *SchemaError
			if err == nil || !strings.Contains(err.Error(), tt.want) || errors.As(err, &se) != tt.schema {
				t.Errorf("got %v, want an error saying %q (schema error: %v)", err, tt.want, tt.schema)
			}
		})
	}
}

func anthropicAt(url string) Provider {
	return NewAnthropic(Endpoint{BaseURL: url, APIKey: testKey, Model: "claude-haiku-4-5"})
}

func openaiAt(url string) Provider { return NewOpenAI(Endpoint{BaseURL: url, Model: "gpt-4o"}) }

func TestRetry(t *testing.T) {
	policy := RetryPolicy{MaxRetries: 3, BaseDelay: time.Second, MaxDelay: 30 * time.Second}
	tests := []struct {
		name     string
		answers  []llmtest.Answer
		requests int
		waits    []time.Duration // a wait < 0 means any jittered backoff up to -wait
		status   int             // of the error; 0: success
	}{
		{"429 with retry-after", []llmtest.Answer{llmtest.Failure(429, "7"), {}}, 2, []time.Duration{7 * time.Second}, 0},
		{"429 without retry-after", []llmtest.Answer{llmtest.Failure(429, ""), {}}, 2, []time.Duration{-time.Second}, 0},
		{"529 overloaded, twice", []llmtest.Answer{llmtest.Failure(529, ""), llmtest.Failure(529, ""), {}}, 3, []time.Duration{-time.Second, -2 * time.Second}, 0},
		{"500 then success", []llmtest.Answer{llmtest.Failure(500, ""), {}}, 2, []time.Duration{-time.Second}, 0},
		{"500 until giving up", []llmtest.Answer{llmtest.Failure(500, "")}, 4, []time.Duration{-time.Second, -2 * time.Second, -4 * time.Second}, 500},
		{"retry-after longer than MaxDelay", []llmtest.Answer{llmtest.Failure(429, "3600"), {}}, 1, nil, 429},
		{"400 not retried", []llmtest.Answer{llmtest.Failure(400, ""), {}}, 1, nil, 400},
		{"401 not retried", []llmtest.Answer{llmtest.Failure(401, "1"), {}}, 1, nil, 401},
	}
	for _, b := range []struct {
		name   string
		server func(testing.TB, ...llmtest.Answer) *llmtest.Server
		reply  llmtest.Answer
		open   func(url string) Provider
	}{
		{"anthropic", llmtest.NewAnthropic, llmtest.AnthropicReply(goodReply), anthropicAt},
		{"openai", llmtest.NewOpenAI, llmtest.OpenAIReply(goodReply), openaiAt},
	} {
		for _, tt := range tests {
			t.Run(b.name+"/"+tt.name, func(t *testing.T) {
				// The zero Answer in the table stands for a good reply.
				answers := append([]llmtest.Answer(nil), tt.answers...)
				for i, a := range answers {
					if a.Status == 0 {
						answers[i] = b.reply
					}
				}
				api := b.server(t, answers...)
				s := &sleeps{}
				pol := policy
				pol.Sleep = s.sleep
				reply, err := WithRetry(b.open(api.BaseURL()), pol).Complete(t.Context(), testRequest())
				if n := len(api.Requests()); n != tt.requests {
					t.Errorf("%d requests, want %d", n, tt.requests)
				}
				if len(s.waits) != len(tt.waits) {
					t.Fatalf("waited %v, want %v", s.waits, tt.waits)
				}
				for i, w := range tt.waits {
					if got := s.waits[i]; (w > 0 && got != w) || (w < 0 && (got < -w/2 || got > -w)) {
						t.Errorf("wait %d: %v, want %v", i, got, w)
					}
				}
				if tt.status == 0 {
					if err != nil || !jsonEqual(t, string(reply.JSON), goodReply) {
						t.Errorf("got %v", err)
					}
					return
				}
				var he *HTTPError
				if !errors.As(err, &he) || he.StatusCode != tt.status || !strings.Contains(err.Error(), "scripted") {
					t.Errorf("got %v, want the API's %d", err, tt.status)
				}
				if strings.Contains(err.Error(), testKey) {
					t.Errorf("the error shows the key: %v", err)
				}
			})
		}
	}
}

// TestConnectionRefused retries a server that is not listening yet, and
// reaches it once it is.
func TestConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var tries int
	policy := RetryPolicy{MaxRetries: 3, Sleep: func(ctx context.Context, d time.Duration) error {
		if tries++; tries == 2 {
			l, err := net.Listen("tcp", addr)
			if err != nil {
				t.Skipf("port taken meanwhile: %v", err)
			}
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Write([]byte(toolCall("tool_use", goodReply)))
			}))
			srv.Listener.Close()
			srv.Listener = l
			srv.Start()
			t.Cleanup(srv.Close)
		}
		return nil
	}}
	reply, err := WithRetry(anthropicAt("http://"+addr), policy).Complete(t.Context(), testRequest())
	if err != nil || tries != 2 || !jsonEqual(t, string(reply.JSON), goodReply) {
		t.Errorf("after %d waits: %v", tries, err)
	}

	// Never listening: the connection error, after all attempts.
	l, _ = net.Listen("tcp", "127.0.0.1:0")
	addr = l.Addr().String()
	l.Close()
	s := &sleeps{}
	_, err = WithRetry(openaiAt("http://"+addr), RetryPolicy{MaxRetries: 2, Sleep: s.sleep}).Complete(t.Context(), testRequest())
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != 0 || len(s.waits) != 2 || !strings.Contains(err.Error(), "give up after 3 attempts") {
		t.Errorf("got %v after %d waits", err, len(s.waits))
	}
}

func TestCancel(t *testing.T) {
	for _, open := range []func(string) Provider{anthropicAt, openaiAt} {
		srv, started := blockingAPI(t)
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			<-started
			cancel()
		}()
		s := &sleeps{}
		p := WithSchema(WithRetry(open(srv.URL), RetryPolicy{MaxRetries: 3, Sleep: s.sleep}))
		_, err := p.Complete(ctx, testRequest())
		if !errors.Is(err, context.Canceled) || len(s.waits) != 0 {
			t.Errorf("%s: got %v after %d waits, want the cancellation", p.Name(), err, len(s.waits))
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	tests := []struct {
		header map[string]string
		want   time.Duration
	}{
		{nil, 0},
		{map[string]string{"Retry-After": "0"}, 0},
		{map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{map[string]string{"Retry-After": " 12 "}, 12 * time.Second},
		{map[string]string{"Retry-After": "-3"}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": "99999999999999999"}, (1 << 31) * time.Second},
		{map[string]string{"Retry-After": "Mon, 23 Nov 2026 06:00:30 GMT"}, 30 * time.Second},
		{map[string]string{"Retry-After": "Mon, 23 Nov 2026 05:59:00 GMT"}, 0},
		{map[string]string{"Retry-After-Ms": "1500", "Retry-After": "2"}, 1500 * time.Millisecond},
		{map[string]string{"Retry-After-Ms": "x", "Retry-After": "2"}, 2 * time.Second},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		if got := retryAfter(h, now); got != tt.want {
			t.Errorf("%v: got %v, want %v", tt.header, got, tt.want)
		}
	}
}

func TestCost(t *testing.T) {
	tests := []struct {
		model   string
		in, out int
		want    float64
	}{
		{"claude-sonnet-4-5", 1_000_000, 0, 3},
		{"claude-sonnet-4-5-20250929", 1000, 500, 0.0105},
		{"claude-opus-4-1-20250805", 0, 1_000_000, 75},
		{"claude-opus-4-5", 0, 1_000_000, 25},
		{"gpt-4o-mini-2024-07-18", 1_000_000, 1_000_000, 0.75},
		{"gpt-4o", 1_000_000, 0, 2.5},
		{"gpt-4omni", 1_000_000, 0, 0},
		{"llama3.1:8b", 1_000_000, 1_000_000, 0},
		{"", 10, 10, 0},
	}
	for _, tt := range tests {
		if got := costUSD(tt.model, tt.in, tt.out); got < tt.want-1e-9 || got > tt.want+1e-9 {
			t.Errorf("%s: got %v, want %v", tt.model, got, tt.want)
		}
	}
}

func TestHTTPError(t *testing.T) {
	tests := []struct {
		err       *HTTPError
		want      string
		retryable bool
	}{
		{&HTTPError{Provider: "anthropic", StatusCode: 529, Message: "Overloaded"}, "anthropic: 529: Overloaded", true},
		{&HTTPError{Provider: "openai", StatusCode: 429, RetryAfter: 2 * time.Second, Message: "Rate limit reached"}, "openai: 429 Too Many Requests: Rate limit reached (retry after 2s)", true},
		{&HTTPError{Provider: "openai", StatusCode: 404}, "openai: 404 Not Found", false},
		{&HTTPError{Provider: "openai", Err: errors.New("dial tcp: connection refused")}, "openai: dial tcp: connection refused", true},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want || tt.err.Retryable() != tt.retryable {
			t.Errorf("got %q (retryable %v), want %q (%v)", got, tt.err.Retryable(), tt.want, tt.retryable)
		}
	}
}

// TestTimeout: an attempt that outlasts the client's timeout counts as a
// connection error, and is retried.
func TestTimeout(t *testing.T) {
	srv, _ := blockingAPI(t)
	s := &sleeps{}
	p := NewAnthropic(Endpoint{BaseURL: srv.URL, APIKey: testKey, Model: "m", Client: &http.Client{Timeout: 50 * time.Millisecond}})
	_, err := WithRetry(p, RetryPolicy{MaxRetries: 1, Sleep: s.sleep}).Complete(t.Context(), testRequest())
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != 0 || len(s.waits) != 1 || !strings.Contains(err.Error(), "Timeout") {
		t.Errorf("got %v after %d waits", err, len(s.waits))
	}
}
