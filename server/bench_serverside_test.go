package server_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/idnode/idnode/node"
	"github.com/idnode/idnode/node/metrics"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// BenchmarkServerSideIDs is the per-call cost of a node's cheapest answer: one
// server-side ID (Generate "users/"), no Raft, so what it measures is gRPC, the interceptors
// (the gRPC metrics of a node run with --metrics-addr included), the etag counter and the ID's
// formatting, with 64 callers on one connection as bench/compare.sh drives a node. Client and
// node share the process, so ns/op and allocs/op are both sides' (the client's part does not
// change with the server's code). A single-node cluster, started once. Beside ns/op it reports
// cpu-ns/op, the process's CPU time (user and system) per call: on a machine shared with other
// work, wall time per call moves with the neighbours' load, CPU time much less.
//
//	go test -run NONE -bench ServerSideIDs -benchtime 200000x ./server/
func BenchmarkServerSideIDs(b *testing.B) {
	m := metrics.New()
	c := newTestClusterConfigured(b, 1, func(nc *node.Config) {
		nc.GRPCOptions = append(nc.GRPCOptions, m.ServerOptions()...)
	})
	client := idnodev1.NewIdServiceClient(c.Dial(b, c.Tags()[0]))
	req := &idnodev1.GenerateRequest{Id: "users/"}
	if _, err := client.Generate(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetParallelism(32) // 64 callers on GOMAXPROCS=2
	b.ResetTimer()
	cpu0 := cpuTime(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Generate(context.Background(), req)
			if err != nil {
				b.Error(err)
				return
			}
			if len(resp.GetIds()) != 1 {
				b.Errorf("got %d IDs, want 1", len(resp.GetIds()))
				return
			}
		}
	})
	b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time the process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
