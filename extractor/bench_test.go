package extractor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ctx0/ctx0/eval/synthvault"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/vault"
)

// benchEntries is the size of the benchmark vault: the 10,000.
const benchEntries = 10000

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

// benchVault returns a generated 10,000-entry vault (made once per run;
// $CTX0_BENCH_VAULT names one to reuse), with what the generator lacks
// for the extractor: pinned entries, entries of a project, links.
func benchVault(b *testing.B) string {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("the generator commits with the git binary")
	}
	benchOnce.Do(func() {
		if benchDir = os.Getenv("CTX0_BENCH_VAULT"); benchDir != "" {
			return
		}
		dir, err := os.MkdirTemp("", "ctx0-extractor-bench-")
		if err != nil {
			benchErr = err
			return
		}
		benchDir = filepath.Join(dir, "vault")
		if benchErr = synthvault.Generate(benchDir, benchEntries, 1000, 1); benchErr != nil {
			return
		}
		for i := range 20 {
			project := ""
			if i%2 == 0 {
				project = "project: bot0\n"
			}
			data := fmt.Sprintf("---\ntitle: Pinned rule %d\ntype: preference\npinned: true\n%screated: 2026-01-%02dT10:00:00Z\n---\nAlways deploy staging with the key in 1Password before the release %d; see [[projects/bot0]].\n", i, project, 1+i, i)
			if benchErr = writeFile(filepath.Join(benchDir, "preferences", fmt.Sprintf("pinned-%d.md", i)), []byte(data)); benchErr != nil {
				return
			}
		}
		benchErr = writeFile(filepath.Join(benchDir, "projects", "bot0.md"), []byte("---\ntitle: bot0\ntype: project\nproject: bot0\n---\nA local-first agent daemon; the deploy runs from CI.\n"))
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

// benchMemory opens the benchmark vault and its index, built and checked
// once before the clock starts. With watch, a watcher keeps the index
// fresh (as `ctx0 index --watch` does), so that a read checks only the
// folders; without, each read checks every file's size and mtime.
func benchMemory(b *testing.B, watch bool) Memory {
	b.Helper()
	dir := benchVault(b)
	ctx := b.Context()
	v, err := vault.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	ix, err := index.Open(ctx, v)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	v.SetCatalog(ix)
	if _, err := ix.Refresh(ctx); err != nil {
		b.Fatal(err)
	}
	if watch {
		startWatcher(b, v)
		for _, ok := ix.RunningWatcher(); !ok; _, ok = ix.RunningWatcher() {
			time.Sleep(10 * time.Millisecond)
		}
	}
	return Memory{Vault: v, Index: ix}
}

// startWatcher runs a watcher on its own handle of the index, as another
// process would.
func startWatcher(b *testing.B, v *vault.Vault) {
	ctx, cancel := context.WithCancel(context.Background())
	wix, err := index.Open(ctx, v)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = wix.Watch(ctx, nil)
	}()
	b.Cleanup(func() {
		cancel()
		<-done
		wix.Close()
	})
}

// benchQuestions are asked in turn: common and rare words, a name, a
// phrase, questions that match much of the vault and ones that match
// little.
var benchQuestions = []string{
	"what did sarah decide about the staging deploy?",
	"postgres migration rollback",
	"why did the kubernetes cluster fail?",
	"who reviews the billing invoices",
	"redis cache latency incident postmortem",
	"zoe",
}

// BenchmarkRetrieve is one retrieve at 10,000 entries, in process: the
// index's freshness check, BM25, names looked up, links followed, files
// read for their passages, the bundle packed. The baseline is the bare
// BM25 search of the same words.
func BenchmarkRetrieve(b *testing.B) {
	for _, watch := range []bool{false, true} {
		m := benchMemory(b, watch)
		name := "check=full"
		if watch {
			name = "check=watcher"
		}
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := Retrieve(b.Context(), m, Request{Query: benchQuestions[i%len(benchQuestions)]}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(name+"/baseline=search", func(b *testing.B) {
			i := 0
			for b.Loop() {
				q := analyze(benchQuestions[i%len(benchQuestions)]).expr
				if _, err := m.Index.Search(b.Context(), index.Query{Text: q, Limit: searchLimit}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkContext is one session-start block at 10,000 entries, in
// process. The baseline is the index's listing of the latest entries that
// the block is made from.
func BenchmarkContext(b *testing.B) {
	for _, watch := range []bool{false, true} {
		m := benchMemory(b, watch)
		name := "check=full"
		if watch {
			name = "check=watcher"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Context(b.Context(), m, ContextOptions{Project: "github.com/me/bot0"}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/baseline=latest", func(b *testing.B) {
			for b.Loop() {
				if _, err := m.Index.Latest(b.Context(), index.Listing{Projects: projectNames("github.com/me/bot0"), Limit: latestFetch}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
