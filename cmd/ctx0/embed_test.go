package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestSearchByMeaning: with an embeddings endpoint in the vault's config,
// ctx0 index --embed embeds every entry, and ctx0 search finds by meaning
// what shares no word with the question. The endpoint is an httptest server
// speaking OpenAI's embeddings API, whose model knows that "sign in" and
// "authentication" mean one thing.
func TestSearchByMeaning(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error": {"message": "bad request"}}`, http.StatusBadRequest)
			return
		}
		type datum struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var resp struct {
			Data []datum `json:"data"`
		}
		for i, text := range req.Input {
			text = strings.ToLower(text)
			v := []float32{0.1, 0, 0}
			if strings.Contains(text, "sign in") || strings.Contains(text, "authentication") {
				v[1] = 1
			}
			if strings.Contains(text, "espresso") {
				v[2] = 1
			}
			resp.Data = append(resp.Data, datum{i, v})
		}
		json.NewEncoder(w).Encode(resp)
	}))
	defer srv.Close()

	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	ctx0 := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(append([]string{"--vault", dir}, args...), strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("ctx0 %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
		return stdout.String()
	}
	ctx0("init", dir)
	for name, text := range map[string]string{
		"knowledge/auth.md":     "---\ntitle: Authentication\n---\nAuthentication goes through the identity provider.\n",
		"knowledge/espresso.md": "---\ntitle: Espresso\n---\n18 g in, 36 g out.\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, ".ctx0", "config.yaml"), []byte("embeddings:\n  url: "+srv.URL+"/v1\n  model: test-3\n"), 0o644)
	ctx0("trust") // the endpoint is this machine's choice

	if out := ctx0("index", "--embed"); !strings.Contains(out, "embedded 3 entries with test-3") {
		t.Errorf("index --embed printed %q", out)
	}
	if out := ctx0("index", "--embed"); !strings.Contains(out, "embedded 0 entries") {
		t.Errorf("index --embed again printed %q", out)
	}
	before := calls.Load()
	var res []struct {
		Name   string  `json:"name"`
		Vector float64 `json:"vector_score"`
	}
	if err := json.Unmarshal([]byte(ctx0("search", "--json", "how do I sign in?")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || res[0].Name != "knowledge/auth" || res[0].Vector < 0.9 {
		t.Errorf("search by meaning found %+v", res)
	}
	if n := calls.Load() - before; n != 1 {
		t.Errorf("search made %d requests, want 1 (the question; the entries were embedded)", n)
	}

	// Without the endpoint's key, search still answers, by words.
	os.WriteFile(filepath.Join(dir, ".ctx0", "config.yaml"), []byte("embeddings:\n  url: "+srv.URL+"/v1\n  model: test-3\n  api_key_env: CTX0_TEST_UNSET_KEY\n"), 0o644)
	ctx0("trust")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--vault", dir, "search", "espresso"}, strings.NewReader(""), &stdout, &stderr); code != exitOK ||
		!strings.Contains(stdout.String(), "knowledge/espresso") || !strings.Contains(stderr.String(), "$CTX0_TEST_UNSET_KEY is not set") {
		t.Errorf("search without the key: exit %d, %q, %q", code, stdout.String(), stderr.String())
	}

	// An endpoint that fails turns similarity off for the search, which
	// says why and answers by words.
	os.WriteFile(filepath.Join(dir, ".ctx0", "config.yaml"), []byte("embeddings:\n  url: "+srv.URL+"/broken\n  model: test-3\n"), 0o644)
	ctx0("trust")
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"--vault", dir, "search", "espresso"}, strings.NewReader(""), &stdout, &stderr); code != exitOK ||
		!strings.Contains(stdout.String(), "knowledge/espresso") ||
		!strings.HasPrefix(stderr.String(), "ctx0: embeddings ") || !strings.HasSuffix(stderr.String(), ": bad request; searching by words alone\n") {
		t.Errorf("search with a failing endpoint: exit %d, %q, %q", code, stdout.String(), stderr.String())
	}
}
