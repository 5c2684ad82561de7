package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx0/ctx0/eval/synthvault"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/vault"
)

var (
	mcpBenchOnce sync.Once
	mcpBenchDir  string
	mcpBenchErr  error
)

// mcpBenchVault is a generated 10,000-entry vault, made once per run
// ($CTX0_BENCH_VAULT names one to reuse).
func mcpBenchVault(b *testing.B) string {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("the generator commits with the git binary")
	}
	mcpBenchOnce.Do(func() {
		if mcpBenchDir = os.Getenv("CTX0_BENCH_VAULT"); mcpBenchDir != "" {
			return
		}
		dir, err := os.MkdirTemp("", "ctx0-mcp-bench-")
		if err != nil {
			mcpBenchErr = err
			return
		}
		mcpBenchDir = filepath.Join(dir, "vault")
		mcpBenchErr = synthvault.Generate(mcpBenchDir, 10000, 1000, 1)
	})
	if mcpBenchErr != nil {
		b.Fatal(mcpBenchErr)
	}
	return mcpBenchDir
}

// mcpBenchServer starts ctx0 mcp on the vault as an agent does (a process,
// stdio) and waits until its index is built and its watcher runs.
func mcpBenchServer(b *testing.B, dir string) (*sdk.ClientSession, *exec.Cmd) {
	b.Helper()
	cmd := exec.Command("ctx0", "--vault", dir, "mcp")
	cmd.Env = append(os.Environ(), "HOME="+b.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
	c := sdk.NewClient(&sdk.Implementation{Name: "ctx0-bench", Version: "1"}, nil)
	cs, err := c.Connect(b.Context(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	for range 3 { // the first calls build and check the index
		benchCall(b, cs, "search", map[string]any{"query": "deploy"})
	}
	return cs, cmd
}

func benchCall(b *testing.B, cs *sdk.ClientSession, tool string, args map[string]any) {
	res, err := cs.CallTool(b.Context(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		b.Fatal(err)
	}
	if res.IsError {
		b.Fatalf("%s: %v", tool, res.Content[0].(*sdk.TextContent).Text)
	}
}

// BenchmarkMCPStdio is one tool call's round trip, client to ctx0 mcp
// process and back over stdio, at 10,000 entries, with the server's
// watcher keeping the index fresh.
func BenchmarkMCPStdio(b *testing.B) {
	dir := mcpBenchVault(b)
	cs, _ := mcpBenchServer(b, dir)
	name := firstEntry(b, dir)
	for _, c := range []struct {
		name string
		tool string
		args map[string]any
	}{
		{"search", "search", map[string]any{"query": "deploy staging"}},
		{"show", "show", map[string]any{"name": name}},
		{"memory-view", "memory", map[string]any{"command": "view", "path": "/memories/" + name + ".md"}},
		{"retrieve", "retrieve", map[string]any{"query": "how do we deploy staging?", "budget": 1000}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				benchCall(b, cs, c.tool, c.args)
			}
		})
	}
	// Baselines in the same run: the same search in this process, with no
	// protocol between, and as the command line runs it, a process each.
	b.Run("baseline-in-process-search", func(b *testing.B) {
		v, err := vault.Open(b.Context(), dir)
		if err != nil {
			b.Fatal(err)
		}
		ix, err := index.Open(b.Context(), v)
		if err != nil {
			b.Fatal(err)
		}
		defer ix.Close()
		for b.Loop() {
			if _, err := ix.Search(b.Context(), index.Query{Text: "deploy staging"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline-ctx0-search-process", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("ctx0", "--vault", dir, "search", "deploy", "staging")
			cmd.Env = append(os.Environ(), "HOME="+b.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
}

// BenchmarkMCPStdioMemory makes 10,000 tool calls to one ctx0 mcp process
// and reports its resident memory after the first 1,000 and after all of
// them: it must stay flat.
func BenchmarkMCPStdioMemory(b *testing.B) {
	dir := mcpBenchVault(b)
	name := firstEntry(b, dir)
	for b.Loop() {
		cs, cmd := mcpBenchServer(b, dir)
		calls := []struct {
			tool string
			args map[string]any
		}{
			{"search", map[string]any{"query": "deploy staging"}},
			{"show", map[string]any{"name": name}},
			{"memory", map[string]any{"command": "view", "path": "/memories/" + name + ".md"}},
			{"search", map[string]any{"query": "rollback OR release", "limit": 20}},
		}
		var rss1k float64
		for i := range 10000 {
			c := calls[i%len(calls)]
			benchCall(b, cs, c.tool, c.args)
			if i == 999 {
				rss1k = rssMB(b, cmd.Process.Pid)
			}
		}
		rss10k := rssMB(b, cmd.Process.Pid)
		b.ReportMetric(rss1k, "rss-MB-after-1k")
		b.ReportMetric(rss10k, "rss-MB-after-10k")
		cs.Close()
	}
}

// rssMB is the resident memory of a process, from /proc.
func rssMB(b *testing.B, pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

// firstEntry is the name of an entry of the vault.
func firstEntry(b *testing.B, dir string) string {
	matches, err := filepath.Glob(filepath.Join(dir, "knowledge", "*.md"))
	if err != nil || len(matches) == 0 {
		b.Fatalf("no entries in %s/knowledge: %v", dir, err)
	}
	rel, _ := filepath.Rel(dir, matches[0])
	return strings.TrimSuffix(filepath.ToSlash(rel), ".md")
}
