package llm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	{"anthropic", openAnthropic, usage("claude-sonnet-4-5-20250929", 1000, 500)},
	{"openai", openOpenAI, usage("gpt-4.1-mini-2025-04-14", 1000, 500)},
	{"command", openCommand, Usage{}},
}

func openAnthropic(t *testing.T, outputs ...string) (Provider, func() []string) {
	var answers []answer
	for _, o := range outputs {
		answers = append(answers, ok(anthropicBody(o)))
	}
	api := newFakeAPI(t, "/v1/messages", answers...)
	p := NewAnthropic(Endpoint{BaseURL: api.URL, APIKey: testKey, Model: "claude-sonnet-4-5"})
	return p, func() (prompts []string) {
		for _, r := range api.got() {
			prompts = append(prompts, fmt.Sprint(field(r.body, "messages", 0, "content")))
		}
		return prompts
	}
}

func openOpenAI(t *testing.T, outputs ...string) (Provider, func() []string) {
	var answers []answer
	for _, o := range outputs {
		answers = append(answers, ok(openaiBody(o)))
	}
	api := newFakeAPI(t, "/v1/chat/completions", answers...)
	p := NewOpenAI(Endpoint{BaseURL: api.URL + "/v1", Model: "gpt-4.1-mini"})
	return p, func() (prompts []string) {
		for _, r := range api.got() {
			msgs, _ := r.body["messages"].([]any)
			prompts = append(prompts, fmt.Sprint(field(msgs, len(msgs)-1, "content")))
		}
		return prompts
	}
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
