package curator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/agent"
	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/agent/llm/llmtest"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/vault"
)

// modelVault holds two entries about one person that no offline rule
// calls the same (the model is asked: a title within the other's), one
// about someone else, and settings that make a summary due.
func modelVault(t *testing.T) (*vault.Vault, *index.Index, *clock) {
	t.Helper()
	v, c := testVault(t)
	if _, err := v.EditSettings(t.Context(), "config.yaml", "settings", func([]byte) ([]byte, error) {
		// Two: the contacts left after the merge (me.md, still its
		// template, is never summarized).
		return []byte("curator:\n  summarize_after: 2\n"), nil
	}); err != nil {
		t.Fatal(err)
	}
	put(t, v, "contacts/chen", "---\ntitle: Chen\ntype: contact\nsource: librarian\ncreated: 2026-04-02T09:00:00Z\n---\nS. Chen from the fund; answers email within a day.\n")
	put(t, v, "contacts/sarah-chen", "---\ntitle: Sarah Chen\ntype: contact\nsource: user\ncreated: 2026-04-01T09:00:00Z\n---\nPartner at Example Ventures, leads the fund's seed deals.\n")
	put(t, v, "contacts/diego-ramos", "---\ntitle: Diego Ramos\ntype: contact\nsource: user\ncreated: 2026-04-01T09:00:00Z\n---\nAssistant at Example Ventures.\n")
	ix, err := index.Open(t.Context(), v, index.WithClock(c.Now))
	if err != nil {
		t.Fatal(err)
	}
	v.SetCatalog(ix)
	t.Cleanup(func() { ix.Close() })
	return v, ix, c
}

// TestModelOverHTTP asks a model over both APIs' wire formats: it is
// given the candidate pairs found by name and search, quoted, with the
// schema; the pair it calls the same merges into the entry it keeps, and
// of a pair it calls related the newer entry links the older;
// the summary is its text; the run's record names the provider and
// counts the tokens.
func TestModelOverHTTP(t *testing.T) {
	instant := llm.RetryPolicy{MaxRetries: 3, Sleep: func(context.Context, time.Duration) error { return nil }}
	decision := `{"pairs":[{"pair":1,"same":true,"related":false,"keep":"b","why":"both are Sarah Chen of Example Ventures"},{"pair":2,"same":false,"related":false,"keep":"a","why":"no"},{"pair":3,"same":false,"related":true,"keep":"a","why":"Diego Ramos assists Sarah Chen"},{"pair":7,"same":true,"related":false,"keep":"a","why":"a pair it was not asked about"}]}`
	summary := `{"summary":"The user works with Sarah Chen, a partner at Example Ventures, and her assistant Diego Ramos."}`
	for _, tc := range []struct {
		name string
		srv  func(t *testing.T) *llmtest.Server
		open func(e llm.Endpoint) llm.Provider
	}{
		{"anthropic", func(t *testing.T) *llmtest.Server {
			return llmtest.NewAnthropic(t, llmtest.Failure(529, ""), llmtest.AnthropicReply(decision), llmtest.AnthropicReply(summary))
		}, func(e llm.Endpoint) llm.Provider { return llm.NewAnthropic(e) }},
		{"openai", func(t *testing.T) *llmtest.Server {
			return llmtest.NewOpenAI(t, llmtest.Failure(429, "1"), llmtest.OpenAIReply(decision), llmtest.OpenAIReply(summary))
		}, func(e llm.Endpoint) llm.Provider { return llm.NewOpenAI(e) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, ix, c := modelVault(t)
			srv := tc.srv(t)
			p := llm.WithSchema(llm.WithRetry(tc.open(llm.Endpoint{BaseURL: srv.BaseURL(), APIKey: "test-key", Model: "test-model"}), instant))
			res, err := Run(t.Context(), Options{Vault: v, Provider: p, Search: ix, Now: c.Now})
			if err != nil {
				t.Fatal(err)
			}
			if res.Run.Status != agent.StatusDone || res.Run.Provider != tc.name || res.Run.Usage.InputTokens == 0 {
				t.Errorf("run record: %+v", res.Run)
			}
			prompts := srv.Prompts()
			if len(prompts) < 2 {
				t.Fatalf("%d requests", len(prompts))
			}
			if !strings.Contains(prompts[0], "<<<entry a: contacts/chen") || !strings.Contains(prompts[0], "<<<entry b: contacts/sarah-chen") {
				t.Errorf("the decision request lacks the pair:\n%s", prompts[0])
			}
			if !strings.Contains(prompts[len(prompts)-1], "Summarize these memories") {
				t.Errorf("the last request is not the summary's:\n%s", prompts[len(prompts)-1])
			}
			files := entryFiles(t, v)
			if _, ok := files["contacts/chen.md"]; ok {
				t.Error("contacts/chen was not merged")
			}
			if s := files["contacts/sarah-chen.md"]; !strings.Contains(s, "answers email within a day") || !strings.Contains(s, "contacts/chen") {
				t.Errorf("contacts/sarah-chen:\n%s", s)
			}
			if _, ok := files["contacts/diego-ramos.md"]; !ok {
				t.Error("the pair the model was not asked about merged")
			}
			var sum string
			for p, data := range files {
				if strings.HasPrefix(p, "summaries/") {
					sum = data
				}
			}
			if !strings.Contains(sum, "The user works with Sarah Chen") || !strings.Contains(sum, "type: summary") {
				t.Errorf("summary:\n%s", sum)
			}
			if s := files["contacts/sarah-chen.md"]; !strings.Contains(s, "contacts/diego-ramos") {
				t.Errorf("contacts/sarah-chen does not link the related contacts/diego-ramos:\n%s", s)
			}
			merged, linked := false, false
			for _, c := range res.Changes {
				merged = merged || c.Kind == KindMerge && strings.Contains(c.Why, "the model judged them the same: both are Sarah Chen")
				linked = linked || c.Kind == KindLink && c.Entry == "contacts/sarah-chen" && c.Other == "contacts/diego-ramos" && strings.Contains(c.Why, "the model judged them related")
			}
			if !merged || !linked {
				t.Errorf("changes:\n%s", changeLines(res))
			}
		})
	}
}

// TestModelFails leaves what the model was to decide for the next run:
// nothing merges on its word, no summary is written, the rest of the run
// is done, and the run says why.
func TestModelFails(t *testing.T) {
	v, ix, c := modelVault(t)
	srv := llmtest.NewAnthropic(t, llmtest.Failure(400, ""))
	p := llm.WithSchema(llm.NewAnthropic(llm.Endpoint{BaseURL: srv.BaseURL(), APIKey: "k", Model: "m"}))
	res, err := Run(t.Context(), Options{Vault: v, Provider: p, Search: ix, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	files := entryFiles(t, v)
	if _, ok := files["contacts/chen.md"]; !ok {
		t.Error("merged without the model's word")
	}
	for p := range files {
		if strings.HasPrefix(p, "summaries/") {
			t.Errorf("summary %s written without the model", p)
		}
	}
	notes := strings.Join(res.Notes, "\n")
	if !strings.Contains(notes, "left for the next run") || !strings.Contains(notes, "left to summarize on the next run") {
		t.Errorf("notes: %s", notes)
	}
}
