package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// HTTPError is an HTTP provider's request that got no answer or an error
// status. WithRetry reads it to decide whether another attempt can help.
type HTTPError struct {
	Provider   string
	StatusCode int           // 0 when no response came (the connection failed)
	RetryAfter time.Duration // what the server asked to wait; 0 when it did not say
	Message    string        // the API's error message, or the body's start
	Err        error         // the connection error when StatusCode is 0
}

func (e *HTTPError) Error() string {
	if e.StatusCode == 0 {
		return fmt.Sprintf("%s: %v", e.Provider, e.Err)
	}
	s := fmt.Sprintf("%s: %d", e.Provider, e.StatusCode)
	if text := http.StatusText(e.StatusCode); text != "" {
		s += " " + text
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	return s
}

func (e *HTTPError) Unwrap() error { return e.Err }

// Retryable reports whether the same request may succeed later: the
// connection failed, the server was rate limiting (429) or failing (5xx).
// Other 4xx (a bad key, a bad model, a malformed request) will not change.
func (e *HTTPError) Retryable() bool {
	return e.StatusCode == 0 || e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// maxBody bounds what is read of a reply: far above any completion, it
// keeps a misbehaving server from filling memory.
const maxBody = 32 << 20

// postJSON posts in as JSON to url with header and decodes a 2xx reply into
// out.
func postJSON(ctx context.Context, client *http.Client, provider, url string, header http.Header, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("%s: encode request: %w", provider, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", provider, err)
	}
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return &HTTPError{Provider: provider, Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return &HTTPError{Provider: provider, Err: fmt.Errorf("read reply: %w", err)}
	}
	if resp.StatusCode/100 != 2 {
		return &HTTPError{
			Provider:   provider,
			StatusCode: resp.StatusCode,
			RetryAfter: retryAfter(resp.Header, time.Now()),
			Message:    apiMessage(data),
		}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: decode reply: %w", provider, err)
	}
	return nil
}

// retryAfter is the wait a reply's headers ask for: retry-after-ms
// (OpenAI's), else retry-after in seconds or as an HTTP date; 0 when
// absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	// Clamped so that an absurd value cannot overflow a Duration; WithRetry
	// gives up on waits that long anyway.
	const most = 1 << 31
	if ms, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After-Ms"))); err == nil && ms > 0 {
		return time.Duration(min(ms, most)) * time.Millisecond
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if s, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(0, min(s, most))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// apiMessage is the message of an error body shaped as both Anthropic and
// OpenAI shape theirs ({"error": {"message": ...}}), else the body's start.
func apiMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	s := strings.Join(strings.Fields(string(body)), " ")
	if len(s) <= 200 {
		return s
	}
	i := 200
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// Endpoint is what an HTTP provider needs to reach its API.
type Endpoint struct {
	BaseURL string // "" for the provider's own API
	APIKey  string // "" sends none (local OpenAI-compatible servers)
	Model   string
	// MaxTokens caps replies of requests that set no cap; 0: 8192.
	MaxTokens int
	// Client makes the requests; nil: a client without a timeout, leaving
	// the deadline to ctx.
	Client *http.Client
}

const defaultMaxTokens = 8192

func (e Endpoint) client() *http.Client {
	if e.Client == nil {
		return http.DefaultClient
	}
	return e.Client
}

func (e Endpoint) maxTokens(r Request) int {
	switch {
	case r.MaxTokens > 0:
		return r.MaxTokens
	case e.MaxTokens > 0:
		return e.MaxTokens
	}
	return defaultMaxTokens
}

// url joins the base URL (or def when none is set) and path.
func (e Endpoint) url(def, path string) string {
	base := e.BaseURL
	if base == "" {
		base = def
	}
	return strings.TrimSuffix(base, "/") + path
}
