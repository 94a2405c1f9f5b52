package main

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// spin runs k busy loops until ctx ends, each on a thread of its own so that each takes a core.
func spin(ctx context.Context, k int, wg *sync.WaitGroup) {
	if runtime.GOMAXPROCS(0) < k+1 {
		runtime.GOMAXPROCS(k + 1) // the loops must not starve this process's own work
	}
	for range k {
		wg.Go(func() {
			runtime.LockOSThread()
			var n uint64
			for ctx.Err() == nil {
				for range 1 << 16 {
					n++
				}
			}
			sink.Add(n)
		})
	}
}

// sink keeps the loops' counting from being optimised away.
var sink atomic.Uint64

// besideRuns runs go test of packages again and again until ctx ends, and counts the runs
// that ended and those that failed; their output is dropped.
func besideRuns(ctx context.Context, o options, runs, failed *atomic.Int64, wg *sync.WaitGroup) {
	wg.Go(func() {
		for ctx.Err() == nil {
			cmd := goTest(ctx, o, o.beside, false)
			err := cmd.Run()
			if ctx.Err() != nil {
				return
			}
			runs.Add(1)
			if err != nil {
				failed.Add(1)
			}
		}
	})
}
