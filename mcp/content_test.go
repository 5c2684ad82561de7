package mcp

import (
	"strings"
	"testing"
)

// TestToolsRefuseWhatReadsRefuse: a NUL byte or a body over the entry
// limit is refused by remember and by every write of the memory tool, as
// a tool error, and nothing is committed.
func TestToolsRefuseWhatReadsRefuse(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.MemoryMaxChars = 4 << 20 })
	cs := f.connect(t)
	ok(t, cs, "memory", map[string]any{"command": "create", "path": "/memories/knowledge/plain.md", "file_text": "placeholder"})
	before := commits(t, f.v.Root())
	large := strings.Repeat("x", 2<<20)
	for _, c := range []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"remember NUL", "remember", map[string]any{"content": "a\x00b"}, "binary content"},
		{"create NUL", "memory", map[string]any{"command": "create", "path": "/memories/knowledge/zero.md", "file_text": "a\x00b"}, "binary content"},
		{"create large", "memory", map[string]any{"command": "create", "path": "/memories/knowledge/big.md", "file_text": large}, "too large"},
		{"create NUL text file", "memory", map[string]any{"command": "create", "path": "/memories/knowledge/zero.txt", "file_text": "a\x00b"}, "binary content"},
		{"create large text file", "memory", map[string]any{"command": "create", "path": "/memories/knowledge/big.txt", "file_text": large}, "too large"},
		{"str_replace NUL", "memory", map[string]any{"command": "str_replace", "path": "/memories/knowledge/plain.md", "old_str": "placeholder", "new_str": "a\x00b"}, "binary content"},
		{"insert large", "memory", map[string]any{"command": "insert", "path": "/memories/knowledge/plain.md", "insert_line": 0, "insert_text": large}, "too large"},
	} {
		t.Run(c.name, func(t *testing.T) { fails(t, cs, c.tool, c.args, c.want) })
	}
	if n := commits(t, f.v.Root()); n != before {
		t.Errorf("refused writes made %d commits", n-before)
	}
}
