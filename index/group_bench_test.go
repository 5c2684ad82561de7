package index

import (
	"fmt"
	"sync"
	"testing"

	"github.com/ctx0/ctx0/eval/synthvault"
	"github.com/ctx0/ctx0/vault"
)

// BenchmarkGroupedRemember is the MCP server's many-writers load in one
// process: 128 clients each remembering 5 new texts on one vault and its
// index, released together, so the writes queue and go into group
// commits. It runs on $CTX0_BENCH_VAULT or a generated vault of 10,000
// entries (scripts/load.sh measures the same load over HTTP, beside its
// anchor); -cpuprofile shows where a grouped write's time goes.
func BenchmarkGroupedRemember(b *testing.B) {
	ctx := b.Context()
	v, ix := openBench(b, synthvault.BenchVaultOf(b, 10000))
	v.SetCatalog(ix)
	const clients, calls = 128, 5
	round := 0
	for b.Loop() {
		round++
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, clients*calls)
		for c := range clients {
			wg.Go(func() {
				<-start
				for i := range calls {
					text := fmt.Sprintf("Client %d learned fact %d in round %d: token g%d-%d-%d.", c, i, round, round, c, i)
					if _, err := v.Remember(ctx, vault.RememberOptions{Text: text}); err != nil {
						errs <- err
					}
				}
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(clients*calls)*float64(b.N)/b.Elapsed().Seconds(), "saves/s")
}
