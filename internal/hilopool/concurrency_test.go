package hilopool

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConcurrentGrantsReturnsAndAdds grants from one pool on many goroutines while Adds refill
// it and some grants give their tail back: no number may be held by two clients, and every
// number added is either held by exactly one client or still in the pool.
func TestConcurrentGrantsReturnsAndAdds(t *testing.T) {
	const (
		granters = 8
		grants   = 40 // per granter, of 1..8 numbers: at most 2,560 numbers wanted
		adds     = 20
	)
	path := poolsPath(t)
	s := mustOpen(t, path)
	mustAdd(t, s, users, 1, 2000)
	added := int64(2000)

	var wg sync.WaitGroup
	var returned, refused atomic.Int64  // both should happen: a grant may come in between
	held := make([][]segment, granters) // what each granter's client keeps
	for w := range granters {
		wg.Go(func() {
			for i := range grants {
				id := fmt.Sprintf("%d-%d", w, i)
				low, high, ok, err := s.Grant(users, id, int64(1+(w+i)%8), 1, 0)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					continue // the pool ran dry for a moment; the adder refills it
				}
				last := high
				if i%3 == 0 { // use only half and give the rest back, when no grant came since
					half := low - 1 + (high-low+1)/2
					ok, err := s.Return(users, id, high, half)
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						last = half
						returned.Add(1)
					} else {
						refused.Add(1)
					}
				}
				if last >= low {
					held[w] = append(held[w], segment{low, last})
				}
			}
		})
	}
	wg.Go(func() {
		for i := range int64(adds) {
			low := 100_001 + i*1000 // segments that do not touch, so no merging hides a mistake
			if err := s.Add(users, low, low+99); err != nil {
				t.Error(err)
				return
			}
			_ = s.Remaining(users)
			_ = s.Keys()
		}
	})
	wg.Wait()
	added += adds * 100
	t.Logf("returns: %d taken back, %d refused after another grant", returned.Load(), refused.Load())

	var all []segment
	var n int64
	for _, h := range held {
		all = append(all, h...)
		for _, g := range h {
			n += g.size()
		}
	}
	checkDisjoint(t, all)
	pool := segmentsOf(s, users)
	checkDisjoint(t, append(all, pool...))
	if got := n + s.Remaining(users); got != added {
		t.Fatalf("clients hold %d numbers and the pool %d: %d, want the %d added", n, s.Remaining(users), got, added)
	}
	if got := encoded(t, mustOpen(t, path)); got != encoded(t, s) {
		t.Fatalf("the file holds\n%s\nwant\n%s", got, encoded(t, s))
	}
}
