package extractor

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/agent/llm"
)

// scriptedModel replies with its replies in turn, as a provider would;
// the providers themselves are the librarian's (agent/llm).
type scriptedModel struct {
	replies []string
	err     error
	asked   []llm.Request
}

func (s *scriptedModel) Complete(_ context.Context, req llm.Request) (llm.Reply, error) {
	s.asked = append(s.asked, req)
	if s.err != nil {
		return llm.Reply{}, s.err
	}
	if len(s.asked) > len(s.replies) {
		return llm.Reply{}, errors.New("no more replies")
	}
	return llm.Reply{JSON: json.RawMessage(s.replies[len(s.asked)-1])}, nil
}

var _ Model = (*scriptedModel)(nil)

func TestRetrieveWithModel(t *testing.T) {
	m := fixture(t)
	model := &scriptedModel{replies: []string{
		`{"searches": ["espresso", "coffee ratio"]}`,
		`{"summary": "Espresso: 18 g in, 36 g out.", "items": [{"n": 1, "passage": "18 g of coffee in, 36 g out, in 25 to 30 seconds.", "why": "the ratio asked for"}]}`,
	}}
	m.Model = model
	b, err := Retrieve(t.Context(), m, Request{Query: "how do I brew my coffee?", Budget: 300})
	if err != nil {
		t.Fatal(err)
	}
	checkBudget(t, b)
	if b.Plan.By != "model" || strings.Join(b.Plan.Searches, "|") != "espresso|coffee ratio" || b.Plan.Fallback != "" {
		t.Errorf("plan %+v", b.Plan)
	}
	if b.Summary != "Espresso: 18 g in, 36 g out." || len(b.Items) != 1 {
		t.Fatalf("bundle:\n%s", b.Text())
	}
	it := b.Items[0]
	if it.Name != "knowledge/espresso-ratio" || it.Passage != "18 g of coffee in, 36 g out, in 25 to 30 seconds." || !strings.Contains(it.Why, "the ratio asked for") {
		t.Errorf("item %+v", it)
	}
	if len(model.asked) != 2 || !strings.Contains(model.asked[1].Prompt, "[1] Espresso ratio") || len(model.asked[0].Schema) == 0 {
		t.Errorf("asked %+v", model.asked)
	}
}

// TestRetrieveModelFailsOver checks that any failure of the model, or a
// reply that is not what was asked for, gives the offline bundle, and
// says why.
func TestRetrieveModelFailsOver(t *testing.T) {
	for _, c := range []struct {
		name  string
		model *scriptedModel
		why   string
	}{
		{"error", &scriptedModel{err: errors.New("429 too many requests")}, "plan: 429 too many requests"},
		{"not json", &scriptedModel{replies: []string{"I would search for the key."}}, "plan: reply is not the JSON asked for"},
		{"no searches", &scriptedModel{replies: []string{`{"searches": []}`}}, "plan: want 1 to 4 searches"},
		{"unknown field", &scriptedModel{replies: []string{`{"searches": ["key"], "note": "x"}`}}, "plan: reply is not the JSON asked for"},
		{"bad item", &scriptedModel{replies: []string{`{"searches": ["deploy key"]}`, `{"summary": "s", "items": [{"n": 99, "passage": "p"}]}`}}, "condense: item 99"},
		{"empty summary", &scriptedModel{replies: []string{`{"searches": ["deploy key"]}`, `{"summary": "", "items": []}`}}, "condense: empty summary"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := fixture(t)
			m.Model = c.model
			b, err := Retrieve(t.Context(), m, Request{Query: "where is the staging deploy key?"})
			if err != nil {
				t.Fatal(err)
			}
			if b.Plan.By != "offline" || !strings.HasPrefix(b.Plan.Fallback, c.why) {
				t.Errorf("plan %+v, want a fallback for %q", b.Plan, c.why)
			}
			if len(b.Items) == 0 || b.Items[0].Name != "knowledge/staging-deploy-key" {
				t.Errorf("the offline bundle:\n%s", b.Text())
			}
		})
	}
}
