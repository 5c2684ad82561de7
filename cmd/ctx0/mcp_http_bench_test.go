package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkMCPHTTPSessionsMemory starts ctx0 mcp --http on an empty vault
// and sends it 23,000 initialize requests, each a new client session, as a
// client that never ends its sessions does. It reports the server's
// resident memory before, after 1,000 and after all of them: bounded, it
// levels off; the baseline in the same run (--max-sessions 1000000, as
// ctx0 had no bound) grows with every session.
func BenchmarkMCPHTTPSessionsMemory(b *testing.B) {
	const n = 23000
	for _, c := range []struct{ name, max string }{{"bounded-64", "64"}, {"baseline-unbounded", "1000000"}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				url, pid := mcpHTTPServer(b, c.max)
				before := rssMB(b, pid)
				var rss1k float64
				for i := range n {
					mcpInitialize(b, url)
					if i == 999 {
						rss1k = rssMB(b, pid)
					}
				}
				b.ReportMetric(before, "rss-MB-before")
				b.ReportMetric(rss1k, "rss-MB-after-1k")
				b.ReportMetric(rssMB(b, pid), "rss-MB-after-23k")
			}
		})
	}
}

// mcpHTTPServer starts ctx0 mcp --http on a new vault and returns its URL
// and process id; the process ends with the benchmark.
func mcpHTTPServer(b *testing.B, maxSessions string) (string, int) {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("ctx0 init commits")
	}
	dir := filepath.Join(b.TempDir(), "vault")
	env := append(os.Environ(), "HOME="+b.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
	init := exec.Command("ctx0", "init", dir)
	init.Env = env
	if out, err := init.CombinedOutput(); err != nil {
		b.Fatalf("ctx0 init: %v\n%s", err, out)
	}
	cmd := exec.Command("ctx0", "--vault", dir, "mcp", "--http", "127.0.0.1:0", "--max-sessions", maxSessions)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, url, ok := strings.Cut(sc.Text(), " at http://"); ok {
			go io.Copy(io.Discard, stderr)
			return "http://" + url, cmd.Process.Pid
		}
	}
	b.Fatalf("ctx0 mcp --http said no address: %v", sc.Err())
	return "", 0
}

// mcpInitialize sends one initialize request, as a new client does.
func mcpInitialize(b *testing.B, url string) {
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b.Fatalf("initialize: status %d", res.StatusCode)
	}
}
