package mcp

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveHTTP runs ListenAndServe on a free port of 127.0.0.1, as ctx0 mcp
// --http does, and returns its URL.
func serveHTTP(t *testing.T, f *fixture, o HTTPOptions) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- f.s.ListenAndServe(ctx, "127.0.0.1:0", o, func(u string) { urls <- u }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	select {
	case u := <-urls:
		return u
	case err := <-done:
		t.Fatalf("serve: %v", err)
		return ""
	}
}

// initialize is a client's first request, as it goes over the wire.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func post(t *testing.T, url string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// A request from a web page of another site is refused with 403, as the
// MCP specification asks of a server; pages of this machine and programs
// (no Origin) are served; with a token, a request without it gets 401.
func TestHTTPOriginAndToken(t *testing.T) {
	const token = "0123456789abcdef-test-token"
	tests := []struct {
		name   string
		opts   HTTPOptions
		header map[string]string
		want   int
	}{
		{"no origin", HTTPOptions{}, nil, http.StatusOK},
		{"evil origin", HTTPOptions{}, map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"evil origin on a loopback port", HTTPOptions{}, map[string]string{"Origin": "http://evil.example:8765"}, http.StatusForbidden},
		{"null origin", HTTPOptions{}, map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"rebinding name of 127.0.0.1", HTTPOptions{}, map[string]string{"Origin": "http://127.0.0.1.evil.example"}, http.StatusForbidden},
		{"localhost page", HTTPOptions{}, map[string]string{"Origin": "http://localhost:3000"}, http.StatusOK},
		{"127.0.0.1 page", HTTPOptions{}, map[string]string{"Origin": "http://127.0.0.1:5173"}, http.StatusOK},
		{"[::1] page", HTTPOptions{}, map[string]string{"Origin": "https://[::1]"}, http.StatusOK},
		{"allowed origin", HTTPOptions{Origins: []string{"https://App.example:8443/"}}, map[string]string{"Origin": "https://app.example:8443"}, http.StatusOK},
		{"other port of an allowed origin", HTTPOptions{Origins: []string{"https://app.example:8443"}}, map[string]string{"Origin": "https://app.example"}, http.StatusForbidden},
		{"token missing", HTTPOptions{Token: token}, nil, http.StatusUnauthorized},
		{"token wrong", HTTPOptions{Token: token}, map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized},
		{"token given", HTTPOptions{Token: token}, map[string]string{"Authorization": "Bearer " + token}, http.StatusOK},
		{"token given, evil origin", HTTPOptions{Token: token}, map[string]string{"Authorization": "Bearer " + token, "Origin": "http://evil.example"}, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			url := serveHTTP(t, f, tt.opts)
			res := post(t, url, tt.header)
			if res.StatusCode != tt.want {
				t.Fatalf("status %d, want %d", res.StatusCode, tt.want)
			}
			if tt.want == http.StatusUnauthorized && !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without WWW-Authenticate: Bearer: %q", res.Header.Get("WWW-Authenticate"))
			}
		})
	}
}

// headers adds fixed headers to a client's requests.
type headers struct {
	set  map[string]string
	base http.RoundTripper
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.set {
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

// A whole session with the token works, and a page of another site cannot
// remember anything: nothing is committed.
func TestHTTPRememberNeedsOriginAndToken(t *testing.T) {
	const token = "another-test-token-0123456789"
	f := newFixture(t)
	url := serveHTTP(t, f, HTTPOptions{Token: token})
	before := commits(t, f.v.Root())
	client := func(set map[string]string) *http.Client {
		return &http.Client{Transport: headers{set: set, base: http.DefaultTransport}}
	}
	evil := sdk.NewClient(&sdk.Implementation{Name: "evil", Version: "1"}, nil)
	if _, err := evil.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: url,
		HTTPClient: client(map[string]string{"Origin": "http://evil.example", "Authorization": "Bearer " + token})}, nil); err == nil {
		t.Fatal("a client with another site's Origin connected")
	}
	if _, err := evil.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: url}, nil); err == nil {
		t.Fatal("a client without the token connected")
	}
	if n := commits(t, f.v.Root()); n != before {
		t.Fatalf("%d commits made by refused clients", n-before)
	}
	cs := dial(t, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: client(map[string]string{"Authorization": "Bearer " + token})})
	ok(t, cs, "remember", map[string]any{"content": "The staging database moves to Frankfurt in May."})
	if n := commits(t, f.v.Root()); n != before+1 {
		t.Fatalf("%d commits after one remember, want 1", n-before)
	}
}

// sessionCount is the number of client sessions the server holds.
func sessionCount(f *fixture) int {
	n := 0
	for range f.s.SDK().Sessions() {
		n++
	}
	return n
}

// A client that initializes again and again (each initialize is a new
// session) holds at most MaxSessions: each new one closes the one idle the
// longest, while the sessions in use keep working.
func TestHTTPSessionsAreBounded(t *testing.T) {
	const max = 5
	f := newFixture(t)
	url := serveHTTP(t, f, HTTPOptions{MaxSessions: max})
	var ids []string
	for i := range 40 {
		res := post(t, url, nil)
		id := res.Header.Get(sessionIDHeader)
		if res.StatusCode != http.StatusOK || id == "" {
			t.Fatalf("initialize %d: status %d, session %q", i, res.StatusCode, id)
		}
		ids = append(ids, id)
		if n := sessionCount(f); n > max {
			t.Fatalf("after %d initialize requests: %d sessions alive, want at most %d", i+1, n, max)
		}
	}
	if n := sessionCount(f); n != max {
		t.Errorf("%d sessions alive, want %d", n, max)
	}
	// The newest sessions are the ones kept; the first was closed.
	ping := func(id string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(sessionIDHeader, id)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := ping(ids[0]); code != http.StatusNotFound {
		t.Errorf("the oldest session answered %d, want 404 (closed)", code)
	}
	// Using a session makes it the newest: the next one closes another.
	kept := ids[len(ids)-max]
	if code := ping(kept); code != http.StatusOK {
		var codes []int
		for _, id := range ids[len(ids)-max-2:] {
			codes = append(codes, ping(id))
		}
		t.Fatalf("a kept session answered %d; last: %v", code, codes)
	}
	post(t, url, nil)
	if code := ping(kept); code != http.StatusOK {
		t.Errorf("the session just used was closed (%d), not the one idle longest", code)
	}
	if code := ping(ids[len(ids)-max+1]); code != http.StatusNotFound {
		t.Errorf("the session idle longest answered %d, want 404 (closed)", code)
	}
	// A whole client session still works beside the churn.
	cs := dial(t, &sdk.StreamableClientTransport{Endpoint: url})
	ok(t, cs, "remember", map[string]any{"content": "The staging database moves to Frankfurt in May."})
	if n := sessionCount(f); n > max {
		t.Errorf("%d sessions alive, want at most %d", n, max)
	}
}

// A session in the middle of a request (here its stream of server
// messages, which stays open) is not closed to make room: the new session
// is refused with 503 until one is idle.
func TestHTTPBusySessionsAreKept(t *testing.T) {
	f := newFixture(t)
	url := serveHTTP(t, f, HTTPOptions{MaxSessions: 1})
	id := post(t, url, nil).Header.Get(sessionIDHeader)
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(sessionIDHeader, id)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: status %d", stream.StatusCode)
	}
	if res := post(t, url, nil); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("initialize while the only session is busy: status %d, want 503", res.StatusCode)
	}
	cancel()
	stream.Body.Close()
	// The server sees the stream end when its handler returns; a new
	// session gets in once it has.
	res := post(t, url, nil)
	for res.StatusCode == http.StatusServiceUnavailable {
		runtime.Gosched()
		res = post(t, url, nil)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("initialize after the stream ended: status %d", res.StatusCode)
	}
	if n := sessionCount(f); n != 1 {
		t.Errorf("%d sessions alive, want 1", n)
	}
}
