package backups

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/helpers/ledger"
	"github.com/idnode/idnode/test/helpers/poll"
)

// The load's names: one identity counter, server-side IDs of one collection, one HiLo tag, one
// fiscal series (gapless, without periods).
const (
	identityName = "orders"
	serverSide   = "users/"
	hiloTag      = "pool"
	seriesName   = "INV"
	seriesFormat = "INV-{n:06}"
)

// The kinds of ID the load records in the ledger besides identities and HiLo ranges.
const (
	serverSideKind = "server-side ID"
	numericKind    = "numeric ID"
	seriesKind     = "series " + seriesName + " number"
)

// callTimeout bounds one call of the load, its attempts on the nodes included.
const callTimeout = 3 * time.Second

// The load's pace. A backup's margin by rates is its peak rate times its age times 2, so it
// covers the load after it only while the load's rate after the backup is at most twice its
// rate before. An unpaced load warming up on a busy machine broke that: the backup sampled it
// at a sixth of its later rate, and the restored cluster repeated identities. Each ID worker
// asks at most once every idsPace, so the rate after the backup is at most the paced rate, and
// waitSteady holds the backup back until the load keeps steadyShare of that rate.
const (
	idsPace     = 25 * time.Millisecond
	steadyShare = 0.6 // the rate after a backup is then at most 1/0.6 ≈ 1.7 times the rate before
	steadyOver  = time.Second
	steadyLimit = 30 * time.Second
)

// invoice is a series number the load was answered, and the document (request_id) it numbers.
type invoice struct {
	number int64
	doc    string
}

// load is a few goroutines of one Go client asking in turn for identities, a server-side ID, a
// HiLo range and a numeric ID minted by a node, and one goroutine issuing series numbers one
// after another (so that the numbers answered have no hole: the replay after a restore issues
// them again in order), each answer recorded, until stopped.
type load struct {
	led  *ledger.Ledger
	stop chan struct{}
	wg   sync.WaitGroup

	mu       sync.Mutex
	answered []time.Time // when each ID worker's call was answered, for waitSteady
	invoices []invoice   // in the order answered
	errs     []error     // the first few failures, for the log
	wrong    []string    // answers that are no ID of their kind
}

// startLoad starts the load on cl, recording into led with stamp (the cluster's phase).
func startLoad(cl *client.Client, led *ledger.Ledger, stamp int64, workers int) *load {
	ld := &load{led: led, stop: make(chan struct{})}
	for w := range workers {
		ld.wg.Go(func() { ld.ids(cl, stamp, w) })
	}
	ld.wg.Go(func() { ld.series(cl, stamp) })
	return ld
}

func (ld *load) stopped() bool {
	select {
	case <-ld.stop:
		return true
	default:
		return false
	}
}

// ids asks for each kind in turn, at most once every idsPace, until stopped.
func (ld *load) ids(cl *client.Client, stamp int64, w int) {
	pace := time.NewTicker(idsPace)
	defer pace.Stop()
	for i := 0; !ld.stopped(); i++ {
		select {
		case <-ld.stop:
			return
		case <-pace.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		var err error
		switch (i + w) % 4 {
		case 0:
			blk, e := cl.NextIdentity(ctx, identityName, int64(1+i%3))
			if err = e; err == nil {
				ld.led.Identity(blk.First, blk.Last, stamp)
			}
		case 1:
			ids, e := cl.Generate(ctx, serverSide, 1)
			if err = e; err == nil {
				for _, id := range ids {
					ld.led.ID(serverSideKind, id, stamp)
				}
			}
		case 2:
			r, e := cl.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: hiloTag})
			if err = e; err == nil {
				ld.led.HiLo(r.GetLow(), r.GetHigh(), stamp)
			}
		case 3:
			r, e := cl.GenerateRaw(ctx, &idnodev1.GenerateRequest{Numeric: true})
			if err = e; err == nil {
				for _, s := range r.GetIds() {
					if id, perr := strconv.ParseInt(s, 10, 64); perr != nil || id <= 0 {
						ld.wrongAnswer(fmt.Sprintf("Generate{numeric} answered %q, not a positive decimal ID", s))
						continue
					}
					ld.led.ID(numericKind, s, stamp)
				}
			}
		}
		cancel()
		ld.failed(err)
		if err == nil {
			ld.mu.Lock()
			ld.answered = append(ld.answered, time.Now())
			ld.mu.Unlock()
		}
	}
}

// waitSteady waits until the ID workers have been answered at steadyShare of their paced rate
// or more over the last steadyOver, and returns when; it fails t after steadyLimit.
func (ld *load) waitSteady(t *testing.T, workers int) time.Time {
	t.Helper()
	want := int(steadyShare * float64(workers) * float64(steadyOver) / float64(idsPace))
	var at time.Time
	poll.Until(t, fmt.Sprintf("the load to keep %d answers a second (%.0f%% of its paced rate)", want, 100*steadyShare), steadyLimit, 100*time.Millisecond, func() error {
		ld.mu.Lock()
		defer ld.mu.Unlock()
		now := time.Now()
		n := 0
		for i := len(ld.answered) - 1; i >= 0 && now.Sub(ld.answered[i]) <= steadyOver; i-- {
			n++
		}
		if n < want {
			return fmt.Errorf("%d answers over the last %v", n, steadyOver)
		}
		at = now
		return nil
	})
	return at
}

// series issues numbers of the series one at a time until stopped, each for a document of
// its own (the request_id).
func (ld *load) series(cl *client.Client, stamp int64) {
	for i := 0; !ld.stopped(); i++ {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		doc := fmt.Sprintf("doc-%d-%d", stamp, i)
		e, err := cl.Series().Issue(ctx, &idnodev1.IssueRequest{Series: seriesName, RequestId: doc})
		cancel()
		if err == nil {
			ld.led.ID(seriesKind, strconv.FormatInt(e.GetNumber(), 10), stamp)
			ld.mu.Lock()
			ld.invoices = append(ld.invoices, invoice{e.GetNumber(), doc})
			ld.mu.Unlock()
		}
		ld.failed(err)
	}
}

func (ld *load) failed(err error) {
	if err == nil {
		return
	}
	ld.led.Failed()
	ld.mu.Lock()
	defer ld.mu.Unlock()
	if len(ld.errs) < 5 {
		ld.errs = append(ld.errs, err)
	}
}

func (ld *load) wrongAnswer(s string) {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	ld.wrong = append(ld.wrong, s)
}

// finish stops the load, waits for the calls in flight (each within callTimeout) and fails t
// for an answer that was no ID of its kind.
func (ld *load) finish(t *testing.T, what string) {
	t.Helper()
	close(ld.stop)
	ld.wg.Wait()
	ld.mu.Lock()
	defer ld.mu.Unlock()
	t.Logf("%s: %d answers, %d failed calls (first: %v), %d series numbers", what, ld.led.Acked(), ld.led.Failures(), ld.errs, len(ld.invoices))
	for _, w := range ld.wrong {
		t.Errorf("%s: %s", what, w)
	}
}

// issued returns the series numbers answered, in order.
func (ld *load) issued() []invoice {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	return append([]invoice(nil), ld.invoices...)
}
