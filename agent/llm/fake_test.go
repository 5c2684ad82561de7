package llm

import (
	"context"
	"encoding/json"
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
