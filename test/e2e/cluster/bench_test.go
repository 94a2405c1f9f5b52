package cluster

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// BenchmarkClusterIdentities measures identities per second and p99 latency on a three-node
// loopback cluster of real processes (fsync on), with the leader coalescing concurrent
// requests into one Raft entry (the default) and without (--identity-batch 1). Callers are
// spread over the three nodes (one connection per node; A leads), so with more than one
// caller two thirds of the calls are relayed to the leader, as they would be for clients that
// do not know who leads; the single caller talks to the leader.
//
//	go test -run NONE -bench ClusterIdentities -benchtime 3s ./test/e2e/
func BenchmarkClusterIdentities(b *testing.B) {
	for _, mode := range []struct {
		name  string
		extra []string
	}{
		{"coalesce=on", nil},
		{"coalesce=off", []string{"--identity-batch", "1"}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			c := e2etest.StartCluster(b, mode.extra...) // once per mode; the callers runs share it
			// The same placement in every mode: A leads, so the single caller (on A) is
			// never relayed, and with more callers two thirds are.
			if c.Leader() != "A" {
				ctx, cancel := context.WithTimeout(context.Background(), e2etest.LeaderTimeout)
				_, err := c.Admin["B"].TransferLeadership(ctx, &idnodev1.TransferLeadershipRequest{Tag: "A"})
				cancel()
				if err != nil {
					b.Fatalf("TransferLeadership(A): %v", err)
				}
			}
			e2etest.Eventually(b, e2etest.LeaderTimeout, "A leads", func() error {
				if l := c.Leader(); l != "A" {
					return fmt.Errorf("leader is %s", l)
				}
				return nil
			})
			for _, callers := range []int{1, 16, 64} {
				b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
					benchIdentities(b, c, callers)
				})
			}
		})
	}
}

// benchIdentities makes b.N unary Generate{bench|} calls from callers goroutines.
func benchIdentities(b *testing.B, c *e2etest.Cluster, callers int) {
	var (
		issued  atomic.Int64
		wg      sync.WaitGroup
		mu      sync.Mutex
		all     = make([]time.Duration, 0, b.N)
		failure error
	)
	b.ResetTimer()
	begin := time.Now()
	for w := range callers {
		client := c.Ids[e2etest.ClusterTags[w%len(e2etest.ClusterTags)]]
		wg.Go(func() {
			var mine []time.Duration
			defer func() {
				mu.Lock()
				all = append(all, mine...)
				mu.Unlock()
			}()
			for issued.Add(1) <= int64(b.N) {
				ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout)
				start := time.Now()
				resp, err := client.Generate(ctx, &idnodev1.GenerateRequest{Id: "bench|"})
				took := time.Since(start)
				cancel()
				if err == nil && len(resp.GetIds()) != 1 {
					err = fmt.Errorf("Generate(bench|) = %q, want one ID", resp.GetIds())
				}
				if err != nil {
					mu.Lock()
					failure = err
					mu.Unlock()
					return
				}
				mine = append(mine, took)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	b.StopTimer()
	if failure != nil {
		b.Fatalf("caller failed: %v", failure)
	}
	slices.Sort(all)
	p99 := all[max(int(math.Ceil(0.99*float64(len(all))))-1, 0)]
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "ids/s")
	b.ReportMetric(float64(p99)/float64(time.Millisecond), "p99-ms")
}
