package index

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/eval/synthvault"
	"github.com/ctx0/ctx0/index/query"
	"github.com/ctx0/ctx0/vault"
)

// benchWords are words of the generated vaults' vocabulary, common and rare.
var benchWords = strings.Fields(`deploy server database index query search memory agent vault note project
decision meeting customer invoice billing payment migration schema latency cache retry timeout error
incident postmortem rollback release version branch merge review benchmark leak goroutine mutex kubernetes
docker cluster secret token staging production rollout canary email calendar slack thread document spec
design interface package module python golang rust sqlite postgres redis kafka nginx editor markdown yaml
sarah sam priya diego mei omar kenji fatima zoe friday weekend roadmap approved shipped critical urgent`)

// benchQueries is a fixed mix of n queries as people and agents type them:
// single words, two words, phrases, prefixes, OR and NOT.
func benchQueries(n int) []string {
	r := rand.New(rand.NewPCG(7, 7))
	w := func() string { return benchWords[r.IntN(len(benchWords))] }
	var qs []string
	for i := range n {
		switch i % 10 {
		case 0, 1, 2, 3:
			qs = append(qs, w())
		case 4, 5, 6:
			qs = append(qs, w()+" "+w())
		case 7:
			qs = append(qs, `"`+w()+" "+w()+`"`)
		case 8:
			p := w()
			qs = append(qs, p[:min(4, len(p))]+"*")
		default:
			if i%20 == 9 {
				qs = append(qs, w()+" OR "+w())
			} else {
				qs = append(qs, w()+" NOT "+w())
			}
		}
	}
	return qs
}

// benchQuestions are n questions as people and agents ask them, of two to
// four content words among stop words: natural queries, every word
// optional.
func benchQuestions(n int) []string {
	r := rand.New(rand.NewPCG(9, 9))
	w := func() string { return benchWords[r.IntN(len(benchWords))] }
	forms := []func() string{
		func() string { return "what did " + w() + " decide about the " + w() + "?" },
		func() string { return "how do we handle " + w() + " " + w() + " in " + w() },
		func() string { return "when is the " + w() + " for the " + w() + " " + w() + " due" },
		func() string { return "why was the " + w() + " " + w() + " so slow" },
		func() string { return "who owns " + w() + " and " + w() },
	}
	qs := make([]string, n)
	for i := range qs {
		qs[i] = forms[i%len(forms)]()
	}
	return qs
}

// BenchmarkSearch measures a search of 10 results over a mix of 100
// queries, on the vault in $CTX0_BENCH_VAULT (see scripts/bench-index.sh)
// or else on a generated vault of 2,000 entries. It reports the median and
// the 90th percentile of a whole Search call, whose freshness check is the
// one a reader makes while a watcher runs (here, in the same process), and
// of the query alone on an index known to be fresh; then the same two for
// 100 questions (benchQuestions).
func BenchmarkSearch(b *testing.B) {
	ctx := b.Context()
	dir := synthvault.BenchVault(b)
	_, ix := openBench(b, dir)
	done := make(chan error, 1)
	go func() { done <- ix.Watch(ctx, nil) }()
	for ix.localWatcher() == nil {
		select {
		case err := <-done:
			b.Fatal(err)
		case <-time.After(time.Millisecond):
		}
	}
	db, err := ix.handle(ctx)
	if err != nil {
		b.Fatal(err)
	}
	qs, questions := benchQueries(100), benchQuestions(100)
	var whole, alone, qWhole, qAlone []time.Duration
	run := func(q string, whole, alone *[]time.Duration) {
		t0 := time.Now()
		if _, err := ix.Search(ctx, Query{Text: q}); err != nil {
			b.Fatal(err)
		}
		*whole = append(*whole, time.Since(t0))
		t0 = time.Now()
		if _, err := search(ctx, db, query.Plain(q), Query{Text: q, Limit: DefaultLimit}); err != nil {
			b.Fatal(err)
		}
		*alone = append(*alone, time.Since(t0))
	}
	b.ResetTimer()
	for b.Loop() {
		for i, q := range qs {
			run(q, &whole, &alone)
			run(questions[i], &qWhole, &qAlone)
		}
	}
	b.StopTimer()
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{{"search", whole}, {"query", alone}, {"question", qWhole}, {"question-query", qAlone}} {
		slices.Sort(m.d)
		b.ReportMetric(ms(m.d[len(m.d)/2]), "ms/"+m.name+"-p50")
		b.ReportMetric(ms(m.d[len(m.d)*9/10]), "ms/"+m.name+"-p90")
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "%d queries on %s\n", len(qs), dir)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkFullCheck measures, on the vault in $CTX0_BENCH_VAULT (or a
// generated one of 2,000 entries), the full check after one file was edited
// in place (Refresh, what `ctx0 index` does), beside its floor in the same
// run: listing every folder and statting every file on all cores, with
// nothing compared ("floor"), and statting the files that the folders'
// records name, the records read, no folder listed ("stats"). Medians.
func BenchmarkFullCheck(b *testing.B) {
	ctx := b.Context()
	dir := synthvault.BenchVault(b)
	_, ix := openBench(b, dir)
	if _, err := ix.Refresh(ctx); err != nil {
		b.Fatal(err)
	}
	db, err := ix.handle(ctx)
	if err != nil {
		b.Fatal(err)
	}
	sums, err := loadSums(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	folders := slices.Sorted(maps.Keys(sums))
	var edited string
	for _, f := range folders {
		if f != "" {
			d, _ := statFolders(ctx, dir, []string{f}, nil, time.Now())
			if len(d[0].files) > 0 {
				edited = filepath.Join(dir, filepath.FromSlash(f), d[0].files[0])
				break
			}
		}
	}
	if edited == "" {
		b.Fatal("no entry file in a folder to edit")
	}
	var check, floor, stats []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		fh, err := os.OpenFile(edited, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(fh, "Edited in the benchmark, take %d.\n", i)
		fh.Close()
		b.StartTimer()
		t0 := time.Now()
		rep, err := ix.Refresh(ctx)
		if err != nil {
			b.Fatal(err)
		}
		check = append(check, time.Since(t0))
		if rep.Updated != 1 {
			b.Fatalf("the check updated %d entries, want the 1 edited", rep.Updated)
		}
		t0 = time.Now()
		statFolders(ctx, dir, folders, nil, time.Now())
		floor = append(floor, time.Since(t0))
		t0 = time.Now()
		recorded, err := recordOf(ctx, db)
		if err != nil {
			b.Fatal(err)
		}
		statFolders(ctx, dir, folders, recorded, time.Now())
		stats = append(stats, time.Since(t0))
	}
	b.StopTimer()
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{{"check", check}, {"floor", floor}, {"stats", stats}} {
		slices.Sort(m.d)
		b.ReportMetric(ms(m.d[len(m.d)/2]), "ms/"+m.name+"-p50")
	}
}

// openBench opens the vault at dir and its index for a benchmark, closed
// when it ends.
func openBench(b *testing.B, dir string) (*vault.Vault, *Index) {
	b.Helper()
	v, err := vault.Open(b.Context(), dir)
	if err != nil {
		b.Fatal(err)
	}
	ix, err := Open(b.Context(), v)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	return v, ix
}
