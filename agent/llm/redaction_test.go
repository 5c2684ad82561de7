package llm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/redact/redacttest"
)

// TestOpenRedactsPrompts: a provider as Open makes it (here the command
// provider, running a program that keeps its stdin) never receives a
// secret of the corpus, in the system text or the prompt, and receives
// the near-misses as they were.
func TestOpenRedactsPrompts(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "output-0"), []byte(goodReply), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Open(Config{Provider: "command", Command: []string{os.Args[0], helperArg, "script", dir}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	secrets, keeps := redacttest.Corpus(t)
	var texts []string
	for _, c := range append(secrets, keeps...) {
		texts = append(texts, c.Text)
	}
	r := testRequest()
	r.System = secrets[0].Text
	r.Prompt = strings.Join(texts, "\n\n")
	if _, err := p.Complete(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	prompts := helperPrompts(t, dir)
	if len(prompts) != 1 {
		t.Fatalf("the program ran %d times", len(prompts))
	}
	for _, c := range secrets {
		if s := c.Leaks(prompts[0]); s != "" {
			t.Errorf("%s: the provider received %q", c.Name, s)
		}
	}
	for _, c := range keeps {
		if !strings.Contains(prompts[0], c.Text) {
			t.Errorf("%s: the provider did not receive %q as it was", c.Name, c.Text)
		}
	}
}
