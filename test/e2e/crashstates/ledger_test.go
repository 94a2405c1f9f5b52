package crashstates

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// The workload's names: one identity counter, server-side IDs of one collection, one HiLo tag.
const (
	identityName = "orders"
	serverSide   = "users/"
	hiloTag      = "pool"
)

// callTimeout bounds one call of the workload, all its attempts on the nodes included.
const callTimeout = 3 * time.Second

// span is a range of numbers handed out, stamped with the recording's Seq when the client
// had the answer: the answer rests on no operation after it.
type span struct {
	low, high int64
	stamp     int64
}

// ledger is every answer a client was given.
type ledger struct {
	mu         sync.Mutex
	identities []span
	hilo       []span
	serverIDs  map[string]int64 // ID → stamp
	dupServer  []string
	acks, errs int
}

func newLedger() *ledger { return &ledger{serverIDs: map[string]int64{}} }

// call makes the i-th call of the workload (identities twice as often as the others) and
// records its answer, stamped with stamp().
func (l *ledger) call(cl *client.Client, i int, stamp func() int64) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var err error
	switch i % 4 {
	case 0, 1:
		b, e := cl.NextIdentity(ctx, identityName, int64(1+i%2))
		if err = e; err == nil {
			l.add(&l.identities, span{b.First, b.Last, stamp()})
		}
	case 2:
		ids, e := cl.Generate(ctx, serverSide, 1)
		if err = e; err == nil {
			s := stamp()
			l.mu.Lock()
			for _, id := range ids {
				if _, ok := l.serverIDs[id]; ok {
					l.dupServer = append(l.dupServer, id)
				}
				l.serverIDs[id] = s
			}
			l.acks++
			l.mu.Unlock()
		}
	case 3:
		r, e := cl.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: hiloTag})
		if err = e; err == nil {
			l.add(&l.hilo, span{r.GetLow(), r.GetHigh(), stamp()})
		}
	}
	if err != nil {
		l.mu.Lock()
		l.errs++
		l.mu.Unlock()
	}
}

func (l *ledger) add(to *[]span, s span) {
	l.mu.Lock()
	defer l.mu.Unlock()
	*to = append(*to, s)
	l.acks++
}

func (l *ledger) acked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acks
}

// promises is what a power cut just after operation seq must keep: every answer stamped at or
// before it. Answers after it may rest on a sync the cut prevented.
func (l *ledger) promises(seq int64) *ledger {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := newLedger()
	keep := func(spans []span) []span {
		return slices.DeleteFunc(slices.Clone(spans), func(s span) bool { return s.stamp > seq })
	}
	p.identities, p.hilo = keep(l.identities), keep(l.hilo)
	for id, s := range l.serverIDs {
		if s <= seq {
			p.serverIDs[id] = s
		}
	}
	p.acks = len(p.identities) + len(p.hilo) + len(p.serverIDs)
	return p
}

// maxima are the highest identity and HiLo high in l.
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

// repeatsWith lists every number or ID that after (the answers after a restart) repeats from
// l, or repeats within after.
func (l *ledger) repeatsWith(after *ledger) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	after.mu.Lock()
	defer after.mu.Unlock()
	var out []string
	for _, id := range after.dupServer {
		out = append(out, "server-side ID "+id+" twice after the restart")
	}
	for id := range after.serverIDs {
		if _, ok := l.serverIDs[id]; ok {
			out = append(out, "server-side ID "+id+" before the cut and again after it")
		}
	}
	for _, k := range []struct {
		what          string
		before, after []span
	}{{"identity " + identityName, l.identities, after.identities}, {"HiLo " + hiloTag, l.hilo, after.hilo}} {
		s := append(slices.Clone(k.before), k.after...)
		slices.SortFunc(s, func(a, b span) int { return cmp.Compare(a.low, b.low) })
		for i := 1; i < len(s); i++ {
			if s[i].low <= s[i-1].high {
				out = append(out, fmt.Sprintf("%s: [%d, %d] and [%d, %d] overlap", k.what, s[i-1].low, s[i-1].high, s[i].low, s[i].high))
			}
		}
	}
	return out
}
