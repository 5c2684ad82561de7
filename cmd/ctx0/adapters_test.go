package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx0/ctx0/index/query"
)

// TestAdaptersAgree: the CLI and the MCP server accept and refuse the
// same search, retrieve and context requests, and answer the ones they accept
// alike; each reads the question of a request once (query.Parse). Both
// run in this process on one vault, the CLI through its command line
// (run), the MCP server as ctx0 mcp builds it, with a real client over the
// SDK's in-memory transport.
func TestAdaptersAgree(t *testing.T) {
	dir := newVault(t)
	// Learned a week before the requests' now: what a question about the
	// past finds happened before it.
	t.Setenv("CTX0_NOW", "2026-11-20T10:00:00Z")
	for _, fact := range []string{
		"Sarah Chen prefers email over phone calls for scheduling.",
		"We decided to bill customers monthly, not yearly.",
		"The staging deploy key lives in the team vault.",
	} {
		if out, err := ctx0Cmd(t, dir, "remember", "--type", "fact", fact).CombinedOutput(); err != nil {
			t.Fatalf("remember: %v\n%s", err, out)
		}
	}
	const now = "2026-11-28T10:00:00Z"
	t.Setenv("CTX0_NOW", now)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	at, _ := time.Parse(time.RFC3339, now)
	cs := inProcessMCP(t, dir, at)

	for _, tc := range []struct {
		name string
		cli  []string       // the command line after --vault DIR
		tool string         // the MCP tool
		args map[string]any // its arguments
		ok   bool           // accepted
	}{
		{"search", []string{"search", "--json", "sarah email"}, "search", map[string]any{"query": "sarah email"}, true},
		{"search in a time said in words", []string{"search", "--json", "billing last week"}, "search", map[string]any{"query": "billing last week"}, true},
		{"search, limit 0 is the default", []string{"search", "--json", "--limit", "0", "deploy"}, "search", map[string]any{"query": "deploy", "limit": 0}, true},
		{"search, limit above the most", []string{"search", "--json", "--limit", "500", "deploy"}, "search", map[string]any{"query": "deploy", "limit": 500}, true},
		{"search, negative limit", []string{"search", "--json", "--limit", "-1", "deploy"}, "search", map[string]any{"query": "deploy", "limit": -1}, false},
		{"search, scope normalised", []string{"search", "--json", "--scope", "knowledge/", "deploy"}, "search", map[string]any{"query": "deploy", "scope": "knowledge/"}, true},
		{"search, scope outside the vault", []string{"search", "--json", "--scope", "../etc", "deploy"}, "search", map[string]any{"query": "deploy", "scope": "../etc"}, false},
		{"search, since", []string{"search", "--json", "--since", "last month", "deploy"}, "search", map[string]any{"query": "deploy", "since": "last month"}, true},
		{"search, since after until", []string{"search", "--json", "--since", "2026-01-10", "--until", "2026-01-01", "deploy"}, "search", map[string]any{"query": "deploy", "since": "2026-01-10", "until": "2026-01-01"}, false},
		{"search, empty", []string{"search", "--json", "  "}, "search", map[string]any{"query": "  "}, false},
		{"retrieve", []string{"retrieve", "how does Sarah like to be contacted?"}, "retrieve", map[string]any{"query": "how does Sarah like to be contacted?"}, true},
		{"retrieve, budget 0 is the default", []string{"retrieve", "--budget", "0", "billing"}, "retrieve", map[string]any{"query": "billing", "budget": 0}, true},
		{"retrieve, budget above the most", []string{"retrieve", "--budget", "90000", "deploy key"}, "retrieve", map[string]any{"query": "deploy key", "budget": 90000}, true},
		{"retrieve, budget too small", []string{"retrieve", "--budget", "5", "billing"}, "retrieve", map[string]any{"query": "billing", "budget": 5}, false},
		{"retrieve, scope", []string{"retrieve", "--scope", "knowledge/, sessions", "deploy"}, "retrieve", map[string]any{"query": "deploy", "scope": []string{"knowledge/", " sessions"}}, true},
		{"retrieve, scope outside the vault", []string{"retrieve", "--scope", "../etc", "deploy"}, "retrieve", map[string]any{"query": "deploy", "scope": []string{"../etc"}}, false},
		{"retrieve, until before since", []string{"retrieve", "--since", "2026-01-10", "--until", "2026-01-01", "deploy"}, "retrieve", map[string]any{"query": "deploy", "since": "2026-01-10", "until": "2026-01-01"}, false},
		{"retrieve, empty", []string{"retrieve", " "}, "retrieve", map[string]any{"query": " "}, false},
		{"context, budget 0 is the default", []string{"context", "--budget", "0"}, "context", map[string]any{"budget": 0}, true},
		{"context, budget above the most", []string{"context", "--budget", "90000"}, "context", map[string]any{"budget": 90000}, true},
		{"context, budget too small", []string{"context", "--budget", "10"}, "context", map[string]any{"budget": 10}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parses := query.Parses()
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"--vault", dir}, tc.cli...), strings.NewReader(""), &stdout, &stderr)
			cliParses := query.Parses() - parses
			if (code == exitOK) != tc.ok {
				t.Fatalf("ctx0 %s: exit %d, want accepted %v\n%s", strings.Join(tc.cli, " "), code, tc.ok, stderr.String())
			}
			if !tc.ok && code != exitUsage {
				t.Errorf("ctx0 %s: exit %d, want %d (usage)\n%s", strings.Join(tc.cli, " "), code, exitUsage, stderr.String())
			}

			parses = query.Parses()
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			mcpParses := query.Parses() - parses
			text := res.Content[0].(*sdk.TextContent).Text
			if res.IsError == tc.ok {
				t.Fatalf("MCP %s %v: error %v, want accepted %v: %s", tc.tool, tc.args, res.IsError, tc.ok, text)
			}
			if !tc.ok {
				return
			}
			if tc.tool == "context" {
				return // no question to read
			}
			if cliParses != 1 || mcpParses != 1 {
				t.Errorf("the question was read %d times by the CLI, %d by the MCP server; want once each", cliParses, mcpParses)
			}
			switch tc.tool {
			case "search":
				var cli []struct{ Name string }
				if err := json.Unmarshal(stdout.Bytes(), &cli); err != nil {
					t.Fatalf("ctx0 %s: %v\n%s", strings.Join(tc.cli, " "), err, stdout.String())
				}
				var out struct{ Results []struct{ Name string } }
				data, _ := json.Marshal(res.StructuredContent)
				if err := json.Unmarshal(data, &out); err != nil {
					t.Fatal(err)
				}
				var got, want []string
				for _, r := range out.Results {
					got = append(got, r.Name)
				}
				for _, r := range cli {
					want = append(want, r.Name)
				}
				if !slices.Equal(got, want) {
					t.Errorf("MCP found %q, the CLI %q", got, want)
				}
				if len(want) == 0 {
					t.Errorf("ctx0 %s found nothing", strings.Join(tc.cli, " "))
				}
			case "retrieve":
				if text != stdout.String() {
					t.Errorf("MCP answered\n%s\nthe CLI\n%s", text, stdout.String())
				}
				if !strings.Contains(text, "knowledge/") {
					t.Errorf("ctx0 %s quotes no entry:\n%s", strings.Join(tc.cli, " "), text)
				}
			}
		})
	}
}

// TestSearchSessionsReadsOnce: ctx0 search --sessions, which has no MCP
// tool, reads its question once too, a time said in it included.
func TestSearchSessionsReadsOnce(t *testing.T) {
	dir := newVault(t)
	t.Setenv("CTX0_NOW", "2026-11-28T10:00:00Z")
	t.Setenv("HOME", t.TempDir())
	for _, q := range []string{"deploy key", "what did we deploy last week"} {
		parses := query.Parses()
		var stdout, stderr bytes.Buffer
		if code := run([]string{"--vault", dir, "search", "--sessions", "--json", q}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("ctx0 search --sessions %q: exit %d\n%s", q, code, stderr.String())
		}
		if n := query.Parses() - parses; n != 1 {
			t.Errorf("ctx0 search --sessions %q read the question %d times, want once", q, n)
		}
	}
}

// inProcessMCP is the MCP server ctx0 mcp serves on the vault at dir,
// built in this process with the clock at now, and a client connected to
// it.
func inProcessMCP(t *testing.T, dir string, now time.Time) *sdk.ClientSession {
	t.Helper()
	a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: os.Getenv, now: func() time.Time { return now }, vaultDir: dir}
	a.services = &container{a: a}
	t.Cleanup(a.services.closeAll)
	s, _, err := a.mcpServer(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.SDK().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "ctx0-test", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
