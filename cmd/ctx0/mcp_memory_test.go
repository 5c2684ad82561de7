package main

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpFails calls a tool that must answer with a tool error, and returns it.
func mcpFails(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if !res.IsError {
		t.Fatalf("%s %v: want a tool error, got: %s", tool, args, text)
	}
	return text
}

// TestMCPStdioMemoryTool: issue 32's cases as an agent meets them, over
// ctx0 mcp's stdio: two names are two files, create does not overwrite,
// delete takes a folder out of the view in one commit, and history keeps it.
func TestMCPStdioMemoryTool(t *testing.T) {
	dir := newVault(t)
	cs := mcpClient(t, dir)
	mem := func(args map[string]any) string { t.Helper(); return mcpCall(t, cs, "memory", args) }
	mem(map[string]any{"command": "create", "path": "/memories/a_b.txt", "file_text": "first file"})
	mem(map[string]any{"command": "create", "path": "/memories/a-b.txt", "file_text": "second file"})
	if got := mem(map[string]any{"command": "view", "path": "/memories/a_b.txt"}); got != "Here's the content of /memories/a_b.txt with line numbers:\n     1\tfirst file" {
		t.Errorf("view a_b.txt: %q", got)
	}
	if got := mcpFails(t, cs, "memory", map[string]any{"command": "create", "path": "/memories/a_b.txt", "file_text": "again"}); got != "File /memories/a_b.txt already exists" {
		t.Errorf("create over a file: %q", got)
	}
	mem(map[string]any{"command": "create", "path": "/memories/notes/Project_Plan.md", "file_text": "plan"})
	mem(map[string]any{"command": "create", "path": "/memories/notes/todo.txt", "file_text": "todo"})
	before := strings.Count(gitOut(t, dir, "log", "--oneline"), "\n")
	if got := mem(map[string]any{"command": "delete", "path": "/memories/notes"}); got != "Successfully deleted /memories/notes" {
		t.Errorf("delete: %q", got)
	}
	if got := strings.Count(gitOut(t, dir, "log", "--oneline"), "\n") - before; got != 1 {
		t.Errorf("deleting a folder of two files made %d commits", got)
	}
	listing := mem(map[string]any{"command": "view", "path": "/memories"})
	for _, want := range []string{"\t/memories/a_b.txt\n", "\t/memories/a-b.txt\n"} {
		if !strings.Contains(listing, want) {
			t.Errorf("the listing lacks %q:\n%s", want, listing)
		}
	}
	if strings.Contains(listing, "notes") || strings.Contains(listing, "Project_Plan") {
		t.Errorf("the deleted folder is still listed:\n%s", listing)
	}
	if got := gitOut(t, dir, "show", "HEAD~1:notes/todo.txt"); got != "todo" {
		t.Errorf("history lost the deleted file: %q", got)
	}
	gitOut(t, dir, "fsck", "--strict")
	if st := gitOut(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status:\n%s", st)
	}
}
