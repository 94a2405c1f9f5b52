package server_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/node"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/server"
)

// BenchmarkIdentityRound traces where an identity's time goes, stage by stage, and prints the
// breakdown (p50 and p99 of each stage) after the run: three in-process nodes with real Raft
// log stores (fsync on) in temp dirs and the production Raft timing, Raft over
// hashicorp's in-memory transport, gRPC on loopback, callers making one NextIdentity at a
// time. "leader": every caller on the leader; "round-robin": caller i on node i mod 3, so two
// in three are relayed by a follower. See docs/BENCHMARKS.md, "Where an identity's time goes".
// IDNODE_BENCH_RAFT_LOG=wal or boltdb picks the nodes' Raft log store (--raft-log); unset,
// the default for new data dirs (cluster.DefaultLogStore).
//
//	go test -run NONE -bench IdentityRound -benchtime 20000x ./server/
//	IDNODE_BENCH_RAFT_LOG=wal go test -run NONE -bench IdentityRound -benchtime 20000x ./server/
func BenchmarkIdentityRound(b *testing.B) {
	var logStore cluster.LogStore
	if env := os.Getenv("IDNODE_BENCH_RAFT_LOG"); env != "" {
		var err error
		if logStore, err = cluster.ParseLogStore(env); err != nil {
			b.Fatalf("IDNODE_BENCH_RAFT_LOG: %v", err)
		}
	}
	rt := newRoundTrace("")
	c := newTestClusterConfigured(b, 3, func(nc *node.Config) {
		tag := nc.Tag
		nc.Timing = cluster.DefaultTiming
		nc.GRPCOptions = append(nc.GRPCOptions, grpc.StatsHandler(servedCalls{rt: rt, tag: tag}))
		nc.RaftLog = logStore
		nc.ClusterConfig = func(cc cluster.Config) cluster.Config {
			cc.OnEntry = rt.onEntry(tag)
			return cc
		}
		nc.ServerConfig = func(sc server.Config) server.Config {
			sc.OnIdentityRound = rt.onIdentityRound
			return sc
		}
	})
	rt.leader = c.waitLeader(startupTimeout, c.Tags()...)
	clients := map[string]idnodev1.IdServiceClient{}
	for _, tag := range c.Tags() {
		clients[tag] = idnodev1.NewIdServiceClient(c.Dial(b, tag))
	}
	var followers []string
	for _, tag := range c.Tags() {
		if tag != rt.leader {
			followers = append(followers, tag)
		}
	}
	for _, route := range []struct {
		name  string
		nodes []string
	}{
		{"leader", []string{rt.leader}},
		{"round-robin", append([]string{rt.leader}, followers...)},
	} {
		for _, callers := range []int{64} {
			b.Run(fmt.Sprintf("via=%s/callers=%d", route.name, callers), func(b *testing.B) {
				lat := traceIdentities(b, rt, clients, route.nodes, callers)
				if b.N >= 100 {
					fmt.Fprintf(os.Stdout, "\n%s, leader %s, raft log %s:\n", b.Name(), rt.leader, c.Node(rt.leader).Node.LogStore())
					rt.report(os.Stdout, lat)
				}
			})
		}
	}
}

// traceIdentities makes b.N NextIdentity calls from callers goroutines, caller i on
// nodes[i mod len], with the trace on, and returns each call's latency by where its caller
// was (leader or follower); failed calls are left out.
func traceIdentities(b *testing.B, rt *roundTrace, clients map[string]idnodev1.IdServiceClient, nodes []string, callers int) map[string][]time.Duration {
	var (
		issued atomic.Int64
		wg     sync.WaitGroup
		mu     sync.Mutex
		lat    = map[string][]time.Duration{}
		failed atomic.Int64
	)
	b.ResetTimer()
	rt.start()
	begin := time.Now()
	for w := range callers {
		tag := nodes[w%len(nodes)]
		route := "follower"
		if tag == rt.leader {
			route = "leader"
		}
		wg.Go(func() {
			var mine []time.Duration
			for issued.Add(1) <= int64(b.N) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				start := time.Now()
				_, err := clients[tag].NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: "bench"})
				cancel()
				if err != nil {
					failed.Add(1)
					continue
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			lat[route] = append(lat[route], mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	rt.stop()
	b.StopTimer()
	// A loaded machine can stall a node past its heartbeat timeout, and an election fails
	// the calls under way: counted, as idbench counts errors, rather than ending the run.
	b.ReportMetric(float64(failed.Load()), "errors")
	if n := failed.Load(); n > 0 && b.N >= 100 {
		fmt.Printf("%d calls failed: the leader changed during the run, and the stages after it are mixed\n", n)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ids/s")
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	b.ReportMetric(ms(quantile(all, 0.99)), "p99-ms")
	return lat
}
