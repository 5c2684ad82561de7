package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpClient starts ctx0 mcp on the vault as an agent does, a real process
// speaking over its stdin and stdout, and connects the SDK's client to it.
func mcpClient(t *testing.T, dir string) *sdk.ClientSession {
	t.Helper()
	cmd := ctx0Cmd(t, dir, "mcp")
	c := sdk.NewClient(&sdk.Implementation{Name: "ctx0-test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func mcpCall(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if res.IsError {
		t.Fatalf("%s %v: tool error: %s", tool, args, text)
	}
	return text
}

// TestMCPStdio: two agents, each with its own ctx0 mcp process on one
// vault, write at once over stdio; nothing is lost, each write is a
// commit, and git finds the repository sound.
func TestMCPStdio(t *testing.T) {
	dir := newVault(t)
	a, b := mcpClient(t, dir), mcpClient(t, dir)
	mcpCall(t, a, "memory", map[string]any{"command": "create", "path": "/memories/logs/both.md", "file_text": "# Both"})
	before := strings.Count(gitOut(t, dir, "log", "--oneline"), "\n")
	// Each client has its own server process. Their edits are commits of
	// their own; a remember that finds the other process holding the lock
	// may join that process's commit (the queue beside the lock), with a
	// line of its own in the message.
	const each, facts = 5, 2
	var wg sync.WaitGroup
	for c, cs := range []*sdk.ClientSession{a, b} {
		wg.Go(func() {
			for i := range each {
				if i < facts {
					mcpCall(t, cs, "remember", map[string]any{"content": fmt.Sprintf("Agent %d learned fact %d about billing.", c, i)})
				}
				mcpCall(t, cs, "memory", map[string]any{"command": "insert", "path": "/memories/logs/both.md", "insert_line": 1, "insert_text": fmt.Sprintf("agent %d note %d", c, i)})
			}
		})
	}
	wg.Wait()
	if got := strings.Count(gitOut(t, dir, "log", "--oneline"), "\n") - before; got < 2*each || got > 2*(each+facts) {
		t.Errorf("%d commits for %d edits and %d remembers", got, 2*each, 2*facts)
	}
	remembered := 0
	for _, line := range strings.Split(gitOut(t, dir, "log", "--format=%B"), "\n") {
		if strings.HasPrefix(line, "remember ") {
			remembered++
		}
	}
	if remembered != 2*facts {
		t.Errorf("%d remember lines in git log, want %d", remembered, 2*facts)
	}
	gitOut(t, dir, "fsck", "--strict")
	if st := gitOut(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status:\n%s", st)
	}
	view := mcpCall(t, b, "memory", map[string]any{"command": "view", "path": "/memories/logs/both.md"})
	for c := range 2 {
		for i := range each {
			if !strings.Contains(view, fmt.Sprintf("\tagent %d note %d", c, i)) {
				t.Errorf("lost agent %d's note %d:\n%s", c, i, view)
			}
		}
		// What one process wrote, the other finds.
		found := mcpCall(t, a, "search", map[string]any{"query": fmt.Sprintf("\"agent %d learned\"", c), "limit": 20})
		if n := strings.Count(found, "score"); n != facts {
			t.Errorf("agent %d: %d of %d facts found:\n%s", c, n, facts, found)
		}
	}
	// A file written with plain file tools while the servers run is found:
	// the index follows the files.
	if err := os.WriteFile(filepath.Join(dir, "knowledge", "by-hand.md"), []byte("---\ntitle: By hand\ntype: note\n---\nThe zeppelin hangar key is under the mat.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cs := range []*sdk.ClientSession{a, b} {
		if found := mcpCall(t, cs, "search", map[string]any{"query": "zeppelin"}); !strings.Contains(found, "knowledge/by-hand") {
			t.Errorf("a file written by hand is not found: %s", found)
		}
	}
}

// TestMCPHTTP: ctx0 mcp --http as a process, on a port of its choosing on
// 127.0.0.1, reached by the SDK's streamable HTTP client.
func TestMCPHTTP(t *testing.T) {
	dir := newVault(t)
	cmd := ctx0Cmd(t, dir, "mcp", "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`).FindString(sc.Text()); m != "" {
				urls <- m
			}
		}
		close(urls)
	}()
	url, ok := <-urls
	if !ok {
		t.Fatal("the server did not say where it listens")
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "ctx0-test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	out := mcpCall(t, cs, "remember", map[string]any{"content": "The HTTP server remembers too."})
	name := strings.TrimSuffix(strings.TrimPrefix(out, "Saved as "), ".")
	if found := mcpCall(t, cs, "search", map[string]any{"query": "http server"}); !strings.Contains(found, name) {
		t.Errorf("search over HTTP: %s", found)
	}
	gitOut(t, dir, "fsck", "--strict")
}

// TestMCPRememberLimitAcrossProcesses: the per-vault remember limit (5 a
// minute here, from the vault's config) holds across processes, so a
// client that restarts its stdio server, or starts a second one, does not
// get a new budget.
func TestMCPRememberLimitAcrossProcesses(t *testing.T) {
	dir := newVault(t)
	cfg := filepath.Join(dir, ".ctx0", "config.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "per_vault_per_minute: 600", "per_vault_per_minute: 5", 1))
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	gitOut(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "five remembers a minute")
	first := mcpClient(t, dir)
	for i := range 5 {
		mcpCall(t, first, "remember", map[string]any{"content": fmt.Sprintf("Fact %d about the invoicing service.", i)})
	}
	first.Close() // the server process exits with its client
	for _, cs := range []*sdk.ClientSession{mcpClient(t, dir), mcpClient(t, dir)} {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "remember", Arguments: map[string]any{"content": "One fact too many."}})
		if err != nil {
			t.Fatal(err)
		}
		if text := res.Content[0].(*sdk.TextContent).Text; !res.IsError || !strings.Contains(text, "remember.per_vault_per_minute") {
			t.Errorf("a new server process took a sixth remember: %s", text)
		}
	}
}
