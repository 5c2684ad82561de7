package mcp

import (
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// clock is a settable clock for the rate limits.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fixture is a server on a new vault with its index.
type fixture struct {
	v     *vault.Vault
	ix    *index.Index
	s     *Server
	clock *clock
}

func newFixture(t testing.TB, adjust ...func(*Options)) *fixture {
	t.Helper()
	c := &clock{t: time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)}
	v := vaulttest.New(t, vault.WithClock(c.now))
	ix, err := index.Open(t.Context(), v, index.WithClock(c.now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	v.SetCatalog(ix)
	o := Options{Memory: extractor.Memory{Vault: v, Index: ix, Now: c.now}}
	for _, a := range adjust {
		a(&o)
	}
	return &fixture{v: v, ix: ix, s: New(o), clock: c}
}

// connect is a client session over in-memory transports.
func (f *fixture) connect(t testing.TB) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := f.s.SDK().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return dial(t, ct)
}

func dial(t testing.TB, tr sdk.Transport) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "ctx0-test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its text and whether it is a tool error.
// A protocol error fails the test: bad arguments must be tool errors.
func call(t testing.TB, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", tool, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// ok calls a tool that must succeed.
func ok(t testing.TB, cs *sdk.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	text, isErr := call(t, cs, tool, args)
	if isErr {
		t.Fatalf("%s %v: tool error: %s", tool, args, text)
	}
	return text
}

// fails calls a tool that must give a tool error containing want.
func fails(t testing.TB, cs *sdk.ClientSession, tool string, args map[string]any, want string) string {
	t.Helper()
	text, isErr := call(t, cs, tool, args)
	if !isErr {
		t.Fatalf("%s %v: want a tool error, got: %s", tool, args, text)
	}
	if !strings.Contains(text, want) {
		t.Fatalf("%s %v: error %q does not say %q", tool, args, text, want)
	}
	return text
}

// git runs the real git binary in dir.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs the git binary")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func commits(t testing.TB, dir string) int {
	t.Helper()
	n := strings.TrimSpace(git(t, dir, "rev-list", "--count", "HEAD"))
	var c int
	for _, r := range n {
		c = c*10 + int(r-'0')
	}
	return c
}
