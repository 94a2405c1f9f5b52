package powercut

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
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
	// numeric holds every numeric ID minted by a node, with its epoch; dupNumeric the ones
	// answered twice.
	numeric    map[int64]int
	dupNumeric []string
	// series holds every acknowledged series entry by request_id; seriesNumbers the
	// request_id each number was answered to, and dupSeries the numbers answered to two.
	series        map[string]seriesAck
	seriesNumbers map[string]string
	dupSeries     []string
	// wrong are answers that are wrong in themselves (not an ID of their kind).
	wrong []string
	acks  int
	errs  int
}

// seriesAck is a series entry as its Issue was answered, with its epoch.
type seriesAck struct {
	seq          uint64
	number       int64
	period, hash string
	printed      string
	epoch        int
}

func newLedger() *ledger {
	return &ledger{serverIDs: map[string]int{}, numeric: map[int64]int{}, series: map[string]seriesAck{}, seriesNumbers: map[string]string{}}
}

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

func (l *ledger) ackNumeric(id int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.numeric[id]; ok {
		l.dupNumeric = append(l.dupNumeric, fmt.Sprintf("numeric ID %d (first before cut %d, again before cut %d)", id, e+1, l.epoch+1))
	}
	l.numeric[id] = l.epoch
	l.acks++
}

// ackSeries records the entry an Issue with requestID was answered. A request_id answered
// again (a retry) must answer the same number; a number answered to two request_ids was
// handed out twice.
func (l *ledger) ackSeries(requestID string, e *idnodev1.SeriesEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := e.GetPeriod() + "/" + fmt.Sprint(e.GetNumber())
	if other, ok := l.seriesNumbers[key]; ok && other != requestID {
		first := l.series[other]
		l.dupSeries = append(l.dupSeries, fmt.Sprintf("series %s number %s: to request %s (entry %d, before cut %d) and to request %s (entry %d, before cut %d)",
			seriesName, e.GetId(), other, first.seq, first.epoch+1, requestID, e.GetSeq(), l.epoch+1))
	}
	l.seriesNumbers[key] = requestID
	l.series[requestID] = seriesAck{seq: e.GetSeq(), number: e.GetNumber(), period: e.GetPeriod(), hash: e.GetHash(), printed: e.GetId(), epoch: l.epoch}
	l.acks++
}

// seriesAcks is a copy of the acknowledged series entries, by request_id.
func (l *ledger) seriesAcks() map[string]seriesAck {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.series)
}

// wrongAnswers are the answers that were no ID of their kind.
func (l *ledger) wrongAnswers() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.wrong)
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

// ledgerMark is where the ledger's identity blocks and HiLo ranges stood at a moment.
type ledgerMark struct{ identities, hilo int }

func (l *ledger) mark() ledgerMark {
	l.mu.Lock()
	defer l.mu.Unlock()
	return ledgerMark{len(l.identities), len(l.hilo)}
}

// lowestSince are the lowest identity and HiLo low acknowledged after m (0: none).
func (l *ledger) lowestSince(m ledgerMark) (identity, hilo int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.identities[m.identities:] {
		if identity == 0 || s.low < identity {
			identity = s.low
		}
	}
	for _, s := range l.hilo[m.hilo:] {
		if hilo == 0 || s.low < hilo {
			hilo = s.low
		}
	}
	return identity, hilo
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
// ranges, server-side and numeric IDs seen twice, a series number answered to two requests.
func (l *ledger) repeats() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Concat(l.dupServer, l.dupNumeric, l.dupSeries)
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

func startLoad(t *testing.T, cl *client.Client, l *ledger, workers int) *load {
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
				case 4:
					req := &idnodev1.IssueRequest{Series: seriesName, RequestId: fmt.Sprintf("w%d-%d-%d", w, i, time.Now().UnixNano())}
					e, e2 := cl.Issue(ctx, req)
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
						l.ackNumeric(id)
					}
				}
				cancel()
				ld.gate.RUnlock()
				if err != nil {
					l.failed()
				}
			}
		})
	}
	return ld
}

// ackNumeric records the decimal numeric IDs of a Generate answer.
func ackNumeric(l *ledger, ids []string) {
	for _, s := range ids {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			l.mu.Lock()
			l.wrong = append(l.wrong, fmt.Sprintf("Generate{numeric} answered %q, not a positive decimal ID", s))
			l.mu.Unlock()
			continue
		}
		l.ackNumeric(id)
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
