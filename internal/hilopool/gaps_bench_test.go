package hilopool

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/idnode/idnode/hilo"
)

// Gap simulation: an hour of steady HiLo traffic, on a simulated clock, through three nodes'
// pools reserved from one cluster. Numbers leave a pool ungranted only when it keeps more than
// maxSegments stretches (the lowest go): the gaps this policy costs. What a pool still holds at
// the end is its reserve for a cut-off (numbers below the clients' last_max stay in it).
const (
	gapNodes         = 3
	gapClients       = 30
	gapRatePerClient = 100 // IDs a second each client takes
	gapHour          = time.Hour
)

// gapCluster is the cluster's side: reservations above one Max.
type gapCluster struct {
	mu       sync.Mutex
	max      int64
	reserved int64
}

func (c *gapCluster) reserve(_ context.Context, _ Key, n int64) (int64, int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	low := c.max + 1
	c.max += n
	c.reserved += n
	return low, c.max, nil
}

// gapClient is one application taking IDs at gapRatePerClient, asking for its next range when
// the current one runs out.
type gapClient struct {
	lastSize, lastMax int64
	lastAt, runsOut   time.Time
	asked             int
}

// gapResult is one simulated hour.
type gapResult struct {
	granted, abandoned, held int64
	ranges                   int
}

// simulateGaps runs an hour of traffic; each client's request goes to the next node in turn
// (roundRobin) or always to one node. dropBelow makes every grant first drop the pool's numbers
// at or below the caller's last_max, as pools did before they kept them for a cut-off: the
// figure to compare with.
func simulateGaps(tb testing.TB, roundRobin, dropBelow bool) gapResult {
	ctx := context.Background()
	cluster := &gapCluster{}
	var granters []*Granter
	var stores []*Store
	for i := range gapNodes {
		s, err := Open(filepath.Join(tb.TempDir(), fmt.Sprintf("pools-%d.json", i)))
		if err != nil {
			tb.Fatal(err)
		}
		stores = append(stores, s)
		granters = append(granters, NewGranter(GranterConfig{Pools: s, Reserve: cluster.reserve, Logger: slog.Default(),
			StoreError: func(err error) error { return err }}))
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clients := make([]*gapClient, gapClients)
	for i := range clients {
		clients[i] = &gapClient{runsOut: start.Add(time.Duration(i) * time.Second / gapClients)}
	}
	var res gapResult
	var ranges []segment
	for {
		i := 0
		for j, c := range clients {
			if c.runsOut.Before(clients[i].runsOut) {
				i = j
			}
		}
		c := clients[i]
		now := c.runsOut
		if now.Sub(start) >= gapHour {
			break
		}
		node := i % gapNodes
		if roundRobin {
			node = (i + c.asked) % gapNodes
		}
		c.asked++
		g := granters[node]
		if dropBelow {
			if err := stores[node].DropThrough(users, c.lastMax); err != nil {
				tb.Fatal(err)
			}
		}
		req := Request{ID: fmt.Sprintf("c%d-%d", i, c.asked), Capacity: hilo.DefaultPolicy.Capacity(c.lastSize, c.lastAt, now), LastMax: c.lastMax}
		low, high, ok, err := g.Grant(ctx, users, req, now)
		if err != nil || !ok {
			tb.Fatalf("grant %+v on node %d: ok %v, err %v", req, node, ok, err)
		}
		for key, capacity := range g.refills.take() { // the background refill, on the simulated clock
			g.refill(ctx, key, capacity)
		}
		size := high - low + 1
		ranges = append(ranges, segment{low, high})
		res.granted += size
		c.lastSize, c.lastMax, c.lastAt = size, high, now
		c.runsOut = now.Add(time.Duration(size) * time.Second / gapRatePerClient)
	}
	slices.SortFunc(ranges, func(a, b segment) int { return cmp.Compare(a.Low, b.Low) })
	for i := 1; i < len(ranges); i++ {
		if ranges[i-1].overlaps(ranges[i]) {
			tb.Fatalf("ranges %v and %v overlap", ranges[i-1], ranges[i])
		}
	}
	for _, s := range stores {
		res.held += s.Remaining(users)
		if n := len(segmentsOf(s, users)); n > maxSegments {
			tb.Fatalf("a pool keeps %d segments, more than %d", n, maxSegments)
		}
	}
	res.ranges = len(ranges)
	res.abandoned = cluster.reserved - res.granted - res.held
	if res.abandoned < 0 {
		tb.Fatalf("%d reserved, %d granted and %d held: more numbers out than reserved", cluster.reserved, res.granted, res.held)
	}
	return res
}

// BenchmarkGapsPerHour measures the numbers an hour of steady traffic abandons (gaps): 30
// clients at 100 IDs/s each over three nodes with quorum, sticky (each client on one node) or
// round-robin (each request on the next node, so every client's last_max keeps jumping above
// the other nodes' pools); "kept" is this policy (numbers below last_max stay in the pool),
// "dropped" the one before it. Run it once: -benchtime 1x.
func BenchmarkGapsPerHour(b *testing.B) {
	for _, rr := range []bool{false, true} {
		for _, drop := range []bool{false, true} {
			name := map[bool]string{false: "sticky", true: "round-robin"}[rr] + "/" + map[bool]string{false: "kept", true: "dropped"}[drop]
			b.Run(name, func(b *testing.B) {
				var res gapResult
				for b.Loop() {
					res = simulateGaps(b, rr, drop)
				}
				b.ReportMetric(float64(res.granted), "IDs/h")
				b.ReportMetric(float64(res.ranges), "ranges/h")
				b.ReportMetric(float64(res.abandoned), "abandoned/h")
				b.ReportMetric(float64(res.held), "reserve")
			})
		}
	}
}
