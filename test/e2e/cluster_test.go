package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/internal/poll"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/history"
)

// Bounds of the cluster tests, on top of harness_test.go's.
const (
	attemptTimeout  = time.Second      // one attempt of a load call; then the next node is tried
	opBudget        = 30 * time.Second // one logical identity call, all its retries included
	loadTimeout     = 30 * time.Second // waiting for the load to reach a number of answers
	failoverLimit   = 10 * time.Second // polling for a survivor's answer after the leader died
	refusalLimit    = 10 * time.Second // deadline of the call that must be refused for no quorum
	historyTimeout  = 30 * time.Second // linearizability check
	retryPause      = 20 * time.Millisecond
	probeAttempt    = 250 * time.Millisecond // one probe call while measuring failover
	leaderTimeout   = 15 * time.Second       // until Status names a leader
	clusterJoinWait = 60 * time.Second       // a 4th node joining, start to SERVING
)

var clusterTags = []string{"A", "B", "C"}

// cluster is three idnode processes with the same --peers list.
type cluster struct {
	t      testing.TB
	nodes  []*proc // A, B, C
	peers  string
	conns  map[string]*grpc.ClientConn
	ids    map[string]idnodev1.IdServiceClient
	admin  map[string]idnodev1.ClusterServiceClient
	health map[string]healthpb.HealthClient
	runID  string // makes request ids unique to this cluster
	reqSeq atomic.Int64
}

// startCluster starts A, B and C on loopback with a static peer list and waits until each
// one serves every strategy (its own registration included).
func startCluster(t testing.TB, extra ...string) *cluster {
	t.Helper()
	return startClusterWith(t, func(string) nodeOpts { return nodeOpts{Extra: extra} })
}

// startClusterWith is startCluster with each node's options from opts (its Tag and Peers are
// filled in).
func startClusterWith(t testing.TB, opts func(tag string) nodeOpts) *cluster {
	t.Helper()
	var raft []string
	for _, tag := range clusterTags {
		raft = append(raft, tag+"="+freeAddr(t))
	}
	c := &cluster{
		t: t, peers: strings.Join(raft, ","), runID: uuid.NewString()[:8],
		conns: map[string]*grpc.ClientConn{},
		ids:   map[string]idnodev1.IdServiceClient{}, admin: map[string]idnodev1.ClusterServiceClient{},
		health: map[string]healthpb.HealthClient{},
	}
	for _, tag := range clusterTags {
		o := opts(tag)
		o.Tag, o.Peers = tag, c.peers
		c.nodes = append(c.nodes, startNode(t, o))
	}
	for _, p := range c.nodes {
		p.waitServing(serveTimeout)
		conn := dialConn(t, p.GRPCAddr)
		c.conns[p.Tag] = conn
		c.ids[p.Tag] = idnodev1.NewIdServiceClient(conn)
		c.admin[p.Tag] = idnodev1.NewClusterServiceClient(conn)
		c.health[p.Tag] = healthpb.NewHealthClient(conn)
	}
	return c
}

// waitServing waits until each node tag serves and this cluster's client connection to it is
// READY again: after a restart it may still be in reconnect backoff, and a call would fail at
// once.
func (c *cluster) waitServing(tags ...string) {
	c.t.Helper()
	for _, tag := range tags {
		c.node(tag).waitServing(serveTimeout)
	}
	for _, tag := range tags {
		conn := c.conns[tag]
		ctx, cancel := context.WithTimeout(context.Background(), serveTimeout)
		conn.Connect()
		for st := conn.GetState(); st != connectivity.Ready; st = conn.GetState() {
			if !conn.WaitForStateChange(ctx, st) {
				cancel()
				c.t.Fatalf("client connection to node %s not READY within %v (state %v)", tag, serveTimeout, st)
			}
		}
		cancel()
	}
}

func (c *cluster) node(tag string) *proc {
	for _, p := range c.nodes {
		if p.Tag == tag {
			return p
		}
	}
	c.t.Fatalf("no node %s", tag)
	return nil
}

func (c *cluster) others(tags ...string) []string {
	var out []string
	for _, tag := range clusterTags {
		if !slices.Contains(tags, tag) {
			out = append(out, tag)
		}
	}
	return out
}

func (c *cluster) requestID() string {
	return fmt.Sprintf("e2e-%s-%d", c.runID, c.reqSeq.Add(1))
}

// leader polls Status{consistent} on the given nodes (all by default) until one names a
// leader, and returns its tag.
func (c *cluster) leader(via ...string) string {
	c.t.Helper()
	if len(via) == 0 {
		via = clusterTags
	}
	var leader string
	i := 0
	eventually(c.t, leaderTimeout, "a leader is named", func() error {
		tag := via[i%len(via)]
		i++
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		st, err := c.admin[tag].Status(ctx, &idnodev1.StatusRequest{Consistent: true})
		if err != nil {
			return fmt.Errorf("Status via %s: %w", tag, err)
		}
		if st.GetLeader() == "" {
			return fmt.Errorf("Status via %s names no leader", tag)
		}
		leader = st.GetLeader()
		return nil
	})
	return leader
}

// retryable is what a client may retry on another node: no quorum or leader right now, or
// no answer in time.
func retryable(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded:
		return true
	}
	return false
}

// parseIdentities checks that Generate's answer for prefix and count is count consecutive
// identities of prefix (spelt as asked) and returns the first and last number.
func parseIdentities(ids []string, prefix string, count int64) (first, last int64, err error) {
	b, err := parseIdentityBlock(ids, prefix, count)
	if err != nil {
		return 0, 0, err
	}
	if len(b.Skipped) > 0 {
		return 0, 0, fmt.Errorf("Generate(%s|, count %d) returned non-consecutive IDs %q", prefix, count, ids)
	}
	return b.First, b.Last, nil
}

// parseIdentityBlock checks that Generate's answer for prefix and count is count ascending
// identities of prefix (spelt as asked), and returns them as a block: the values between them
// are its holes, values someone claimed.
func parseIdentityBlock(ids []string, prefix string, count int64) (docid.IdentityBlock, error) {
	var b docid.IdentityBlock
	if int64(len(ids)) != count {
		return b, fmt.Errorf("Generate(%s|, count %d) returned %d IDs: %q", prefix, count, len(ids), ids)
	}
	for i, id := range ids {
		p, n, err := history.ParseIdentityID(id, '/')
		if err != nil {
			return b, err
		}
		if p != prefix {
			return b, fmt.Errorf("Generate(%s|) returned %q: prefix spelt %q", prefix, id, p)
		}
		switch {
		case i == 0:
			b.First = n
		case n <= b.Last:
			return b, fmt.Errorf("Generate(%s|, count %d) returned IDs out of order: %q", prefix, count, ids)
		default:
			for v := b.Last + 1; v < n; v++ {
				b.Skipped = append(b.Skipped, v)
			}
		}
		b.Last = n
	}
	return b, nil
}

// validBlock reports whether b holds count values from 1 up, its holes ascending and strictly
// inside First … Last (a claimed value before First is passed over, not a hole).
func validBlock(b docid.IdentityBlock, count int64) bool {
	low := b.First
	for _, v := range b.Skipped {
		if v <= low || v >= b.Last {
			return false
		}
		low = v
	}
	return b.First >= 1 && b.Len() == count
}

// identity is one logical identity request, recorded in rec: Generate{prefix|, count,
// request_id}, sent to the nodes in order from start, moving on after every retryable
// failure with the same request_id, for at most budget. An attempt gets perCall. A
// non-retryable error, a malformed answer or the end of the budget is returned as an error
// (the operation is then recorded with an unknown outcome).
func (c *cluster) identity(rec *history.Recorder, prefix string, count int64, start int, perCall, budget time.Duration) (first, last int64, err error) {
	reqID := c.requestID()
	op := rec.BeginIdentity(prefix, count)
	deadline := time.Now().Add(budget)
	for attempt := 0; ; attempt++ {
		tag := clusterTags[(start+attempt)%len(clusterTags)]
		if attempt > 0 {
			op.Retry()
		}
		ctx, cancel := context.WithTimeout(context.Background(), min(perCall, max(time.Until(deadline), time.Millisecond)))
		resp, err := c.ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Id: prefix + "|", Count: count, RequestId: reqID})
		cancel()
		if err == nil {
			first, last, perr := parseIdentities(resp.GetIds(), prefix, count)
			if perr != nil {
				op.Unknown()
				return 0, 0, perr
			}
			op.Done(first, last)
			return first, last, nil
		}
		if !retryable(err) {
			op.Unknown()
			return 0, 0, fmt.Errorf("Generate(%s|) via %s: %w", prefix, tag, err)
		}
		if time.Now().After(deadline) {
			op.Unknown()
			return 0, 0, fmt.Errorf("Generate(%s|): no answer within %v (%d attempts, last via %s: %w)", prefix, budget, attempt+1, tag, err)
		}
		time.Sleep(retryPause) // retry backoff
	}
}

// mustIdentity asks node via, and only via, once for count values of prefix (recorded), and
// fails the test unless it answers.
func (c *cluster) mustIdentity(rec *history.Recorder, prefix string, count int64, via string) (first, last int64) {
	c.t.Helper()
	op := rec.BeginIdentity(prefix, count)
	resp, err := c.ids[via].Generate(rpcCtx(c.t), &idnodev1.GenerateRequest{Id: prefix + "|", Count: count, RequestId: c.requestID()})
	if err != nil {
		op.Unknown()
		c.t.Fatalf("Generate(%s|, count %d) via %s: %v", prefix, count, via, err)
	}
	first, last, err = parseIdentities(resp.GetIds(), prefix, count)
	if err != nil {
		op.Unknown()
		c.t.Fatalf("via %s: %v", via, err)
	}
	op.Done(first, last)
	return first, last
}

// serverSide asks node tag for one server-side ID of prefix, records it and returns its etag.
func (c *cluster) serverSide(rec *history.Recorder, prefix, tag string, timeout time.Duration) (uint64, error) {
	call := rec.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	resp, err := c.ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Id: prefix + "/"})
	if err != nil {
		return 0, fmt.Errorf("Generate(%s/) via %s: %w", prefix, tag, err)
	}
	if len(resp.GetIds()) != 1 {
		return 0, fmt.Errorf("Generate(%s/) via %s = %q, want one ID", prefix, tag, resp.GetIds())
	}
	id := resp.GetIds()[0]
	p, gotTag, etag, err := history.ParseServerSideID(id, '/')
	if err != nil {
		return 0, err
	}
	if p != prefix || gotTag != tag {
		return 0, fmt.Errorf("Generate(%s/) via %s = %q: want prefix %s and node tag %s", prefix, tag, id, prefix, tag)
	}
	rec.ServerSideID(call, id, gotTag, etag)
	return etag, nil
}

func (c *cluster) mustServerSide(rec *history.Recorder, prefix, tag string) uint64 {
	c.t.Helper()
	etag, err := c.serverSide(rec, prefix, tag, rpcTimeout)
	if err != nil {
		c.t.Fatal(err)
	}
	return etag
}

// nextHiLo reserves a range of tag through node via and records it.
func (c *cluster) nextHiLo(rec *history.Recorder, tag, via string) *idnodev1.NextHiLoResponse {
	c.t.Helper()
	resp, err := c.ids[via].NextHiLo(rpcCtx(c.t), &idnodev1.NextHiLoRequest{Tag: tag, RequestId: c.requestID()})
	if err != nil {
		c.t.Fatalf("NextHiLo(%s) via %s: %v", tag, via, err)
	}
	if resp.GetLow() < 1 || resp.GetHigh() < resp.GetLow() {
		c.t.Fatalf("NextHiLo(%s) via %s = %v: not a range", tag, via, resp)
	}
	rec.HiLoRange(tag, resp.GetLow(), resp.GetHigh())
	return resp
}

// waitAcks waits until rec holds at least n acknowledged identity operations.
func waitAcks(t testing.TB, rec *history.Recorder, n int, ld *load) {
	t.Helper()
	eventually(t, loadTimeout, fmt.Sprintf("%d identity answers", n), func() error {
		if err := ld.firstErr(); err != nil {
			t.Fatalf("load: %v", err)
		}
		if got := rec.Acknowledged(); got < n {
			return fmt.Errorf("%d answers so far", got)
		}
		return nil
	})
}

// load is a few client goroutines asking for identities (and now and then a server-side ID)
// until stopped, each starting at its own node and retrying elsewhere with the same
// request_id, as a careful client would.
type load struct {
	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs []error
	ops  atomic.Int64
}

func (c *cluster) startLoad(rec *history.Recorder, workers int, prefix string) *load {
	ld := &load{stop: make(chan struct{})}
	for w := range workers {
		ld.wg.Go(func() {
			home := w % len(clusterTags)
			for i := 0; ; i++ {
				select {
				case <-ld.stop:
					return
				default:
				}
				count := int64(1 + i%3/2) // 1, 1, 2, …
				if _, _, err := c.identity(rec, prefix, count, home, attemptTimeout, opBudget); err != nil {
					ld.fail(fmt.Errorf("worker %d: %w", w, err))
					return
				}
				ld.ops.Add(1)
				if i%4 == 0 {
					// Server-side IDs need no quorum; a dead or frozen home node just has none.
					_, _ = c.serverSide(rec, "users", clusterTags[home], attemptTimeout)
				}
			}
		})
	}
	return ld
}

func (ld *load) fail(err error) {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	ld.errs = append(ld.errs, err)
}

func (ld *load) firstErr() error {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	if len(ld.errs) > 0 {
		return ld.errs[0]
	}
	return nil
}

// finish stops the load and fails the test on any error it met. A call in progress gets to
// finish (at most opBudget).
func (ld *load) finish(t testing.TB) {
	t.Helper()
	close(ld.stop)
	done := make(chan struct{})
	go func() { ld.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(opBudget + 5*time.Second):
		t.Fatalf("load did not stop within %v", opBudget+5*time.Second)
	}
	ld.mu.Lock()
	defer ld.mu.Unlock()
	for _, err := range ld.errs {
		t.Errorf("load: %v", err)
	}
}

// checkHistory fails the test unless rec has no duplicates and is linearizable, and unless
// every node's etags increased.
func checkHistory(t testing.TB, rec *history.Recorder) {
	t.Helper()
	rep := rec.CheckWith(history.CheckOptions{Timeout: historyTimeout, VisualizeDir: os.Getenv("IDNODE_E2E_HISTORY_DIR")})
	t.Logf("history: %v (%d identity ops, %d retried attempts, %d without a final answer)", rep, rep.IdentityOps, rep.Retries, rep.UnknownOps)
	if err := rep.Err(); err != nil {
		t.Error(err)
	}
	if rep.Identities == 0 {
		t.Error("history: no identity was acknowledged")
	}
	for _, tag := range clusterTags {
		if err := rec.EtagsIncreasing(tag); err != nil {
			t.Error(err)
		}
	}
}

func healthOf(hc healthpb.HealthClient, service string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		return "error: " + err.Error()
	}
	return resp.GetStatus().String()
}

func TestClusterRoundRobinIdentities(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	rec := history.New()

	for i := range 30 {
		via := clusterTags[i%3]
		first, _ := c.mustIdentity(rec, "orders", 1, via)
		if first != int64(i+1) {
			t.Fatalf("call %d via %s: orders/%d, want orders/%d", i+1, via, first, i+1)
		}
	}
	for _, tag := range clusterTags {
		// serverSide checks the prefix and that the tag is the node's own.
		if etag := c.mustServerSide(rec, "users", tag); etag != 1 {
			t.Errorf("Generate(users/) via %s: etag %d, want users/0000000000000000001-%s", tag, etag, tag)
		}
	}

	var leader string
	for _, via := range clusterTags {
		st, err := c.admin[via].Status(rpcCtx(t), &idnodev1.StatusRequest{Consistent: true})
		if err != nil {
			t.Fatalf("Status{consistent} via %s: %v", via, err)
		}
		if !slices.Contains(clusterTags, st.GetLeader()) {
			t.Errorf("Status via %s names leader %q, want one of %v", via, st.GetLeader(), clusterTags)
		}
		if leader == "" {
			leader = st.GetLeader()
		} else if st.GetLeader() != leader {
			t.Errorf("Status via %s names leader %s; another node named %s", via, st.GetLeader(), leader)
		}
		var got []string
		for _, n := range st.GetNodes() {
			got = append(got, n.GetTag())
			p := c.node(n.GetTag())
			if !n.GetVoter() || !n.GetReachable() {
				t.Errorf("Status via %s: node %s voter=%v reachable=%v, want both", via, n.GetTag(), n.GetVoter(), n.GetReachable())
			}
			if n.GetGrpcAddress() != p.GRPCAddr || n.GetRaftAddress() != p.RaftAddr {
				t.Errorf("Status via %s: node %s at grpc %s raft %s, want %s and %s", via, n.GetTag(), n.GetGrpcAddress(), n.GetRaftAddress(), p.GRPCAddr, p.RaftAddr)
			}
			if wantState := map[bool]string{true: "leader", false: "follower"}[n.GetTag() == leader]; n.GetState() != wantState {
				t.Errorf("Status via %s: node %s state %q, want %q", via, n.GetTag(), n.GetState(), wantState)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, clusterTags) {
			t.Errorf("Status via %s lists nodes %q, want %q", via, got, clusterTags)
		}
	}
	t.Logf("leader %s", leader)
	checkHistory(t, rec)
}

func TestClusterLeaderKill9Failover(t *testing.T) {
	c := startCluster(t)
	rec := history.New()
	ld := c.startLoad(rec, 4, "orders")
	defer func() {
		if ld != nil {
			ld.finish(t)
		}
	}()
	waitAcks(t, rec, 60, ld)

	leader := c.leader()
	survivors := c.others(leader)
	killed := c.node(leader)
	killedAt := time.Now()
	killed.kill9()
	maxBefore, _ := rec.MaxIdentity("orders")

	// How long until a survivor answers an identity: short attempts, alternating survivors,
	// one logical call with one request_id.
	reqID := c.requestID()
	op := rec.BeginIdentity("orders", 1)
	var (
		failover time.Duration
		first    int64
		attempts int
		lastErr  error
	)
	for deadline := time.Now().Add(failoverLimit); ; {
		via := survivors[attempts%len(survivors)]
		attempts++
		ctx, cancel := context.WithTimeout(context.Background(), probeAttempt)
		resp, err := c.ids[via].Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|", RequestId: reqID})
		cancel()
		if err == nil {
			failover = time.Since(killedAt)
			var perr error
			if first, _, perr = parseIdentities(resp.GetIds(), "orders", 1); perr != nil {
				op.Unknown()
				t.Fatal(perr)
			}
			op.Done(first, first)
			t.Logf("failover: %s killed; %s answered orders/%d after %d ms (%d attempts)", leader, via, first, failover.Milliseconds(), attempts)
			break
		}
		lastErr = err
		if !retryable(err) {
			op.Unknown()
			t.Fatalf("after killing leader %s: Generate(orders|) via %s: %v, want UNAVAILABLE or an answer", leader, via, err)
		}
		if time.Now().After(deadline) {
			op.Unknown()
			t.Fatalf("no survivor answered an identity within %v of killing leader %s (last error: %v)", failoverLimit, leader, lastErr)
		}
		op.Retry()
		time.Sleep(10 * time.Millisecond) // retry backoff; bounds the measurement's resolution
	}
	if first <= maxBefore {
		t.Errorf("first identity after failover orders/%d, but orders/%d was acknowledged before the kill", first, maxBefore)
	}
	// DESIGN's goal is failover within about a second (< 2 s); on a loaded 2-core machine
	// under -race only a loose bound is asserted, the figure is logged.
	if failover > 5*time.Second {
		t.Errorf("failover took %v, want < 5 s (design goal < 2 s)", failover)
	} else if failover > 2*time.Second {
		t.Logf("failover took %v: above the 2 s design goal (loaded machine?)", failover)
	}
	if st, err := c.admin[survivors[0]].Status(rpcCtx(t), &idnodev1.StatusRequest{Consistent: true}); err != nil || !slices.Contains(survivors, st.GetLeader()) {
		t.Errorf("Status after failover = leader %q, %v; want one of %v", st.GetLeader(), err, survivors)
	}

	// The load keeps going on the survivors.
	waitAcks(t, rec, rec.Acknowledged()+40, ld)

	// The killed node comes back, rejoins, and identities through it continue.
	etagBefore := rec.MaxEtag(leader)
	killed.restart()
	c.waitServing(leader)
	waitAcks(t, rec, rec.Acknowledged()+20, ld)
	maxNow, _ := rec.MaxIdentity("orders")
	v, _ := c.mustIdentity(rec, "orders", 1, leader)
	if v <= maxNow {
		t.Errorf("identity via restarted %s: orders/%d, but orders/%d was already acknowledged", leader, v, maxNow)
	}
	if e := c.mustServerSide(rec, "users", leader); e <= etagBefore {
		t.Errorf("restarted %s issued etag %d, but %d before its crash", leader, e, etagBefore)
	}
	ld.finish(t)
	ld = nil
	checkHistory(t, rec)
}

func TestClusterWholeRestartKeepsCounters(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"SIGTERM", "kill-9"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			c := startCluster(t)
			rec := history.New()

			for i := range 12 {
				c.mustIdentity(rec, "orders", 1, clusterTags[i%3])
				c.mustIdentity(rec, []string{"invoices", "Invoices"}[i%2], int64(1+i%3), clusterTags[(i+1)%3])
			}
			seed := rec.BeginSeed("invoices", 1000, false)
			sr, err := c.ids["B"].SeedIdentity(rpcCtx(t), &idnodev1.SeedIdentityRequest{Name: "invoices", Value: 1000})
			if err != nil || sr.GetValue() != 1000 {
				seed.Unknown()
				t.Fatalf("SeedIdentity(invoices, 1000) = %v, %v; want 1000", sr, err)
			}
			seed.Done(1000)
			if first, _ := c.mustIdentity(rec, "invoices", 1, "C"); first != 1001 {
				t.Fatalf("identity after seeding 1000: invoices/%d, want invoices/1001", first)
			}
			c.nextHiLo(rec, "orders", "A")
			c.nextHiLo(rec, "orders", "B")
			last := c.nextHiLo(rec, "orders", "C")
			// Give back the tail of the newest range, to the node that granted it: its pool
			// takes the tail back. After the restart the pool grants above it: the node cannot
			// prove its pools file current (it stops last, without a quorum to seal it, or is
			// killed), so the tail is a gap (issue 24; docs/DESIGN.md).
			keep := last.GetLow() + 4
			ret := &idnodev1.ReturnHiLoRequest{Tag: "orders", End: last.GetHigh(), Last: keep, GrantId: last.GetGrantId()}
			if resp, err := c.ids["C"].ReturnHiLo(rpcCtx(t), ret); err != nil || !resp.GetReturned() {
				t.Fatalf("ReturnHiLo = %v, %v; want returned", resp, err)
			}
			rec.HiLoReturn("orders", last.GetHigh(), keep)
			for _, tag := range clusterTags {
				for range 3 {
					c.mustServerSide(rec, "users", tag)
				}
			}
			maxOrders, _ := rec.MaxIdentity("orders")
			maxInvoices, _ := rec.MaxIdentity("invoices")
			want := map[string]int64{"orders": maxOrders, "invoices": maxInvoices}
			etags := map[string]uint64{}
			for _, tag := range clusterTags {
				etags[tag] = rec.MaxEtag(tag)
			}

			// Nothing is in flight: every call above has its answer.
			for _, p := range c.nodes {
				if mode == "SIGTERM" {
					took := p.stop()
					t.Logf("node %s: clean exit after %v", p.Tag, took.Round(time.Millisecond))
				} else {
					p.kill9()
				}
			}
			for _, p := range c.nodes {
				p.restart()
			}
			c.waitServing(clusterTags...)
			// Every counter continues right above what was acknowledged: nothing was in
			// flight, so nothing was lost to a gap either.
			if first, _ := c.mustIdentity(rec, "orders", 1, "B"); first != maxOrders+1 {
				t.Errorf("next orders identity after the restart: %d, want %d", first, maxOrders+1)
			}
			if first, _ := c.mustIdentity(rec, "INVOICES", 2, "C"); first != maxInvoices+1 {
				t.Errorf("next invoices identity after the restart: %d, want %d", first, maxInvoices+1)
			}
			// Read after those writes: a read right after the election can be stale (see
			// TestClusterFirstReadAfterRestartIsCurrent).
			want = map[string]int64{"orders": maxOrders + 1, "invoices": maxInvoices + 2}
			list, err := c.ids["A"].ListIdentities(rpcCtx(t), &idnodev1.ListIdentitiesRequest{})
			if err != nil {
				t.Fatalf("ListIdentities: %v", err)
			}
			if got := identityMap(list); !mapsEqual(got, want) {
				t.Errorf("ListIdentities after the restart = %v, want %v", got, want)
			}
			if hl := c.nextHiLo(rec, "orders", "C"); hl.GetLow() <= keep {
				t.Errorf("next HiLo range after the restart [%d, %d], want it above %d", hl.GetLow(), hl.GetHigh(), keep)
			}
			for _, tag := range clusterTags {
				if e := c.mustServerSide(rec, "users", tag); e <= etags[tag] {
					t.Errorf("node %s: etag %d after the restart, %d before", tag, e, etags[tag])
				}
			}
			for _, via := range clusterTags {
				st, err := c.admin[via].Status(rpcCtx(t), &idnodev1.StatusRequest{Consistent: true})
				if err != nil || len(st.GetNodes()) != 3 || !slices.Contains(clusterTags, st.GetLeader()) {
					t.Errorf("Status via %s after the restart = %v, %v; want 3 nodes and a leader", via, st, err)
					continue
				}
				for _, n := range st.GetNodes() {
					if p := c.node(n.GetTag()); n.GetGrpcAddress() != p.GRPCAddr || !n.GetReachable() || !n.GetVoter() {
						t.Errorf("Status via %s after the restart: node %s grpc %q reachable=%v voter=%v; want %s, reachable voter",
							via, n.GetTag(), n.GetGrpcAddress(), n.GetReachable(), n.GetVoter(), p.GRPCAddr)
					}
				}
			}
			checkHistory(t, rec)
		})
	}
}

// firstListIdentities asks every node for ListIdentities, each as often as it answers, from
// now until the first success, and returns that first answer and who gave it.
func (c *cluster) firstListIdentities(t testing.TB) (*idnodev1.ListIdentitiesResponse, string) {
	return c.firstListIdentitiesFrom(t, clusterTags)
}

func (c *cluster) firstListIdentitiesFrom(t testing.TB, tags []string) (*idnodev1.ListIdentitiesResponse, string) {
	t.Helper()
	type answer struct {
		resp *idnodev1.ListIdentitiesResponse
		via  string
	}
	found := make(chan answer, len(tags))
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, tag := range tags {
		wg.Go(func() {
			for deadline := time.Now().Add(serveTimeout); time.Now().Before(deadline); {
				select {
				case <-done:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
				resp, err := c.ids[tag].ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{})
				cancel()
				if err == nil {
					found <- answer{resp, tag}
					return
				}
				time.Sleep(2 * time.Millisecond) // retry backoff
			}
		})
	}
	var a answer
	select {
	case a = <-found:
	case <-time.After(serveTimeout + time.Second):
	}
	close(done)
	wg.Wait()
	if a.resp == nil {
		t.Fatalf("no node answered ListIdentities within %v of the restart", serveTimeout)
	}
	return a.resp, a.via
}

func identityMap(list *idnodev1.ListIdentitiesResponse) map[string]int64 {
	m := map[string]int64{}
	for _, id := range list.GetIdentities() {
		m[strings.ToLower(id.GetName())] = id.GetValue()
	}
	return m
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestClusterMinorityRefusesQuickly(t *testing.T) {
	for _, variant := range []string{"leader+follower frozen", "both followers frozen"} {
		t.Run(variant, func(t *testing.T) {
			c := startCluster(t)
			rec := history.New()
			ld := c.startLoad(rec, 3, "orders")
			defer func() {
				if ld != nil {
					ld.finish(t)
				}
			}()
			waitAcks(t, rec, 40, ld)

			leader := c.leader()
			followers := c.others(leader)
			frozen, third := []string{leader, followers[0]}, followers[1]
			if variant == "both followers frozen" {
				frozen, third = followers, leader
			}
			frozenAt := time.Now()
			for _, tag := range frozen {
				c.node(tag).sigstop()
			}
			thawed := false
			thaw := func() {
				if !thawed {
					thawed = true
					for _, tag := range frozen {
						c.node(tag).sigcont()
					}
				}
			}
			defer thaw()
			maxBefore, _ := rec.MaxIdentity("orders")
			t.Logf("froze %v; %s (leader %s) is alone; orders/%d acknowledged so far", frozen, third, leader, maxBefore)

			// The lone node refuses identities, quickly and in words.
			refuse := func() time.Duration {
				t.Helper()
				op := rec.BeginIdentity("orders", 1)
				begin := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), refusalLimit)
				resp, err := c.ids[third].Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|", RequestId: c.requestID()})
				cancel()
				took := time.Since(begin)
				if err == nil {
					first, last, perr := parseIdentities(resp.GetIds(), "orders", 1)
					if perr == nil {
						op.Done(first, last)
					} else {
						op.Unknown()
					}
					t.Fatalf("%s answered orders| with %q while %v were frozen: no quorum, yet an identity", third, resp.GetIds(), frozen)
				}
				op.Unknown() // a refused call may still have been appended: it may commit later
				st := status.Convert(err)
				if st.Code() != codes.Unavailable || !strings.Contains(st.Message(), "no quorum") {
					t.Fatalf("%s refused orders| with %v after %v; want UNAVAILABLE mentioning \"no quorum\"", third, err, took)
				}
				return took
			}
			refuse()
			refusal := time.Since(frozenAt)
			again := refuse()
			t.Logf("%s: identity refused %d ms after the freeze (%d ms for a second call): %q",
				third, refusal.Milliseconds(), again.Milliseconds(), "no quorum …")
			if refusal > 3*time.Second {
				t.Errorf("the refusal came %v after the freeze, want < 3 s", refusal)
			}

			// Local strategies keep working on it.
			if _, err := c.serverSide(rec, "users", third, rpcTimeout); err != nil {
				t.Errorf("server-side ID on the lone node: %v", err)
			}
			g, err := c.ids[third].Generate(rpcCtx(t), &idnodev1.GenerateRequest{Id: ""})
			if err != nil || len(g.GetIds()) != 1 {
				t.Errorf("GUID on the lone node: %v, %v", g, err)
			} else {
				rec.GUID(g.GetIds()[0])
			}
			if third == leader {
				// The old leader, cut off from both followers, must step down.
				eventually(t, 3*time.Second, "the lone old leader steps down", func() error {
					st, err := c.admin[third].Status(rpcCtx(t), &idnodev1.StatusRequest{})
					if err != nil {
						return err
					}
					for _, n := range st.GetNodes() {
						if n.GetTag() == third && n.GetState() == "leader" {
							return fmt.Errorf("%s still says it is the leader", third)
						}
					}
					if st.GetLeader() != "" {
						return fmt.Errorf("%s still names leader %s", third, st.GetLeader())
					}
					return nil
				})
			}
			hc := c.health[third]
			eventually(t, 3*time.Second, "consensus health NOT_SERVING on the lone node", func() error {
				if s := healthOf(hc, "idnode.v1.IdService/consensus"); s != "NOT_SERVING" {
					return errors.New(s)
				}
				return nil
			})
			if s := healthOf(hc, "idnode.v1.IdService/local"); s != "SERVING" {
				t.Errorf("local health on the lone node: %s, want SERVING", s)
			}
			if s := healthOf(hc, ""); s != "NOT_SERVING" {
				t.Errorf(`overall ("") health on the lone node: %s, want NOT_SERVING`, s)
			}
			if ld.ops.Load() == 0 {
				t.Fatal("load made no progress")
			}

			// Thaw: identities continue above every value acknowledged before.
			thaw()
			maxNow, _ := rec.MaxIdentity("orders")
			var next int64
			eventually(t, leaderTimeout, "an identity via "+third+" after the thaw", func() error {
				first, _, err := c.identity(rec, "orders", 1, slices.Index(clusterTags, third), time.Second, time.Second)
				next = first
				return err
			})
			if next <= maxNow {
				t.Errorf("identity after the thaw orders/%d, but orders/%d was acknowledged before", next, maxNow)
			}
			eventually(t, leaderTimeout, "consensus health SERVING again on "+third, func() error {
				if s := healthOf(hc, "idnode.v1.IdService/consensus"); s != "SERVING" {
					return errors.New(s)
				}
				return nil
			})
			waitAcks(t, rec, rec.Acknowledged()+30, ld)
			ld.finish(t)
			ld = nil
			checkHistory(t, rec)
		})
	}
}

func TestClusterRemovedTagNeverReturns(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	rec := history.New()
	a := c.node("A")

	// A fourth node joins and is given the next tag, D.
	dDir, dGRPC, dRaft := t.TempDir(), freeAddr(t), freeAddr(t)
	d := startNode(t, nodeOpts{Tag: "D", GRPCAddr: dGRPC, RawArgs: []string{
		"--join", a.GRPCAddr, "--data-dir", dDir, "--grpc-addr", dGRPC, "--raft-addr", dRaft, "--http-addr", "",
	}})
	d.waitServing(clusterJoinWait)
	dIDs, dAdmin := dial(t, dGRPC)
	st, err := dAdmin.Status(rpcCtx(t), &idnodev1.StatusRequest{})
	if err != nil || st.GetSelf() != "D" {
		t.Fatalf("Status via the joined node = self %q, %v; want D", st.GetSelf(), err)
	}
	st, err = c.admin["A"].Status(rpcCtx(t), &idnodev1.StatusRequest{Consistent: true})
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	voters := map[string]bool{}
	for _, n := range st.GetNodes() {
		voters[n.GetTag()] = n.GetVoter()
	}
	if len(voters) != 4 || !voters["D"] || !voters["A"] || !voters["B"] || !voters["C"] {
		t.Fatalf("Status after the join lists %v, want voters A, B, C, D", voters)
	}
	call := rec.Now()
	resp, err := dIDs.Generate(rpcCtx(t), &idnodev1.GenerateRequest{Id: "users/"})
	if err != nil || len(resp.GetIds()) != 1 || resp.GetIds()[0] != "users/0000000000000000001-D" {
		t.Fatalf("Generate(users/) via D = %v, %v; want users/0000000000000000001-D", resp, err)
	}
	rec.ServerSideID(call, resp.GetIds()[0], "D", 1)
	call = rec.Now()
	if resp, err := dIDs.Generate(rpcCtx(t), &idnodev1.GenerateRequest{Id: "orders|"}); err != nil || len(resp.GetIds()) != 1 || resp.GetIds()[0] != "orders/1" {
		t.Fatalf("Generate(orders|) via D = %v, %v; want orders/1", resp, err)
	}
	rec.AddIdentity(history.IdentityRecord{Prefix: "orders", Count: 1, Call: call, Return: rec.Now(), Known: true, First: 1, Last: 1})

	// D is removed: its tag is retired for ever.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := c.admin["B"].RemoveNode(ctx, &idnodev1.RemoveNodeRequest{Tag: "D"}); err != nil {
		t.Fatalf("RemoveNode(D): %v", err)
	}
	d.kill9() // out of the cluster; how a removed node winds down is not this test's subject
	st, err = c.admin["C"].Status(rpcCtx(t), &idnodev1.StatusRequest{Consistent: true})
	if err != nil {
		t.Fatalf("Status after RemoveNode: %v", err)
	}
	var tags []string
	for _, n := range st.GetNodes() {
		tags = append(tags, n.GetTag())
	}
	slices.Sort(tags)
	if !slices.Equal(tags, clusterTags) {
		t.Errorf("Status after RemoveNode(D) lists %q, want %q", tags, clusterTags)
	}

	// A new node asking for D must not start.
	bin := buildIdnode(t)
	jctx, jcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer jcancel()
	// No HTTP: its default address may be another test's, and the warning would be a second line.
	cmd := exec.CommandContext(jctx, bin, "--join", a.GRPCAddr, "--tag", "D", "--data-dir", t.TempDir(),
		"--grpc-addr", freeAddr(t), "--raft-addr", freeAddr(t), "--http-addr", "")
	cmd.Dir, cmd.Env = t.TempDir(), cleanEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() <= 0 {
		t.Errorf("idnode --join --tag D after D was removed: %v, want a non-zero exit (stderr %q)", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "idnode: ") ||
		!(strings.Contains(lines[0], "retired") || strings.Contains(lines[0], "already exists")) {
		t.Errorf("idnode --join --tag D: stderr %q, want one line \"idnode: …\" saying the tag is retired", stderr.String())
	}
	t.Logf("a new node asking for the retired tag D: %v, %s", err, strings.TrimSpace(stderr.String()))

	// Nor may an operator add it.
	_, err = c.admin["C"].AddNode(rpcCtx(t), &idnodev1.AddNodeRequest{Tag: "D", RaftAddress: freeAddr(t), GrpcAddress: freeAddr(t)})
	if status.Code(err) != codes.AlreadyExists {
		t.Errorf("AddNode(D) after RemoveNode(D) = %v, want ALREADY_EXISTS", err)
	}

	// C comes back with an empty data dir under its old tag and flags: it must not start, since
	// its etag would restart at 1 and its empty log would vote as the old C's.
	for range 3 {
		c.mustServerSide(rec, "users", "C")
	}
	cp := c.node("C")
	cp.stop()
	if err := os.RemoveAll(cp.DataDir); err != nil {
		t.Fatal(err)
	}
	cp.restart()
	cst, err := cp.waitExit(serveTimeout)
	if err != nil {
		t.Fatalf("C with an empty data dir did not refuse to start: %v", err)
	}
	if out := cp.logs.String(); cst.ExitCode() == 0 || !strings.Contains(out, "cluster already exists") {
		t.Fatalf("C with an empty data dir exited with %v, want a non-zero exit saying the cluster exists. Output:\n%s", cst, out)
	}
	// The rest of the cluster is unaffected (once it has elected a leader, if C led).
	c.leader("A", "B")
	for _, via := range []string{"A", "B"} {
		c.mustIdentity(rec, "orders", 1, via)
		c.mustServerSide(rec, "users", via)
	}
	checkHistory(t, rec)
}

// TestClusterFirstReadAfterRestartIsCurrent: DESIGN §3 makes ListIdentities linearizable.
// The first answer a restarted cluster gives must therefore hold every value acknowledged
// before the restart. (It failed while reads relied on raft's VerifyLeader alone: a new
// leader's FSM had not applied the entries of earlier terms yet.)
func TestClusterFirstReadAfterRestartIsCurrent(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	rec := history.New()
	for i := range 6 {
		c.mustIdentity(rec, "orders", 1, clusterTags[i%3])
	}
	for _, p := range c.nodes {
		p.stop()
	}
	for _, p := range c.nodes {
		p.restart()
	}
	// Ask all three nodes as fast as they answer; the very first answer counts.
	list, via := c.firstListIdentities(t)
	if got, want := identityMap(list), map[string]int64{"orders": 6}; !mapsEqual(got, want) {
		t.Errorf("first ListIdentities after a whole-cluster restart (via %s) = %v, want %v: a stale read", via, got, want)
	}
}

// TestClusterJoinWithRaftAddrOnly runs README's join command: --join, --data-dir,
// --grpc-addr and --raft-addr, no --raft-advertise. (It failed while the --join path did not
// derive the advertised Raft address.)
func TestClusterJoinWithRaftAddrOnly(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	dGRPC, dRaft := freeAddr(t), freeAddr(t)
	d := startNode(t, nodeOpts{Tag: "D", GRPCAddr: dGRPC, RawArgs: []string{
		"--join", c.node("A").GRPCAddr, "--data-dir", t.TempDir(), "--grpc-addr", dGRPC, "--raft-addr", dRaft, "--http-addr", "",
	}})
	d.waitServing(clusterJoinWait)
	// D serves as a non-voter first and asks to become a voter then (cmd/idnode's join).
	poll.Until(t, "node D a voter at its --raft-addr", clusterJoinWait, 50*time.Millisecond, func() error {
		st, err := c.admin["A"].Status(rpcCtx(t), &idnodev1.StatusRequest{Consistent: true})
		if err != nil {
			return err
		}
		for _, n := range st.GetNodes() {
			if n.GetTag() == "D" && (n.GetRaftAddress() != dRaft || !n.GetVoter()) {
				return fmt.Errorf("joined node D: raft %s voter=%v, want %s and a voter", n.GetRaftAddress(), n.GetVoter(), dRaft)
			}
			if n.GetTag() == "D" {
				return nil
			}
		}
		return fmt.Errorf("Status lists no node D: %v", st.GetNodes())
	})
}
