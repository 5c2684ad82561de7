package mcp

import (
	"strings"
	"testing"
	"time"

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
	body := strings.Join(all, "\n\n")
	if text := ok(t, cs, "memory", map[string]any{"command": "create", "path": "/memories/knowledge/keys.md", "file_text": body}); !strings.Contains(text, "Redacted before storing") {
		t.Errorf("create did not tell what it redacted: %s", text)
	}
	ok(t, cs, "memory", map[string]any{"command": "create", "path": "/memories/knowledge/plain.md", "file_text": "placeholder"})
	ok(t, cs, "memory", map[string]any{"command": "str_replace", "path": "/memories/knowledge/plain.md", "old_str": "placeholder", "new_str": body})
	ok(t, cs, "memory", map[string]any{"command": "insert", "path": "/memories/knowledge/plain.md", "insert_line": 0, "insert_text": body})
	if text := ok(t, cs, "memory", map[string]any{"command": "create", "path": "/memories/knowledge/keys.txt", "file_text": body}); !strings.Contains(text, "Redacted before storing") {
		t.Errorf("create of a text file did not tell what it redacted: %s", text)
	}
	ok(t, cs, "memory", map[string]any{"command": "rename", "old_path": "/memories/knowledge/plain.md", "new_path": "/memories/knowledge/plain.txt"})

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
