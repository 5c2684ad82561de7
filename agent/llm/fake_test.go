package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// The test schema, and a reply that matches it and one that does not.
const (
	testSchema = `{"type":"object","properties":{"summary":{"type":"string"},"facts":{"type":"array","items":{"type":"string"}}},"required":["summary","facts"],"additionalProperties":false}`
	goodReply  = `{"summary":"we chose SQLite","facts":["the index is FTS5"]}`
	badReply   = `{"summary":"we chose SQLite"}`
	testKey    = "sk-test-0123456789"
)

func testRequest() Request {
	return Request{
		System:     "You are the librarian.",
		Prompt:     "Summarize the conversation.",
		SchemaName: "extraction",
		Schema:     json.RawMessage(testSchema),
	}
}

// answer is one scripted HTTP reply.
type answer struct {
	status int
	header map[string]string
	body   string
}

func ok(body string) answer { return answer{status: http.StatusOK, body: body} }

// apiFailure is an error reply in the shape both APIs use.
func apiFailure(status int, retryAfter string) answer {
	a := answer{status: status, body: fmt.Sprintf(`{"type":"error","error":{"type":"scripted","message":"scripted %d"}}`, status)}
	if retryAfter != "" {
		a.header = map[string]string{"Retry-After": retryAfter}
	}
	return a
}

// anthropicBody is a Messages API reply calling the tool "extraction" with
// input.
func anthropicBody(input string) string {
	return `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",` +
		`"content":[{"type":"tool_use","id":"toolu_01","name":"extraction","input":` + input + `}],` +
		`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1000,"output_tokens":500}}`
}

// openaiBody is a chat completion whose message content is content.
func openaiBody(content string) string {
	c, _ := json.Marshal(content)
	return `{"id":"chatcmpl-1","object":"chat.completion","created":1763870000,"model":"gpt-4.1-mini-2025-04-14",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":` + string(c) + `,"refusal":null},"logprobs":null,"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":1000,"completion_tokens":500,"total_tokens":1500}}`
}

// received is a request the fake API got.
type received struct {
	header http.Header
	body   map[string]any
}

// fakeAPI is an HTTP server answering POSTs to path with its answers in
// turn, the last one repeated.
type fakeAPI struct {
	*httptest.Server
	mu       sync.Mutex
	answers  []answer
	requests []received
}

func newFakeAPI(t *testing.T, path string, answers ...answer) *fakeAPI {
	t.Helper()
	f := &fakeAPI{answers: answers}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != path {
			t.Errorf("got %s %s, want POST %s", r.Method, r.URL.Path, path)
		}
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(data, &body); err != nil {
			t.Errorf("request body is not a JSON object: %v", err)
		}
		f.mu.Lock()
		a := f.answers[min(len(f.requests), len(f.answers)-1)]
		f.requests = append(f.requests, received{r.Header.Clone(), body})
		f.mu.Unlock()
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) got() []received {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]received(nil), f.requests...)
}

// blockingAPI is a server that holds every request until the client goes
// away, telling started when one arrives.
func blockingAPI(t *testing.T) (srv *httptest.Server, started <-chan struct{}) {
	t.Helper()
	ch := make(chan struct{}, 10)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read to the end, or the server does not notice the client leaving.
		io.Copy(io.Discard, r.Body)
		ch <- struct{}{}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, ch
}

// sleeps records WithRetry's waits instead of waiting.
type sleeps struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waits = append(s.waits, d)
	return ctx.Err()
}

// redirect is a client sending every request to srv, whatever its URL,
// for testing what a provider does with its default base URL.
func redirect(srv *httptest.Server) *http.Client {
	target, _ := url.Parse(srv.URL)
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = target.Scheme, target.Host
		r.Host = target.Host
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// field reads a path of keys and indexes out of decoded JSON.
func field(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			s, _ := v.([]any)
			if k >= len(s) {
				return nil
			}
			v = s[k]
		}
	}
	return v
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(t *testing.T, got, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("not JSON: %q: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("not JSON: %q: %v", want, err)
	}
	gs, _ := json.Marshal(g)
	ws, _ := json.Marshal(w)
	return string(gs) == string(ws)
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
