package llm

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/agent/llm/llmtest"
	"github.com/ctx0/ctx0/vault"
)

// writeConfig makes a vault whose .ctx0/config.yaml is text, and returns
// its root.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".ctx0"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".ctx0", "config.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// loadConfig reads the llm section of the config of the vault at root.
func loadConfig(root string) (Config, error) {
	f, err := vault.ReadConfig(root)
	if err != nil {
		return Config{}, err
	}
	return ParseConfig(f)
}

func TestLoadConfig(t *testing.T) {
	offline := Config{Provider: "offline", Timeout: DefaultTimeout, MaxRetries: DefaultMaxRetries}
	tests := []struct {
		name string
		yaml string
		want Config
	}{
		{"no section", "author:\n  name: Ada\n", offline},
		{"empty section", "llm:\n", offline},
		{"anthropic", "llm:\n  provider: anthropic\n", Config{
			Provider: "anthropic", Model: "claude-sonnet-4-5", APIKeyEnv: "ANTHROPIC_API_KEY", Timeout: DefaultTimeout, MaxRetries: DefaultMaxRetries}},
		{"all fields", `
llm:
  provider: anthropic
  model: claude-haiku-4-5
  base_url: https://proxy.example.com
  api_key_env: CTX0_KEY
  timeout: 45s
  max_retries: 0
  max_tokens: 2000
`, Config{Provider: "anthropic", Model: "claude-haiku-4-5", BaseURL: "https://proxy.example.com", APIKeyEnv: "CTX0_KEY",
			Timeout: 45 * time.Second, MaxRetries: 0, MaxTokens: 2000}},
		{"openai", "llm:\n  provider: openai\n", Config{
			Provider: "openai", Model: "gpt-4.1-mini", APIKeyEnv: "OPENAI_API_KEY", Timeout: DefaultTimeout, MaxRetries: DefaultMaxRetries}},
		{"ollama", "llm:\n  provider: openai\n  base_url: http://localhost:11434/v1\n  model: qwen3:8b\n", Config{
			Provider: "openai", Model: "qwen3:8b", BaseURL: "http://localhost:11434/v1", Timeout: DefaultTimeout, MaxRetries: DefaultMaxRetries}},
		{"command", "llm:\n  provider: command\n  command: [claude, -p, --model, sonnet]\n  timeout: 5m\n", Config{
			Provider: "command", Command: []string{"claude", "-p", "--model", "sonnet"}, Timeout: 5 * time.Minute, MaxRetries: DefaultMaxRetries}},
	}
	tests = append(tests, []struct {
		name string
		yaml string
		want Config
	}{
		// One line turns model filing on: no key, no command.
		{"claude-code", "llm:\n  provider: claude-code\n", Config{
			Provider: "claude-code", Model: "haiku", Timeout: DefaultCLITimeout, MaxRetries: DefaultMaxRetries}},
		{"codex", "llm:\n  provider: codex\n", Config{Provider: "codex", Timeout: DefaultCLITimeout, MaxRetries: DefaultMaxRetries}},
		{"claude-code elsewhere", "llm:\n  provider: claude-code\n  command: [/opt/claude/bin/claude]\n  model: sonnet\n  timeout: 90s\n", Config{
			Provider: "claude-code", Model: "sonnet", Command: []string{"/opt/claude/bin/claude"}, Timeout: 90 * time.Second, MaxRetries: DefaultMaxRetries}},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := loadConfig(writeConfig(t, tt.yaml))
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, %v\nwant %+v", got, err, tt.want)
			}
		})
	}
	t.Run("no file", func(t *testing.T) {
		if got, err := loadConfig(t.TempDir()); err != nil || !reflect.DeepEqual(got, offline) {
			t.Errorf("got %+v, %v", got, err)
		}
	})
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"provider", "llm:\n  provider: gemini\n", `llm: provider "gemini": want anthropic, openai, claude-code, codex, command or offline`},
		{"claude-code with a key", "llm:\n  provider: claude-code\n  api_key_env: ANTHROPIC_API_KEY\n", "llm: provider claude-code: runs the signed-in claude command line, which takes no base_url or api_key_env"},
		{"codex with a server", "llm:\n  provider: codex\n  base_url: http://localhost:8080/v1\n", "llm: provider codex: runs the signed-in codex command line"},
		{"command missing", "llm:\n  provider: command\n", "llm: command: provider command needs the program"},
		{"model missing for a server", "llm:\n  provider: openai\n  base_url: http://localhost:8080/v1\n", "llm: model:"},
		{"base_url", "llm:\n  provider: openai\n  model: m\n  base_url: localhost:8080\n", `llm: base_url "localhost:8080"`},
		{"timeout negative", "llm:\n  timeout: -1s\n", "llm: timeout -1s"},
		{"timeout unreadable", "llm:\n  timeout: soon\n", "config.yaml:2: llm: cannot unmarshal"},
		{"command a string", "llm:\n  provider: command\n  command: claude -p\n", "config.yaml:3: llm: cannot unmarshal"},
		{"misspelt", "llm:\n  modle: gpt-4o\n", `config.yaml:2: unknown key "modle" in llm`},
		{"a key in the file", "llm:\n  provider: openai\n  api_key: sk-proj-secret\n", "llm: api_key: line 3: keys are never read from this file"},
		{"not a mapping", "llm: anthropic\n", "config.yaml:1: llm: cannot unmarshal !!str `anthropic` into llm.Config"},
		{"max_retries", "llm:\n  max_retries: 50\n", "llm: max_retries 50: want 0 to 10"},
		{"max_tokens", "llm:\n  max_tokens: -5\n", "llm: max_tokens -5"},
		{"api_key_env holding a key", "llm:\n  provider: anthropic\n  api_key_env: sk-ant-api03-secret\n", "llm: api_key_env: want the name"},
		{"not yaml", "llm: [\n", "parse config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := writeConfig(t, tt.yaml)
			_, err := loadConfig(root)
			file := filepath.Join(root, ".ctx0", "config.yaml")
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), file) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v, want one line naming %s and saying %q", err, file, tt.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("the error repeats what may be a key: %v", err)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	tests := []struct {
		name  string
		cfg   Config
		env   map[string]string
		want  string // the provider's name and model, or a part of the error
		isErr bool
	}{
		{"nothing configured", Config{}, nil, "offline ", false},
		{"anthropic", Config{Provider: "anthropic"}, map[string]string{"ANTHROPIC_API_KEY": testKey}, "anthropic claude-sonnet-4-5", false},
		{"anthropic without key", Config{Provider: "anthropic"}, map[string]string{"OPENAI_API_KEY": testKey}, "$ANTHROPIC_API_KEY is not set", true},
		{"anthropic key elsewhere", Config{Provider: "anthropic", APIKeyEnv: "WORK_KEY"}, map[string]string{"ANTHROPIC_API_KEY": testKey}, "$WORK_KEY is not set", true},
		{"openai without key", Config{Provider: "openai"}, nil, "$OPENAI_API_KEY is not set", true},
		{"local server needs no key", Config{Provider: "openai", BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen3:8b"}, nil, "openai qwen3:8b", false},
		{"local server with a named key", Config{Provider: "openai", BaseURL: "http://127.0.0.1:8000/v1", Model: "m", APIKeyEnv: "VLLM_KEY"}, nil, "$VLLM_KEY is not set", true},
		{"command", Config{Provider: "command", Command: []string{"claude", "-p"}}, nil, "command ", false},
		{"bad config", Config{Provider: "command"}, nil, "llm config: command:", true},
		{"claude-code needs no key", Config{Provider: "claude-code"}, nil, "claude-code haiku", false},
		{"codex needs no key", Config{Provider: "codex", Model: "gpt-5-mini"}, nil, "codex gpt-5-mini", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Open(tt.cfg, env(tt.env))
			if tt.isErr {
				if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), testKey) {
					t.Errorf("got %v, want an error saying %q", err, tt.want)
				}
				return
			}
			if err != nil || p.Name()+" "+p.Model() != tt.want {
				t.Errorf("got %v, %v; want %s", p, err, tt.want)
			}
		})
	}
}

// TestOpenEndToEnd reads a vault's config and completes through what Open
// assembles, against a server speaking the Messages API.
func TestOpenEndToEnd(t *testing.T) {
	api := llmtest.NewAnthropic(t, llmtest.AnthropicReply(badReply), llmtest.AnthropicReply(goodReply))
	cfg, err := loadConfig(writeConfig(t, "llm:\n  provider: anthropic\n  base_url: "+api.BaseURL()+"\n  timeout: 10s\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Open(cfg, func(k string) string { return map[string]string{"ANTHROPIC_API_KEY": testKey}[k] })
	if err != nil {
		t.Fatal(err)
	}
	reply, err := p.Complete(t.Context(), testRequest())
	if err != nil || !jsonEqual(t, string(reply.JSON), goodReply) {
		t.Fatalf("got %s, %v", reply.JSON, err)
	}
	if want := usage(llmtest.AnthropicModel, 2*llmtest.InputTokens, 2*llmtest.OutputTokens); reply.Usage != want {
		t.Errorf("usage %+v, want %+v", reply.Usage, want)
	}
	if got := api.Requests(); len(got) != 2 || got[1].Header.Get("x-api-key") != testKey {
		t.Errorf("got %d requests", len(got))
	}
}
