package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx0/ctx0/redact/redacttest"
)

// TestToolsRedact: the secrets of the corpus, sent through the remember
// tool and the memory tool's create (of an entry and of a text file),
// str_replace and insert, reach no
// commit, no name and no file, and the agent is told what was redacted.
func TestToolsRedact(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.RememberRate = Rate{N: 1000, Per: time.Minute}
		o.RememberClientRate = Rate{N: 1000, Per: time.Minute}
	})
	cs := f.connect(t)
	secrets, _ := redacttest.Corpus(t)
	var all []string
	for _, c := range secrets {
		text := ok(t, cs, "remember", map[string]any{"content": c.Text})
		if !strings.Contains(text, "Redacted before storing") && !strings.Contains(text, "Already in memory") {
			t.Errorf("%s: remember did not tell what it redacted: %s", c.Name, text)
		}
		all = append(all, c.Text)
	}
	// A memory file has a size limit: the corpus goes in a few parts.
	for i, body := range chunks(all, 6000) {
		keys := fmt.Sprintf("/memories/knowledge/keys-%d", i)
		plain := fmt.Sprintf("/memories/knowledge/plain-%d", i)
		if text := ok(t, cs, "memory", map[string]any{"command": "create", "path": keys + ".md", "file_text": body}); !strings.Contains(text, "Redacted before storing") {
			t.Errorf("create did not tell what it redacted: %s", text)
		}
		ok(t, cs, "memory", map[string]any{"command": "create", "path": plain + ".md", "file_text": "placeholder"})
		ok(t, cs, "memory", map[string]any{"command": "str_replace", "path": plain + ".md", "old_str": "placeholder", "new_str": body})
		ok(t, cs, "memory", map[string]any{"command": "insert", "path": plain + ".md", "insert_line": 0, "insert_text": body})
		if text := ok(t, cs, "memory", map[string]any{"command": "create", "path": keys + ".txt", "file_text": body}); !strings.Contains(text, "Redacted before storing") {
			t.Errorf("create of a text file did not tell what it redacted: %s", text)
		}
		ok(t, cs, "memory", map[string]any{"command": "rename", "old_path": plain + ".md", "new_path": plain + ".txt"})
	}

	dir := f.v.Root()
	stored := git(t, dir, "log", "--all", "-p", "--format=%H%n%B") + git(t, dir, "ls-files")
	for _, c := range secrets {
		if s := c.Leaks(stored); s != "" {
			t.Errorf("%s: git holds %q", c.Name, s)
		}
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status:\n%s", st)
	}
}

// chunks joins texts with blank lines into parts of at most about n bytes.
func chunks(texts []string, n int) []string {
	var out []string
	var b strings.Builder
	for _, t := range texts {
		if b.Len() > 0 && b.Len()+len(t) > n {
			out = append(out, b.String())
			b.Reset()
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(t)
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// TestAnswersRedact: an entry a person committed by hand, secrets and
// all, comes out of every answer redacted (show, the memory tool's view,
// retrieve, the entry resource), while the near-misses in it come out as
// they were.
func TestAnswersRedact(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	secrets, keeps := redacttest.Corpus(t)
	dir := f.v.Root()
	var texts []string
	for _, c := range secrets {
		texts = append(texts, c.Text)
	}
	parts := chunks(texts, 6000)
	var near []string
	for _, c := range keeps {
		near = append(near, c.Text)
	}
	parts = append(parts, strings.Join(near, "\n\n"))
	for i, body := range parts {
		p := filepath.Join(dir, "knowledge", fmt.Sprintf("by-hand-%d.md", i))
		if err := os.WriteFile(p, []byte("---\ntitle: Ops notes "+fmt.Sprint(i)+"\ntype: note\n---\n"+body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "add", "knowledge")
	git(t, dir, "commit", "-q", "-m", "by hand")
	if _, err := f.ix.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	var answers strings.Builder
	for i := range parts {
		name := fmt.Sprintf("knowledge/by-hand-%d", i)
		answers.WriteString(ok(t, cs, "show", map[string]any{"name": name}))
		answers.WriteString(ok(t, cs, "memory", map[string]any{"command": "view", "path": "/memories/" + name + ".md"}))
		rr, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "ctx0://entry/" + name})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range rr.Contents {
			answers.WriteString(c.Text)
		}
	}
	answers.WriteString(ok(t, cs, "retrieve", map[string]any{"query": "ops notes password token key"}))
	got := answers.String()
	for _, c := range secrets {
		if s := c.Leaks(got); s != "" {
			t.Errorf("%s: an answer holds %q", c.Name, s)
		}
	}
	shown := ok(t, cs, "show", map[string]any{"name": fmt.Sprintf("knowledge/by-hand-%d", len(parts)-1)})
	for _, c := range keeps {
		if !strings.Contains(shown, c.Text) {
			t.Errorf("%s: show did not answer %q as it was", c.Name, c.Text)
		}
	}
}
