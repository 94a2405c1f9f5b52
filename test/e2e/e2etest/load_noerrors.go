package e2etest

import (
	"context"
	"sync"
	"time"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/test/history"
)

// WaitGroupWithin waits for wg for at most limit and reports whether it finished.
func WaitGroupWithin(wg *sync.WaitGroup, limit time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(limit):
		return false
	}
}

// GRPCAddrs are the nodes' client addresses, A, B, C.
func (c *Cluster) GRPCAddrs() []string {
	var addrs []string
	for _, p := range c.Nodes {
		addrs = append(addrs, p.GRPCAddr)
	}
	return addrs
}

// RecordedIdentity makes one identity call of name within budget, recorded in rec (its
// outcome unknown when it failed, with the error tallied in errs), and returns how long it
// took and whether it succeeded.
func RecordedIdentity(rec *history.Recorder, errs *errorTally, name string, budget time.Duration,
	call func(ctx context.Context) (docid.IdentityBlock, error)) (time.Duration, bool) {
	op := rec.BeginIdentity(name, 1)
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	began := time.Now()
	b, err := call(ctx)
	took := time.Since(began)
	if err != nil {
		op.Unknown()
		errs.add(err)
		return took, false
	}
	op.Done(b.First, b.Last, b.Skipped...)
	return took, true
}
