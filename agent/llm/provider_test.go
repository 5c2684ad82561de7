package llm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/agent/llm/llmtest"
)

// backend is a provider talking to a real server or program that answers
// each request with the next of the given model outputs (JSON objects).
type backend struct {
	name string
	open func(t *testing.T, outputs ...string) (p Provider, prompts func() []string)
	// usage is what one completion is reported to cost.
	usage Usage
}

var backends = []backend{
	{"anthropic", openAnthropic, usage(llmtest.AnthropicModel, llmtest.InputTokens, llmtest.OutputTokens)},
	{"openai", openOpenAI, usage(llmtest.OpenAIModel, llmtest.InputTokens, llmtest.OutputTokens)},
	{"command", openCommand, Usage{}},
	{"claude-code", openClaudeCode, claudeUsage},
	{"codex", openCodex, codexUsage},
}

func openAnthropic(t *testing.T, outputs ...string) (Provider, func() []string) {
	var answers []llmtest.Answer
	for _, o := range outputs {
		answers = append(answers, llmtest.AnthropicReply(o))
	}
	api := llmtest.NewAnthropic(t, answers...)
	return NewAnthropic(Endpoint{BaseURL: api.BaseURL(), APIKey: testKey, Model: "claude-sonnet-4-5"}), api.Prompts
}

func openOpenAI(t *testing.T, outputs ...string) (Provider, func() []string) {
	var answers []llmtest.Answer
	for _, o := range outputs {
		answers = append(answers, llmtest.OpenAIReply(o))
	}
	api := llmtest.NewOpenAI(t, answers...)
	return NewOpenAI(Endpoint{BaseURL: api.BaseURL(), Model: "gpt-4.1-mini"}), api.Prompts
}

// openCommand runs this test binary as the program (see runHelper), which
// wraps each output in prose and a fence as chatty models do.
func openCommand(t *testing.T, outputs ...string) (Provider, func() []string) {
	dir := t.TempDir()
	for i, o := range outputs {
		text := "Here is the extraction:\n```json\n" + o + "\n```\nLet me know if you need more."
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint("output-", i)), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := NewCommand([]string{os.Args[0], helperArg, "script", dir}, "test-model", 0)
	return p, func() []string { return helperPrompts(t, dir) }
}

// TestProviders is the contract every provider keeps.
func TestProviders(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Run("reply", func(t *testing.T) {
				p, prompts := b.open(t, goodReply)
				reply, err := p.Complete(t.Context(), testRequest())
				if err != nil {
					t.Fatal(err)
				}
				if p.Name() != b.name || !jsonEqual(t, string(reply.JSON), goodReply) || reply.Model == "" || reply.Usage != b.usage {
					t.Errorf("%s: got %+v with JSON %s", p.Name(), reply, reply.JSON)
				}
				if got := prompts(); len(got) != 1 || !strings.Contains(got[0], testRequest().Prompt) {
					t.Errorf("prompts: got %q", got)
				}
			})
			t.Run("schema mismatch then match", func(t *testing.T) {
				p, prompts := b.open(t, badReply, goodReply)
				reply, err := WithSchema(p).Complete(t.Context(), testRequest())
				if err != nil {
					t.Fatal(err)
				}
				if !jsonEqual(t, string(reply.JSON), goodReply) || reply.Usage != b.usage.Add(b.usage) {
					t.Errorf("got %+v with JSON %s", reply, reply.JSON)
				}
				got := prompts()
				if len(got) != 2 || strings.Contains(got[0], "rejected") || !contains(got[1], testRequest().Prompt, "rejected", "missing properties", "facts") {
					t.Errorf("prompts: got %q", got)
				}
			})
			t.Run("schema mismatch twice", func(t *testing.T) {
				p, prompts := b.open(t, badReply, badReply, goodReply)
				reply, err := WithSchema(p).Complete(t.Context(), testRequest())
				var se *SchemaError
				if !errors.As(err, &se) || se.Provider != b.name || !contains(err.Error(), b.name, "extraction", "facts") {
					t.Fatalf("got error %v, want a schema error naming the provider and the violation", err)
				}
				if reply.JSON != nil || reply.Usage != b.usage.Add(b.usage) {
					t.Errorf("got %+v", reply)
				}
				if n := len(prompts()); n != 2 {
					t.Errorf("asked %d times, want 2", n)
				}
			})
			t.Run("wrong type", func(t *testing.T) {
				p, _ := b.open(t, `{"summary": 3, "facts": []}`)
				_, err := WithSchema(p).Complete(t.Context(), testRequest())
				if !contains(fmt.Sprint(err), "summary", "string") {
					t.Errorf("got %v", err)
				}
			})
		})
	}
}

func TestOffline(t *testing.T) {
	p, err := Open(Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Complete(t.Context(), testRequest()); p.Name() != "offline" || p.Model() != "" || !errors.Is(err, ErrOffline) {
		t.Errorf("got %s, %v", p.Name(), err)
	}
}

func TestWithSchemaRequests(t *testing.T) {
	tests := []struct {
		name, schema string
		want         error
		says         string
	}{
		{"schema not JSON", `{"type":`, nil, "offline: schema extraction:"},
		{"schema unresolvable", `{"$ref":"https://example.com/other.json"}`, nil, "offline: schema extraction:"},
		{"provider errors pass", testSchema, ErrOffline, "offline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := testRequest()
			r.Schema = []byte(tt.schema)
			_, err := WithSchema(Offline{}).Complete(t.Context(), r)
			var se *SchemaError
			if err == nil || !strings.Contains(err.Error(), tt.says) || errors.As(err, &se) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("got %v", err)
			}
		})
	}
}
