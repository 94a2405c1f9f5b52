package powercut

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// The load's names: one identity counter, server-side IDs of one collection, one HiLo tag.
const (
	identityName = "orders"
	serverSide   = "users/"
	hiloTag      = "pool"
)

// callTimeout bounds one call of the load, all its attempts on the nodes included.
const callTimeout = 3 * time.Second

// span is a range of numbers handed out, with the epoch (the cut it came before) it was
// acknowledged in.
type span struct {
	low, high int64
	epoch     int
}

// ledger is every answer the load's client acknowledged, across the cuts of a schedule.
type ledger struct {
	mu         sync.Mutex
	epoch      int // cuts so far
	identities []span
	serverIDs  map[string]int // ID → epoch
	dupServer  []string
	hilo       []span
	acks       int
	errs       int
}

func newLedger() *ledger { return &ledger{serverIDs: map[string]int{}} }

func (l *ledger) ackIdentity(first, last int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.identities = append(l.identities, span{first, last, l.epoch})
	l.acks++
}

func (l *ledger) ackServerSide(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.serverIDs[id]; ok {
		l.dupServer = append(l.dupServer, fmt.Sprintf("%s (first before cut %d, again before cut %d)", id, e+1, l.epoch+1))
	}
	l.serverIDs[id] = l.epoch
	l.acks++
}

func (l *ledger) ackHiLo(low, high int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hilo = append(l.hilo, span{low, high, l.epoch})
	l.acks++
}

func (l *ledger) failed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs++
}

// acked is how many answers the load has had.
func (l *ledger) acked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acks
}

// cut starts a new epoch: answers from now on came after the cut.
func (l *ledger) cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.epoch++
}

// maxima are the highest identity and HiLo high acknowledged so far.
func (l *ledger) maxima() (identity, hilo int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.identities {
		identity = max(identity, s.high)
	}
	for _, s := range l.hilo {
		hilo = max(hilo, s.high)
	}
	return identity, hilo
}

// repeats lists every number or ID acknowledged twice: overlapping identity blocks or HiLo
// ranges, and server-side IDs seen twice.
func (l *ledger) repeats() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.dupServer)
	for _, k := range []struct {
		what  string
		spans []span
	}{{"identity " + identityName, l.identities}, {"HiLo " + hiloTag, l.hilo}} {
		s := slices.Clone(k.spans)
		slices.SortFunc(s, func(a, b span) int { return cmp.Compare(a.low, b.low) })
		for i := 1; i < len(s); i++ {
			if s[i].low <= s[i-1].high {
				out = append(out, fmt.Sprintf("%s: [%d, %d] (before cut %d) and [%d, %d] (before cut %d) overlap",
					k.what, s[i-1].low, s[i-1].high, s[i-1].epoch+1, s[i].low, s[i].high, s[i].epoch+1))
			}
		}
	}
	return out
}

// load is a few goroutines of one Go client, each asking in turn for identities, a
// server-side ID and a HiLo range, recording every answer, until stopped. Failures are
// counted, not fatal: during a cut every call fails.
type load struct {
	stop chan struct{}
	wg   sync.WaitGroup
}

func startLoad(t *testing.T, cl *client.Client, l *ledger, workers int) *load {
	ld := &load{stop: make(chan struct{})}
	for w := range workers {
		ld.wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-ld.stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				var err error
				switch (i + w) % 4 {
				case 0, 1:
					blk, e := cl.NextIdentity(ctx, identityName, int64(1+i%2))
					if err = e; err == nil {
						l.ackIdentity(blk.First, blk.Last)
					}
				case 2:
					ids, e := cl.Generate(ctx, serverSide, 1)
					if err = e; err == nil {
						for _, id := range ids {
							l.ackServerSide(id)
						}
					}
				case 3:
					r, e := cl.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: hiloTag})
					if err = e; err == nil {
						l.ackHiLo(r.GetLow(), r.GetHigh())
					}
				}
				cancel()
				if err != nil {
					l.failed()
				}
			}
		})
	}
	return ld
}

// finish stops the load; each call in flight ends within callTimeout.
func (ld *load) finish() {
	close(ld.stop)
	ld.wg.Wait()
}
