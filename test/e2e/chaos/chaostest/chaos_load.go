package chaostest

// The chaos suite's clients: concurrent callers of every strategy, each as a careful
// application would be, recording everything they are told in a history.Recorder.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/idnode/idnode/docid"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/history"
)

const (
	chaosIdentityWorkers = 4 // homes the first four nodes in turn (A, B, C, A of three); the fourth spells the prefix "Orders"
	chaosDBWorkers       = 2 // identity workers in chaosDatabase, homes the next two nodes (B and C of three)
	chaosHiLoWorkers     = 2 // both on one tag: their ranges must never meet
	chaosPace            = 5 * time.Millisecond
	chaosHiLoPace        = 40 * time.Millisecond
	chaosLocalPace       = 20 * time.Millisecond // server-side IDs and GUIDs
	chaosAttempt         = 2 * time.Second       // one attempt; then the next node is tried
	chaosOpBudget        = 40 * time.Second      // one logical call, all retries included
	chaosBackoffMin      = 20 * time.Millisecond
	chaosBackoffMax      = 250 * time.Millisecond
	chaosMaxOps          = 50_000 // per worker and schedule: a bound, never reached in practice

	chaosPrefix   = "orders"   // identity counter (Generate "orders|" and NextIdentity "orders")
	chaosDatabase = "billing"  // a second database, with its own "orders" and its own history
	chaosHiLoTag  = "invoices" // HiLo tag
	chaosSSPrefix = "users"    // server-side IDs
)

// chaosClient makes the calls of one cluster's clients.
type chaosClient struct {
	*chaosConns
	runID  string
	reqSeq atomic.Int64
}

func (c *chaosClient) requestID() string {
	return fmt.Sprintf("chaos-%s-%d", c.runID, c.reqSeq.Add(1))
}

// errChaosGaveUp: a logical call found no node that answered within chaosOpBudget.
var errChaosGaveUp = errors.New("no answer within the budget")

// onNodes makes one logical call: attempt on the nodes in turn from home, each try bounded by
// chaosAttempt, moving on after UNAVAILABLE or DEADLINE_EXCEEDED with backoff, for at most
// budget. attempt gets the try's number from 0 (a retry reuses the call's request_id, so the
// cluster applies it once). It returns nil, the error no retry helps with (naming the node),
// or once the budget is spent an error wrapping errChaosGaveUp: the call may have been applied.
func (c *chaosClient) onNodes(home int, budget time.Duration, attempt func(ctx context.Context, tag string, try int) error) error {
	deadline := time.Now().Add(budget)
	backoff := chaosBackoffMin
	for try := 0; ; try++ {
		tag := c.cluster.nodes[(home+try)%len(c.cluster.nodes)].Tag
		ctx, cancel := context.WithTimeout(context.Background(), min(chaosAttempt, max(time.Until(deadline), time.Millisecond)))
		err := attempt(ctx, tag, try)
		cancel()
		switch {
		case err == nil:
			return nil
		case !e2etest.Retryable(err):
			return fmt.Errorf("via %s: %w", tag, err)
		case time.Now().After(deadline) || try >= 10_000:
			return fmt.Errorf("after %d attempts (last via %s: %v): %w", try+1, tag, err, errChaosGaveUp)
		}
		time.Sleep(backoff) // retry backoff
		backoff = min(2*backoff, chaosBackoffMax)
	}
}

// identity is one logical identity request for count values, recorded in rec as one
// operation: Generate(prefix|) when viaGenerate, else NextIdentity(prefix), with one
// request_id, tried on the nodes from home (onNodes). Without an answer it is recorded as
// unknown and an error wrapping errChaosGaveUp is returned (the values may have been used).
// Any other error is unexpected and returned. A block may skip claimed values.
func (c *chaosClient) identity(rec *history.Recorder, db, prefix string, count int64, viaGenerate bool, home int, budget time.Duration) error {
	reqID := c.requestID()
	op := rec.BeginIdentity(prefix, count)
	var b docid.IdentityBlock
	err := c.onNodes(home, budget, func(ctx context.Context, tag string, try int) (err error) {
		if try > 0 {
			op.Retry()
		}
		if viaGenerate {
			var resp *idnodev1.GenerateResponse
			if resp, err = c.ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Id: prefix + "|", Count: count, RequestId: reqID, Database: db}); err == nil {
				b, err = e2etest.ParseIdentityBlock(resp.GetIds(), prefix, count)
			}
			return err
		}
		var resp *idnodev1.NextIdentityResponse
		if resp, err = c.ids[tag].NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: prefix, Count: count, RequestId: reqID, Database: db}); err == nil {
			b = docid.IdentityBlock{First: resp.GetFirst(), Last: resp.GetLast(), Skipped: resp.GetSkipped()}
			if !validBlock(b, count) {
				err = fmt.Errorf("NextIdentity(%s, count %d) = %v: want %d values, skipping only values inside", prefix, count, resp, count)
			}
		}
		return err
	})
	if err != nil {
		op.Unknown()
		return fmt.Errorf("identity %s| count %d: %w", prefix, count, err)
	}
	op.Done(b.First, b.Last, b.Skipped...)
	return nil
}

// hiloState is what a HiLo client remembers from its previous range.
type hiloState struct {
	lastSize, lastAt, lastMax int64
}

// nextHiLo reserves one range of tag (one request_id, tried on the nodes from home) and
// records it. The granted range must not overlap the previous one (st). A node with a quorum
// grants above the caller's last_max (from its pool, else through a new reservation), so
// while the cluster is whole each client's ranges rise though ranges of different nodes
// interleave; a node cut off from its majority may grant below it, from its pool (the
// history checks every range against every other).
func (c *chaosClient) nextHiLo(rec *history.Recorder, tag string, st *hiloState, home int, budget time.Duration) (*idnodev1.NextHiLoResponse, error) {
	req := &idnodev1.NextHiLoRequest{Tag: tag, LastBatchSize: st.lastSize, LastRangeAt: st.lastAt, LastMax: st.lastMax, RequestId: c.requestID()}
	var resp *idnodev1.NextHiLoResponse
	err := c.onNodes(home, budget, func(ctx context.Context, via string, _ int) (err error) {
		if resp, err = c.ids[via].NextHiLo(ctx, req); err == nil &&
			(overlapsPrevious(resp, st.lastMax, st.lastSize) || resp.GetHigh() < resp.GetLow() || resp.GetPrefix() != tag+"/" || !validNodeTag(resp.GetServerTag())) {
			err = fmt.Errorf("NextHiLo(%s, last_max %d) = %v: want a range off the previous one, prefix %s/ and a node tag", tag, st.lastMax, resp, tag)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("NextHiLo(%s): %w", tag, err)
	}
	rec.HiLoRange(tag, resp.GetLow(), resp.GetHigh())
	st.lastSize, st.lastAt, st.lastMax = resp.GetLastSize(), resp.GetLastRangeAt(), resp.GetHigh()
	return resp, nil
}

// overlapsPrevious reports whether resp's range shares a number with the caller's previous
// range, of size lastSize ending at lastMax.
func overlapsPrevious(resp *idnodev1.NextHiLoResponse, lastMax, lastSize int64) bool {
	return resp.GetLow() <= lastMax && resp.GetHigh() > lastMax-lastSize
}

func validNodeTag(s string) bool {
	if len(s) < 1 || len(s) > 4 {
		return false
	}
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// serverSide asks node tag, and only it, for count server-side IDs and records them. They
// must carry the node's own tag: a server-side ID is never asked of another node in its place.
func (c *chaosClient) serverSide(rec *history.Recorder, tag string, count int64, timeout time.Duration) error {
	call := rec.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	resp, err := c.ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Id: chaosSSPrefix + "/", Count: count})
	cancel()
	if err != nil {
		return fmt.Errorf("Generate(%s/) via %s: %w", chaosSSPrefix, tag, err)
	}
	if int64(len(resp.GetIds())) != count {
		return fmt.Errorf("Generate(%s/, count %d) via %s = %q", chaosSSPrefix, count, tag, resp.GetIds())
	}
	for _, id := range resp.GetIds() {
		p, gotTag, etag, err := history.ParseServerSideID(id, '/')
		if err != nil {
			return err
		}
		if p != chaosSSPrefix || gotTag != tag {
			return fmt.Errorf("Generate(%s/) via %s = %q: want prefix %s and node tag %s", chaosSSPrefix, tag, id, chaosSSPrefix, tag)
		}
		rec.ServerSideID(call, id, gotTag, etag)
	}
	return nil
}

// guid asks node tag for a GUID (v7, or v4 when v4) and records it.
func (c *chaosClient) guid(rec *history.Recorder, tag string, v4 bool, timeout time.Duration) error {
	req := &idnodev1.GenerateRequest{Id: ""}
	want := uuid.Version(7)
	if v4 {
		req.GuidVersion, want = idnodev1.GuidVersion_GUID_VERSION_V4, 4
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	resp, err := c.ids[tag].Generate(ctx, req)
	cancel()
	if err != nil {
		return fmt.Errorf("Generate(GUID) via %s: %w", tag, err)
	}
	if len(resp.GetIds()) != 1 {
		return fmt.Errorf("Generate(GUID) via %s = %q, want one", tag, resp.GetIds())
	}
	g := resp.GetIds()[0]
	u, err := uuid.Parse(g)
	if err != nil || u.String() != g || u.Version() != want {
		return fmt.Errorf("Generate(GUID) via %s = %q: want a canonical lower-case UUIDv%d (%v)", tag, g, want, err)
	}
	rec.GUID(g)
	return nil
}

// chaosLoad is the clients of one schedule, running until stopped.
type chaosLoad struct {
	c    *chaosClient
	rec  *history.Recorder
	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once

	identityOps atomic.Int64 // acknowledged identity operations
	// dbIdentityOps are those in chaosDatabase.
	dbIdentityOps atomic.Int64
	gaveUp        atomic.Int64 // identity, HiLo and claim calls that ran out of budget
	hiloRanges    atomic.Int64
	claims        atomic.Int64   // claims answered, won or lost (chaos_claims.go)
	claimers      bool           // startClaims was called; set and read by the test's goroutine only
	series        *seriesLoad    // startSeries was called (chaos_series.go); set by the test's goroutine only
	opaque        *opaqueLoad    // StartOpaque was called (chaos_opaque.go); set by the test's goroutine only
	localErrs     atomic.Int64   // server-side and GUID calls refused or unanswered (a node down)
	serverSide    []atomic.Int64 // server-side IDs received, per node (A, B, C …)
	guids         []atomic.Int64 // GUIDs received, per node

	mu   sync.Mutex
	errs []error // unexpected: a wrong answer, a code no client should see
}

func (ld *chaosLoad) fail(err error) {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	if len(ld.errs) < e2etest.MaxErrorsKept {
		ld.errs = append(ld.errs, err)
	}
}

func (ld *chaosLoad) errors() []error {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	return append([]error(nil), ld.errs...)
}

func (ld *chaosLoad) stopped() bool {
	select {
	case <-ld.stop:
		return true
	default:
		return false
	}
}

// pause sleeps d unless the load is stopped first; it reports whether to go on.
func (ld *chaosLoad) pause(d time.Duration) bool {
	select {
	case <-ld.stop:
		return false
	case <-time.After(d):
		return true
	}
}

// startChaosLoad starts every client:
//   - identity workers alternating Generate("orders|") and NextIdentity("orders") with
//     count 1, 2, 3, each starting at its own node and moving on with the same request_id;
//     chaosDBWorkers more do the same in chaosDatabase, recorded in recDB;
//   - HiLo workers on one tag, each sending back its previous range (last_* fields);
//   - one local worker per node, asking only that node, in turn, for server-side IDs (no
//     retry elsewhere: an ID names the node that issued it) and GUIDs.
func startChaosLoad(c *chaosClient, rec, recDB *history.Recorder) *chaosLoad {
	nodes := len(c.cluster.nodes)
	ld := &chaosLoad{c: c, rec: rec, stop: make(chan struct{}), serverSide: make([]atomic.Int64, nodes), guids: make([]atomic.Int64, nodes)}
	for w := range chaosIdentityWorkers + chaosDBWorkers {
		prefix, db, r := chaosPrefix, "", rec
		if w == 3 {
			prefix = "Orders" // the same counter: prefixes compare case-insensitively
		}
		if w >= chaosIdentityWorkers {
			db, r = chaosDatabase, recDB
		}
		ld.wg.Go(func() {
			for i := 0; i < chaosMaxOps && !ld.stopped(); i++ {
				count := int64(1 + (i+w)%3)
				err := c.identity(r, db, prefix, count, i%2 == 0, w%len(c.cluster.nodes), chaosOpBudget)
				switch {
				case err == nil && db != "":
					ld.dbIdentityOps.Add(1)
				case err == nil:
					ld.identityOps.Add(1)
				case errors.Is(err, errChaosGaveUp):
					ld.gaveUp.Add(1)
				default:
					ld.fail(fmt.Errorf("identity worker %d: %w", w, err))
				}
				if !ld.pause(chaosPace) {
					return
				}
			}
		})
	}
	for w := range chaosHiLoWorkers {
		ld.wg.Go(func() {
			var st hiloState
			for i := 0; i < chaosMaxOps && !ld.stopped(); i++ {
				_, err := c.nextHiLo(rec, chaosHiLoTag, &st, (w+1)%len(c.cluster.nodes), chaosOpBudget)
				switch {
				case err == nil:
					ld.hiloRanges.Add(1)
				case errors.Is(err, errChaosGaveUp):
					ld.gaveUp.Add(1)
				default:
					ld.fail(fmt.Errorf("HiLo worker %d: %w", w, err))
				}
				if !ld.pause(chaosHiLoPace) {
					return
				}
			}
		})
	}
	for i, n := range c.cluster.nodes {
		ld.wg.Go(func() {
			for j := 0; j < chaosMaxOps && !ld.stopped(); j++ {
				var err error
				if j%2 == 0 {
					count := int64(1 + j/2%2)
					if err = c.serverSide(rec, n.Tag, count, chaosAttempt); err == nil {
						ld.serverSide[i].Add(count)
					}
				} else if err = c.guid(rec, n.Tag, j%4 == 3, chaosAttempt); err == nil {
					ld.guids[i].Add(1)
				}
				switch {
				case err == nil:
				case e2etest.Retryable(err):
					ld.localErrs.Add(1) // the node is down, paused or restarting
				default:
					ld.fail(fmt.Errorf("local worker %s: %w", n.Tag, err))
				}
				if !ld.pause(chaosLocalPace) {
					return
				}
			}
		})
	}
	return ld
}

// finish stops the clients and waits for the calls in flight (each ends within its budget).
func (ld *chaosLoad) finish(t testing.TB) {
	t.Helper()
	ld.once.Do(func() { close(ld.stop) })
	done := make(chan struct{})
	go func() { ld.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(chaosOpBudget + 10*time.Second):
		t.Errorf("the chaos clients did not stop within %v", chaosOpBudget+10*time.Second)
	}
}

// chaosCounts is a progress snapshot.
type chaosCounts struct {
	identities, hilo  int64
	dbIdentities      int64   // in chaosDatabase
	claims            int64   // answered
	series            int64   // numbers issued (chaos_series.go)
	opaque            int64   // opaque identity calls answered (chaos_opaque.go)
	serverSide, guids []int64 // per node, in the cluster's order
}

func (ld *chaosLoad) counts() chaosCounts {
	var c chaosCounts
	c.identities, c.hilo, c.dbIdentities, c.claims = ld.identityOps.Load(), ld.hiloRanges.Load(), ld.dbIdentityOps.Load(), ld.claims.Load()
	if ld.series != nil {
		c.series = ld.series.issued.Load()
	}
	c.opaque = ld.opaqueAcked()
	c.serverSide, c.guids = make([]int64, len(ld.serverSide)), make([]int64, len(ld.guids))
	for i := range c.serverSide {
		c.serverSide[i], c.guids[i] = ld.serverSide[i].Load(), ld.guids[i].Load()
	}
	return c
}

func (c chaosCounts) String() string {
	return fmt.Sprintf("identity ops %d (and %d in %s), HiLo ranges %d, claims answered %d, series numbers %d, opaque identity ops %d, server-side IDs per node %s, GUIDs per node %s",
		c.identities, c.dbIdentities, chaosDatabase, c.hilo, c.claims, c.series, c.opaque, perNode(c.serverSide), perNode(c.guids))
}

// perNode shows counts of the nodes in order, A/B/C… as 12/7/9….
func perNode(counts []int64) string {
	parts := make([]string, len(counts))
	for i, n := range counts {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, "/")
}

func JoinTags(tags []string) string { return strings.Join(tags, ",") }
