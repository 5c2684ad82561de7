package librarian

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/agent"
	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/agent/llm/llmtest"
	"github.com/ctx0/ctx0/internal/gittest"
	"github.com/ctx0/ctx0/internal/golden"
)

// TestRunOverHTTP files a conversation with the Anthropic and OpenAI
// providers against servers speaking their APIs: a 429 with retry-after,
// a 500, and a reply that fails the schema come first, then the canned
// extraction. The requests carry the librarian's system prompt, the
// delimited transcript and the schema; the vault afterwards is the same
// for both, and the run records the tokens spent.
func TestRunOverHTTP(t *testing.T) {
	want := string(readFile(t, filepath.Join("testdata", "model-reply.json")))
	bad := `{"episode": {"title": "no lists"}}`
	instant := llm.RetryPolicy{MaxRetries: 3, Sleep: func(context.Context, time.Duration) error { return nil }}
	for _, tc := range []struct {
		name   string
		server func(t *testing.T) *llmtest.Server
		open   func(e llm.Endpoint) llm.Provider
		model  string
		check  func(t *testing.T, body map[string]any)
	}{
		{"anthropic", func(t *testing.T) *llmtest.Server {
			return llmtest.NewAnthropic(t, llmtest.Failure(429, "1"), llmtest.Failure(500, ""), llmtest.AnthropicReply(bad), llmtest.AnthropicReply(want))
		}, func(e llm.Endpoint) llm.Provider { return llm.NewAnthropic(e) }, llmtest.AnthropicModel, func(t *testing.T, body map[string]any) {
			tools, _ := body["tools"].([]any)
			if len(tools) != 1 {
				t.Fatalf("tools: %v", body["tools"])
			}
			schema, _ := json.Marshal(tools[0].(map[string]any)["input_schema"])
			if !sameJSON(t, schema, Schema) {
				t.Errorf("the tool's input schema is not the extraction's")
			}
			if s, _ := body["system"].(string); s != systemPrompt {
				t.Errorf("system: %.80q…", body["system"])
			}
		}},
		{"openai", func(t *testing.T) *llmtest.Server {
			return llmtest.NewOpenAI(t, llmtest.Failure(429, "1"), llmtest.Failure(500, ""), llmtest.OpenAIReply(bad), llmtest.OpenAIReply(want))
		}, func(e llm.Endpoint) llm.Provider { return llm.NewOpenAI(e) }, llmtest.OpenAIModel, func(t *testing.T, body map[string]any) {
			rf, _ := body["response_format"].(map[string]any)
			js, _ := rf["json_schema"].(map[string]any)
			schema, _ := json.Marshal(js["schema"])
			if !sameJSON(t, schema, Schema) {
				t.Errorf("the response format's schema is not the extraction's: %v", body["response_format"])
			}
			msgs, _ := body["messages"].([]any)
			if len(msgs) == 0 || msgs[0].(map[string]any)["content"] != systemPrompt {
				t.Errorf("the first message is not the system prompt")
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.server(t)
			p := llm.WithSchema(llm.WithRetry(tc.open(llm.Endpoint{BaseURL: srv.BaseURL(), APIKey: "test-key", Model: "test-model"}), instant))
			v, ix := testVault(t)
			st := billing(t, v.Root())
			res, err := Run(t.Context(), Options{Vault: v, Store: st, Provider: p, Search: ix, Now: now, Loc: time.UTC})
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d requests, want 4 (429, 500, off the schema, good)", len(reqs))
			}
			tc.check(t, reqs[0].Body)
			prompts := srv.Prompts()
			if !strings.Contains(prompts[0], "<transcript>\n") || !strings.Contains(prompts[0], "[#0] Add a retry to the invoice sync job.") {
				t.Errorf("the prompt does not hold the transcript:\n%s", prompts[0])
			}
			if res.Run.Status != agent.StatusDone || res.Run.Provider != tc.name || res.Run.Usage.InputTokens == 0 || res.Run.Usage.OutputTokens == 0 {
				t.Errorf("run record: %+v", res.Run)
			}
			gittest.CheckClean(t, v.Root())
			golden.Check(t, filepath.Join("testdata", "http.vault.golden"), vaultDump(t, v), *update)
		})
	}
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}
