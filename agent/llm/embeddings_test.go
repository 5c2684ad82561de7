package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// embedServer speaks OpenAI's embeddings API: a text's vector is its
// length and its first byte. fail, when set, may answer a request (by its
// number) with an error status instead.
type embedServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []embedRequest
	fail func(n int) (status int, retryAfter string)
}

func newEmbedServer(t *testing.T) *embedServer {
	s := &embedServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req embedRequest
		err := json.NewDecoder(r.Body).Decode(&req)
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, req)
		fail := s.fail
		s.mu.Unlock()
		switch {
		case r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings":
			t.Errorf("%s %s, want POST /v1/embeddings", r.Method, r.URL.Path)
		case r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Authorization") != "Bearer sk-test":
			t.Errorf("headers %v", r.Header)
		case err != nil || req.Model != "embed-2" || req.EncodingFormat != "float" || req.Dimensions != 2:
			t.Errorf("request %+v: %v", req, err)
		}
		if fail != nil {
			if status, after := fail(n); status != 0 {
				if after != "" {
					w.Header().Set("Retry-After", after)
				}
				w.WriteHeader(status)
				w.Write([]byte(`{"error": {"message": "try again", "type": "server_error"}}`))
				return
			}
		}
		type datum struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var resp struct {
			Object string  `json:"object"`
			Data   []datum `json:"data"`
		}
		resp.Object = "list"
		// The API does not promise the order of data: answer backwards.
		for i := len(req.Input) - 1; i >= 0; i-- {
			resp.Data = append(resp.Data, datum{i, []float32{float32(len(req.Input[i])), float32(req.Input[i][0])}})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *embedServer) client(waited *[]time.Duration) *Embeddings {
	return NewEmbeddings(Endpoint{BaseURL: s.URL + "/v1", APIKey: "sk-test", Model: "embed-2"}, 2, RetryPolicy{
		MaxRetries: 2, BaseDelay: 500 * time.Millisecond, MaxDelay: 30 * time.Second,
		Sleep: func(_ context.Context, d time.Duration) error { *waited = append(*waited, d); return nil },
	})
}

func TestEmbeddings(t *testing.T) {
	s := newEmbedServer(t)
	var waited []time.Duration
	got, err := s.client(&waited).Embed(t.Context(), []string{"deploy", "ab"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0][0] != 6 || got[0][1] != 'd' || got[1][0] != 2 || got[1][1] != 'a' {
		t.Errorf("vectors not in the order asked: %v", got)
	}
}

// TestEmbeddingsRetries checks that the client retries as WithRetry does:
// 429 and 5xx, as long as the policy allows, honouring Retry-After; other
// 4xx never.
func TestEmbeddingsRetries(t *testing.T) {
	for _, c := range []struct {
		name     string
		fail     func(n int) (int, string)
		ok       bool
		attempts int
	}{
		{"429 then ok", func(n int) (int, string) {
			if n == 0 {
				return http.StatusTooManyRequests, "7"
			}
			return 0, ""
		}, true, 2},
		{"500 twice then ok", func(n int) (int, string) {
			if n < 2 {
				return http.StatusInternalServerError, ""
			}
			return 0, ""
		}, true, 3},
		{"503 always", func(int) (int, string) { return http.StatusServiceUnavailable, "" }, false, 3},
		{"401", func(int) (int, string) { return http.StatusUnauthorized, "" }, false, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newEmbedServer(t)
			s.fail = c.fail
			var waited []time.Duration
			_, err := s.client(&waited).Embed(t.Context(), []string{"x"})
			if (err == nil) != c.ok || len(s.reqs) != c.attempts || len(waited) != c.attempts-1 {
				t.Errorf("err %v, %d attempts, waited %v", err, len(s.reqs), waited)
			}
			if c.name == "429 then ok" && waited[0] != 7*time.Second {
				t.Errorf("waited %v, want the 7s the server asked for", waited)
			}
			if err != nil && !strings.Contains(err.Error(), "try again") {
				t.Errorf("the error does not carry the API's message: %v", err)
			}
		})
	}
}
