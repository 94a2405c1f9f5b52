package powercut

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/ledger"
)

// The load's names: one identity counter, server-side IDs of one collection, one HiLo tag,
// one fiscal series (gapless, without periods).
const (
	identityName = "orders"
	serverSide   = "users/"
	hiloTag      = "pool"
	seriesName   = "PC"
	seriesFormat = "PC-{n:08}"
)

// callTimeout bounds one call of the load, all its attempts on the nodes included.
const callTimeout = 3 * time.Second

// loadLedger is every answer the load's client acknowledged across the cuts of a schedule: the
// shared ledger, each answer stamped with its epoch (the cuts before it), and the series
// entries, whose repeats only this suite can tell (a retried request_id answers the same
// number again).
type loadLedger struct {
	*ledger.Ledger
	epoch atomic.Int64 // cuts so far
	mu    sync.Mutex
	// series holds every acknowledged series entry by request_id; seriesNumbers the
	// request_id each number was answered to, and dupSeries the numbers answered to two.
	series        map[string]seriesAck
	seriesNumbers map[string]string
	dupSeries     []string
	// wrong are answers that are wrong in themselves (not an ID of their kind).
	wrong []string
}

// seriesAck is a series entry as its Issue was answered, with its epoch.
type seriesAck struct {
	seq          uint64
	number       int64
	period, hash string
	printed      string
	epoch        int64
}

// The kinds of ID the load records in the shared ledger.
const (
	serverSideKind = "server-side ID"
	numericKind    = "numeric ID"
)

func newLedger() *loadLedger {
	return &loadLedger{
		Ledger:        ledger.New(func(epoch int64) string { return fmt.Sprintf("before cut %d", epoch+1) }),
		series:        map[string]seriesAck{},
		seriesNumbers: map[string]string{},
	}
}

// now is the stamp of an answer acknowledged now: its epoch.
func (l *loadLedger) now() int64 { return l.epoch.Load() }

// ackSeries records the entry an Issue with requestID was answered. A request_id answered
// again (a retry) must answer the same number; a number answered to two request_ids was
// handed out twice.
func (l *loadLedger) ackSeries(requestID string, e *idnodev1.SeriesEntry) {
	epoch := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	key := e.GetPeriod() + "/" + fmt.Sprint(e.GetNumber())
	if other, ok := l.seriesNumbers[key]; ok && other != requestID {
		first := l.series[other]
		l.dupSeries = append(l.dupSeries, fmt.Sprintf("series %s number %s: to request %s (entry %d, before cut %d) and to request %s (entry %d, before cut %d)",
			seriesName, e.GetId(), other, first.seq, first.epoch+1, requestID, e.GetSeq(), epoch+1))
	}
	l.seriesNumbers[key] = requestID
	l.series[requestID] = seriesAck{seq: e.GetSeq(), number: e.GetNumber(), period: e.GetPeriod(), hash: e.GetHash(), printed: e.GetId(), epoch: epoch}
	l.Answered()
}

// seriesAcks is a copy of the acknowledged series entries, by request_id.
func (l *loadLedger) seriesAcks() map[string]seriesAck {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.series)
}

// wrongAnswers are the answers that were no ID of their kind.
func (l *loadLedger) wrongAnswers() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.wrong)
}

// cut starts a new epoch: answers from now on came after the cut.
func (l *loadLedger) cut() { l.epoch.Add(1) }

// repeats lists every number or ID acknowledged twice: overlapping identity blocks or HiLo
// ranges, server-side and numeric IDs seen twice, a series number answered to two requests.
func (l *loadLedger) repeats() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Concat(l.Repeats(), l.dupSeries)
}

// load is a few goroutines of one Go client, each asking in turn for identities, a
// server-side ID, a HiLo range, a series number and a numeric ID (minted by a node, or by the
// client's own generator), recording every answer, until stopped. Failures are
// counted, not fatal: during a cut every call fails.
type load struct {
	t    *testing.T
	stop chan struct{}
	wg   sync.WaitGroup
	// gen mints numeric IDs in this process under a worker the cluster leased to it: the same
	// database as the nodes' own leases, so an ID of one repeated by the other shows.
	gen *client.NumericGenerator
	// gate is held for reading around each call; pause takes it for writing.
	gate sync.RWMutex
}

// pause waits for the calls in flight and holds the next ones back until resume, so that
// the cluster's log holds only what a schedule does meanwhile.
func (ld *load) pause() { ld.gate.Lock() }

func (ld *load) resume() { ld.gate.Unlock() }

func startLoad(t *testing.T, cl *client.Client, l *loadLedger, workers int) *load {
	t.Helper()
	ld := &load{t: t, stop: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 2*e2etest.LeaderTimeout)
	defer cancel()
	gen, err := cl.NewNumericGenerator(ctx, client.NumericOptions{Holder: "powercut-load"})
	if err != nil {
		t.Fatalf("NewNumericGenerator: %v", err)
	}
	ld.gen = gen
	for w := range workers {
		ld.wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-ld.stop:
					return
				default:
				}
				ld.gate.RLock()
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				var err error
				switch (i + w) % 6 {
				case 0, 1:
					blk, e := cl.NextIdentity(ctx, identityName, int64(1+i%2))
					if err = e; err == nil {
						l.Identity(blk.First, blk.Last, l.now())
					}
				case 2:
					ids, e := cl.Generate(ctx, serverSide, 1)
					if err = e; err == nil {
						for _, id := range ids {
							l.ID(serverSideKind, id, l.now())
						}
					}
				case 3:
					r, e := cl.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: hiloTag})
					if err = e; err == nil {
						l.HiLo(r.GetLow(), r.GetHigh(), l.now())
					}
				case 4:
					req := &idnodev1.IssueRequest{Series: seriesName, RequestId: fmt.Sprintf("w%d-%d-%d", w, i, time.Now().UnixNano())}
					e, e2 := cl.Series().Issue(ctx, req)
					if err = e2; err == nil {
						l.ackSeries(req.GetRequestId(), e)
					}
				case 5:
					if i%2 == 0 {
						r, e := cl.GenerateRaw(ctx, &idnodev1.GenerateRequest{Numeric: true})
						if err = e; err == nil {
							ackNumeric(l, r.GetIds())
						}
						break
					}
					id, e := ld.gen.Next()
					if err = e; err == nil {
						l.ID(numericKind, strconv.FormatInt(id, 10), l.now())
					}
				}
				cancel()
				ld.gate.RUnlock()
				if err != nil {
					l.Failed()
				}
			}
		})
	}
	return ld
}

// ackNumeric records the decimal numeric IDs of a Generate answer.
func ackNumeric(l *loadLedger, ids []string) {
	for _, s := range ids {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			l.mu.Lock()
			l.wrong = append(l.wrong, fmt.Sprintf("Generate{numeric} answered %q, not a positive decimal ID", s))
			l.mu.Unlock()
			continue
		}
		l.ID(numericKind, strconv.FormatInt(id, 10), l.now())
	}
}

// finish stops the load; each call in flight ends within callTimeout. The generator's
// worker goes back to the cluster if it can be reached (a schedule may end without a quorum).
func (ld *load) finish() {
	close(ld.stop)
	ld.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if err := ld.gen.Close(ctx); err != nil {
		ld.t.Logf("closing the load's numeric generator: %v", err)
	}
}
