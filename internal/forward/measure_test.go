package forward_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/connectivity"
)

// BenchmarkHealToRelay measures how long after a heal the first relayed call is answered
// when the connection to the leader was being redialled into the cut: the node had lost the
// leader, as Raft does after a heartbeat timeout, and learns it again at the heal. The heals
// fall at even steps over one of gRPC's reconnect cycles (the connect timeout and the longest
// backoff), so b.N runs cover every phase of it. Two cuts are measured: one that drops the
// dial's SYN, as a firewall does, and one that accepts the dial and blackholes it, as a proxy
// in front of the node would (partition, on the in-memory network). It reports the median
// and the maximum; -benchtime 15x gives fifteen heals.
func BenchmarkHealToRelay(b *testing.B) {
	for _, dropSYN := range []bool{true, false} {
		name := "drop-SYN"
		if !dropSYN {
			name = "proxy-blackhole"
		}
		b.Run(name, func(b *testing.B) { measureHealToRelay(b, dropSYN) })
	}
}

func measureHealToRelay(b *testing.B, dropSYN bool) {
	t, runs := testing.TB(b), b.N
	const wait = time.Second
	const cycle = 1600 * time.Millisecond // a connect timeout of 1 s and a backoff of up to 0.6 s
	f, path, c := relayThroughPartition(t, wait)
	path.dropSYN.Store(dropSYN)
	cc, err := f.Conn(leaderAddr)
	if err != nil {
		t.Fatal(err)
	}
	var took []time.Duration
	for i := range runs {
		path.cut(t)
		ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
		_, err := call(f, ctx)
		cancel()
		if err == nil {
			t.Fatal("a relay into the blackhole was answered")
		}
		// The link replaces the silent connection; the node loses the leader; a call to
		// another node's address (a Status probe) makes gRPC dial into the cut, and it keeps
		// redialling once that attempt has failed.
		waitForState(t, cc, connectivity.Idle)
		c.set("", "")
		cc.Connect()
		waitForState(t, cc, connectivity.TransientFailure)
		time.Sleep(cycle * time.Duration(i) / time.Duration(runs)) // the heal's phase, not a wait for an event

		path.heal(t)
		c.set("L", leaderAddr)
		healed := time.Now()
		for {
			if _, err := call(f, context.Background()); err == nil {
				break
			}
		}
		took = append(took, time.Since(healed))
		t.Logf("heal %d: the first relay answered %v after the heal", i+1, took[i].Round(time.Millisecond))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(0, "ns/op") // the loop's time is mostly the cuts and their phases, not heals
}
