// Command loadgen puts many writers on a vault at once, for scripts/load.sh:
// every client is made ready first (connected, or about to start its
// process) and all are released together, then each runs its calls one
// after another. It prints one line of figures: saves per second over the
// whole run, latency percentiles of one call, and for processes the CPU
// they used per call.
//
//	loadgen mcp  -url http://127.0.0.1:8765/mcp -clients 128 -n 5 [-mix]
//	loadgen proc -clients 64 -n 5 -- CMD ARGS...   ({c} and {i} in ARGS are the client and call)
//
// -mix makes each MCP client alternate remember with search, retrieve and
// show, as an agent at work does; only remembers are counted as saves.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	clients := fs.Int("clients", 8, "clients at once")
	n := fs.Int("n", 5, "calls each client makes")
	url := fs.String("url", "", "the MCP server's streamable HTTP endpoint (mcp)")
	mix := fs.Bool("mix", false, "alternate remember with reads (mcp)")
	tag := fs.String("tag", "load", "a word in every remembered text, to find them afterwards")
	fs.Parse(os.Args[2:])
	var r result
	var err error
	switch os.Args[1] {
	case "mcp":
		r, err = runMCP(*url, *clients, *n, *mix, *tag)
	case "proc":
		if fs.NArg() == 0 {
			usage()
		}
		r, err = runProcs(fs.Args(), *clients, *n)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "loadgen: %v\n", err)
		os.Exit(1)
	}
	r.print()
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: loadgen mcp -url URL [-clients N] [-n N] [-mix] | loadgen proc [-clients N] [-n N] -- CMD ARGS...")
	os.Exit(2)
}

// result is what a run measured.
type result struct {
	saves    int             // calls that saved
	refused  int             // remembers refused (rate limit)
	failed   int             // calls that failed otherwise
	attempts int             // remembers tried
	wall     time.Duration   // release to last call's end
	lat      []time.Duration // each save's latency
	cpu      time.Duration   // user + system CPU of the processes (proc)
	errs     []string
}

func (r result) print() {
	slices.Sort(r.lat)
	pct := func(p float64) float64 {
		if len(r.lat) == 0 {
			return 0
		}
		i := min(int(p*float64(len(r.lat))+0.5), len(r.lat)) - 1
		return r.lat[max(i, 0)].Seconds()
	}
	fmt.Printf("saves=%d attempts=%d refused=%d failed=%d wall=%.2fs saves/s=%.1f p50=%.3fs p99=%.3fs max=%.3fs",
		r.saves, r.attempts, r.refused, r.failed, r.wall.Seconds(), float64(r.saves)/r.wall.Seconds(), pct(0.5), pct(0.99), pct(1))
	if r.cpu > 0 && r.saves > 0 {
		fmt.Printf(" cpu/save=%.1fms", float64(r.cpu.Microseconds())/1000/float64(r.saves))
	}
	fmt.Println()
	for i, e := range r.errs {
		if i == 3 {
			fmt.Fprintf(os.Stderr, "... %d more errors\n", len(r.errs)-3)
			break
		}
		fmt.Fprintln(os.Stderr, e)
	}
}

// collector gathers the clients' outcomes.
type collector struct {
	mu sync.Mutex
	r  result
}

func (c *collector) add(fn func(r *result)) {
	c.mu.Lock()
	fn(&c.r)
	c.mu.Unlock()
}

func runMCP(url string, clients, n int, mix bool, tag string) (result, error) {
	if url == "" {
		return result{}, fmt.Errorf("mcp: -url is required")
	}
	ctx := context.Background()
	sessions := make([]*sdk.ClientSession, clients)
	for i := range sessions {
		c := sdk.NewClient(&sdk.Implementation{Name: "loadgen", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			return result{}, fmt.Errorf("connect client %d: %w", i, err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	var col collector
	release := make(chan struct{})
	var wg sync.WaitGroup
	for ci, cs := range sessions {
		wg.Go(func() {
			<-release
			for i := range n {
				call := i
				tool, args := "remember", map[string]any{}
				if mix {
					// remember, search, remember, retrieve, remember, show, ...
					call = i / 2
					switch i % 6 {
					case 1:
						tool, args = "search", map[string]any{"query": "deploy pipeline"}
					case 3:
						tool, args = "retrieve", map[string]any{"query": "how do we deploy"}
					case 5:
						tool, args = "search", map[string]any{"query": tag}
					}
				}
				if tool == "remember" {
					args["content"] = fmt.Sprintf("Client %d learned fact %d in %s run: token %s-%d-%d.", ci, call, tag, tag, ci, call)
				}
				start := time.Now()
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
				took := time.Since(start)
				col.add(func(r *result) {
					if tool == "remember" {
						r.attempts++
					}
					switch {
					case err != nil:
						r.failed++
						r.errs = append(r.errs, err.Error())
					case res.IsError:
						text := toolText(res)
						if strings.Contains(text, "rate limited") {
							r.refused++
						} else {
							r.failed++
						}
						r.errs = append(r.errs, text)
					case tool == "remember":
						r.saves++
						r.lat = append(r.lat, took)
					}
				})
			}
		})
	}
	start := time.Now()
	close(release)
	wg.Wait()
	col.r.wall = time.Since(start)
	return col.r, nil
}

func toolText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// runProcs runs clients goroutines, each starting argv n times in turn
// once all are released, and sums the CPU the processes used.
func runProcs(argv []string, clients, n int) (result, error) {
	var col collector
	release := make(chan struct{})
	var wg sync.WaitGroup
	for ci := range clients {
		wg.Go(func() {
			<-release
			for i := range n {
				args := make([]string, len(argv))
				for k, a := range argv {
					a = strings.ReplaceAll(a, "{c}", strconv.Itoa(ci))
					args[k] = strings.ReplaceAll(a, "{i}", strconv.Itoa(i))
				}
				cmd := exec.Command(args[0], args[1:]...)
				out := &strings.Builder{}
				cmd.Stderr = out
				start := time.Now()
				err := cmd.Run()
				took := time.Since(start)
				col.add(func(r *result) {
					r.attempts++
					if ps := cmd.ProcessState; ps != nil {
						if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
							r.cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
						}
					}
					if err != nil {
						r.failed++
						r.errs = append(r.errs, fmt.Sprintf("%v: %s", err, strings.TrimSpace(out.String())))
						return
					}
					r.saves++
					r.lat = append(r.lat, took)
				})
			}
		})
	}
	start := time.Now()
	close(release)
	wg.Wait()
	col.r.wall = time.Since(start)
	return col.r, nil
}
