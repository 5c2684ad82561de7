package extractor

import (
	"encoding/json"
	"errors"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/index/query"
)

// embedServer is an httptest server speaking OpenAI's embeddings API
// (POST /v1/embeddings). Its model embeds meaning crudely but
// deterministically: words of one concept (login, authentication) share a
// dimension, other words hash to one of 64.
type embedServer struct {
	*httptest.Server
	t    *testing.T
	mu   sync.Mutex
	reqs []embedRequest
}

const embedModel = "test-embed-64"

// embedRequest is what the server reads of a request.
type embedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

var concepts = map[string]string{
	"login": "auth", "sign": "auth", "authentication": "auth", "auth": "auth", "password": "auth",
	"pick": "choose", "chose": "choose", "choose": "choose", "picked": "choose", "decided": "choose",
	"coffee": "coffee", "espresso": "coffee", "brew": "coffee",
}

func newEmbedServer(t *testing.T) *embedServer {
	s := &embedServer{t: t}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *embedServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	var req embedRequest
	err := json.NewDecoder(r.Body).Decode(&req)
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	switch {
	case r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings":
		s.t.Errorf("%s %s, want POST /v1/embeddings", r.Method, r.URL.Path)
	case r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Authorization") != "Bearer sk-test":
		s.t.Errorf("headers %v", r.Header)
	case err != nil || req.Model != embedModel || len(req.Input) == 0 || req.EncodingFormat != "float":
		s.t.Errorf("request %+v: %v", req, err)
	}
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	resp := struct {
		Object string  `json:"object"`
		Data   []datum `json:"data"`
		Model  string  `json:"model"`
		Usage  struct {
			PromptTokens int `json:"prompt_tokens"`
			TotalTokens  int `json:"total_tokens"`
		} `json:"usage"`
	}{Object: "list", Model: req.Model}
	// The API does not promise the order of data: answer backwards.
	for i := len(req.Input) - 1; i >= 0; i-- {
		resp.Data = append(resp.Data, datum{Object: "embedding", Index: i, Embedding: meaning(req.Input[i])})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

// meaning is the test model's embedding of a text: a concept weighs as
// much as five words.
func meaning(text string) []float32 {
	v := make([]float32, 64)
	for _, w := range splitWords(strings.ToLower(text)) {
		if query.IsStopword(w) {
			continue
		}
		key, weight := w, float32(1)
		if c, ok := concepts[w]; ok {
			key, weight = "concept:"+c, 5
		}
		h := fnv.New32a()
		h.Write([]byte(key))
		v[h.Sum32()%64] += weight
	}
	return v
}

func (s *embedServer) requests() []embedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]embedRequest(nil), s.reqs...)
}

// client returns an embeddings client of s, made from the vault's config
// as ctx0 makes it.
func (s *embedServer) client(t *testing.T) index.Embedder {
	t.Helper()
	e, err := NewEmbeddings(EmbeddingsConfig{URL: s.URL + "/v1", Model: embedModel, APIKeyEnv: "TEST_EMBED_KEY"},
		func(k string) string { return map[string]string{"TEST_EMBED_KEY": "sk-test"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEmbeddingsWireFormat(t *testing.T) {
	s := newEmbedServer(t)
	got, err := s.client(t).Embed(t.Context(), []string{"staging deploy key", "espresso"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !equalVec(got[0], meaning("staging deploy key")) || !equalVec(got[1], meaning("espresso")) {
		t.Errorf("vectors out of order: %v", got)
	}
	if _, err := NewEmbeddings(EmbeddingsConfig{URL: s.URL, Model: embedModel, APIKeyEnv: "UNSET_KEY"}, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "$UNSET_KEY") {
		t.Errorf("a missing key: %v", err)
	}
}

func equalVec(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestEmbedIncremental checks that embedding does only what changed: all
// entries first, nothing the second time, the edited entry after an edit,
// and no request at all for a text whose vector is known.
func TestEmbedIncremental(t *testing.T) {
	m := fixture(t)
	s := newEmbedServer(t)
	e := s.client(t)
	rep, err := m.Index.Embed(t.Context(), e, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Entries < 20 || rep.Embedded < rep.Entries || rep.Pending != 0 {
		t.Errorf("first run: %+v", rep)
	}
	if rep, err = m.Index.Embed(t.Context(), e, 0); err != nil || rep.Entries != 0 || rep.Embedded != 0 {
		t.Errorf("second run: %+v, %v", rep, err)
	}
	p := filepath.Join(m.Vault.Root(), "knowledge", "espresso-ratio.md")
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(p, append(data, []byte("\nGrind finer if it runs fast.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	// A copy of an entry's text needs no new vector.
	if err := os.WriteFile(filepath.Join(m.Vault.Root(), "knowledge", "device-keys-copy.md"), mustRead(t, filepath.Join(m.Vault.Root(), "knowledge", "device-keys.md")), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err = m.Index.Embed(t.Context(), e, 0); err != nil || rep.Entries != 2 || rep.Embedded != 1 {
		t.Errorf("after an edit and a copy: %+v, %v", rep, err)
	}
	if rep, err = m.Index.Embed(t.Context(), e, 1); err != nil || rep.Pending != 0 {
		t.Errorf("a limited run with nothing to do: %+v, %v", rep, err)
	}
	// Embeddings are derived, but cost an endpoint's time: a rebuild keeps
	// them for the entries it finds unchanged.
	if err := os.WriteFile(p, append(data, []byte("\nPreheat the cup.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Index.Rebuild(t.Context()); err != nil {
		t.Fatal(err)
	}
	asked := len(s.requests())
	if rep, err = m.Index.Embed(t.Context(), e, 0); err != nil || rep.Entries != 1 || rep.Embedded != 1 {
		t.Errorf("after a rebuild and an edit: %+v, %v", rep, err)
	}
	if n := len(s.requests()) - asked; n != 1 {
		t.Errorf("after a rebuild, %d requests to the endpoint, want 1", n)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestHybridRetrieve checks that with an embeddings endpoint, retrieve
// finds by meaning what shares no word with the question, fusing the two
// scores as documented, and that without the endpoint it falls back to
// BM25.
func TestHybridRetrieve(t *testing.T) {
	m := fixture(t)
	s := newEmbedServer(t)
	m.Embeddings = s.client(t)
	b, err := Retrieve(t.Context(), m, Request{Query: "how is login handled?"})
	if err != nil {
		t.Fatal(err)
	}
	checkBudget(t, b)
	if b.Plan.Hybrid != embedModel {
		t.Errorf("plan %+v", b.Plan)
	}
	found := false
	for _, it := range b.Items[:min(3, len(b.Items))] {
		if it.Name == "knowledge/device-keys" && strings.Contains(it.Why, "close in meaning") {
			found = true
		}
	}
	if !found {
		t.Errorf("knowledge/device-keys (authentication) is not in the top 3 by meaning:\n%s", b.Text())
	}
	res, err := m.Index.HybridSearch(t.Context(), index.Query{Text: "espresso"}, "", m.Embeddings)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || res[0].Name != "knowledge/espresso-ratio" {
		t.Fatalf("hybrid search: %+v", res)
	}
	want := math.Round((0.7*res[0].Vector+0.3*res[0].Text)*1000) / 1000
	if res[0].Text != 1 || res[0].Score != want {
		t.Errorf("fused score %v of text %v and vector %v, want %v", res[0].Score, res[0].Text, res[0].Vector, want)
	}
	// Found by meaning alone (no "login" in it): the start of its chunk,
	// the word searched for that it holds marked.
	res, err = m.Index.HybridSearch(t.Context(), index.Query{Text: "login AND keys"}, "", m.Embeddings)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res, func(r index.HybridResult) bool { return r.Name == "knowledge/device-keys" })
	if i < 0 || res[i].Text != 0 || !strings.HasPrefix(res[i].Snippet, "Device «keys» Authentication") {
		t.Errorf("hybrid search by meaning alone: %+v", res)
	}
	// The endpoint goes away: retrieval goes on with BM25 and says so.
	s.Close()
	b, err = Retrieve(t.Context(), m, Request{Query: "espresso ratio"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.Plan.Hybrid, "off: ") || len(b.Items) == 0 || b.Items[0].Name != "knowledge/espresso-ratio" {
		t.Errorf("plan %+v, items %+v", b.Plan, b.Items)
	}
}

// TestSearchHybrid checks what Search says of its fusion: the model while
// the endpoint answers; once it fails, why, with the answer by words.
func TestSearchHybrid(t *testing.T) {
	m := fixture(t)
	s := newEmbedServer(t)
	m.Embeddings = s.client(t)
	res, h, err := Search(t.Context(), m, index.Query{Text: "espresso"})
	if err != nil {
		t.Fatal(err)
	}
	if h != (Hybrid{Model: embedModel}) || h.String() != embedModel || len(res) == 0 {
		t.Errorf("hybrid %+v, results %+v", h, res)
	}
	s.Close()
	res, h, err = Search(t.Context(), m, index.Query{Text: "espresso"})
	if err != nil {
		t.Fatal(err)
	}
	if h.Off == nil || h.Model != "" || h.String() != "off: "+h.Off.Error() || len(res) == 0 || res[0].Name != "knowledge/espresso-ratio" {
		t.Errorf("hybrid %+v, results %+v", h, res)
	}
}

func TestHybridString(t *testing.T) {
	for _, tt := range []struct {
		h    Hybrid
		want string
	}{
		{Hybrid{}, ""},
		{Hybrid{Model: "m"}, "m"},
		{Hybrid{Model: "m", Pending: 3}, "m (3 entries not embedded yet)"},
		{Hybrid{Off: errors.New("embed with m: refused")}, "off: embed with m: refused"},
	} {
		if got := tt.h.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.h, got, tt.want)
		}
	}
}
