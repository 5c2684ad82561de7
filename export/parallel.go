package export

import (
	"context"
	"sync"
)

// workers is how many files an export reads or writes at once: enough to
// keep the disk and the cores busy.
const workers = 8

// parallel calls fn(i) for every i in [0, n) on several goroutines, tells
// progress (if not nil) of each one done, and stops handing out work when
// ctx ends, returning its error.
func parallel(ctx context.Context, n int, progress func(done, total int), fn func(i int)) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	work := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range work {
				fn(i)
				if progress != nil {
					mu.Lock()
					done++
					progress(done, n)
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	return ctx.Err()
}
