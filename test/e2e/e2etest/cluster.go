package e2etest

import (
	"context"
	"fmt"
	"os"
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
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/helpers/poll"
	"github.com/idnode/idnode/test/history"
)

// Bounds of the cluster tests, on top of harness.go's.
const (
	attemptTimeout  = time.Second      // one attempt of a load call; then the next node is tried
	opBudget        = 30 * time.Second // one logical identity call, all its retries included
	LoadTimeout     = 30 * time.Second // waiting for the load to reach a number of answers
	FailoverLimit   = 10 * time.Second // polling for a survivor's answer after the leader died
	RefusalLimit    = 10 * time.Second // deadline of the call that must be refused for no quorum
	historyTimeout  = 30 * time.Second // linearizability check
	retryPause      = 20 * time.Millisecond
	ProbeAttempt    = 250 * time.Millisecond // one probe call while measuring failover
	LeaderTimeout   = 15 * time.Second       // until Status names a leader
	ClusterJoinWait = 60 * time.Second       // a 4th node joining, start to SERVING
)

var ClusterTags = []string{"A", "B", "C"}

// Cluster is three idnode processes with the same --peers list.
type Cluster struct {
	T      testing.TB
	Nodes  []*Proc // A, B, C
	peers  string
	Conns  map[string]*grpc.ClientConn
	Ids    map[string]idnodev1.IdServiceClient
	Admin  map[string]idnodev1.ClusterServiceClient
	Health map[string]healthpb.HealthClient
	runID  string // makes request ids unique to this cluster
	reqSeq atomic.Int64
}

// StartCluster starts A, B and C on loopback with a static peer list and waits until each
// one serves every strategy (its own registration included).
func StartCluster(t testing.TB, extra ...string) *Cluster {
	t.Helper()
	return StartClusterWith(t, func(string) NodeOpts { return NodeOpts{Extra: extra} })
}

// StartClusterWith is startCluster with each node's options from opts (its Tag and Peers are
// filled in; a RaftAddr it gives is the node's entry in the peers, a free one otherwise).
func StartClusterWith(t testing.TB, opts func(tag string) NodeOpts) *Cluster {
	t.Helper()
	var raft []string
	nodeOpts := map[string]NodeOpts{}
	for _, tag := range ClusterTags {
		o := opts(tag)
		if o.RaftAddr == "" {
			o.RaftAddr = FreeAddr(t)
		}
		nodeOpts[tag] = o
		raft = append(raft, tag+"="+o.RaftAddr)
	}
	c := &Cluster{
		T: t, peers: strings.Join(raft, ","), runID: uuid.NewString()[:8],
		Conns: map[string]*grpc.ClientConn{},
		Ids:   map[string]idnodev1.IdServiceClient{}, Admin: map[string]idnodev1.ClusterServiceClient{},
		Health: map[string]healthpb.HealthClient{},
	}
	for _, tag := range ClusterTags {
		o := nodeOpts[tag]
		o.Tag, o.Peers = tag, c.peers
		c.Nodes = append(c.Nodes, StartNode(t, o))
	}
	for _, p := range c.Nodes {
		p.WaitServing(ServeTimeout)
		conn := DialConn(t, p.GRPCAddr)
		c.Conns[p.Tag] = conn
		c.Ids[p.Tag] = idnodev1.NewIdServiceClient(conn)
		c.Admin[p.Tag] = idnodev1.NewClusterServiceClient(conn)
		c.Health[p.Tag] = healthpb.NewHealthClient(conn)
	}
	return c
}

// WaitServing waits until each node tag serves and this cluster's client connection to it is
// READY again: after a restart it may still be in reconnect backoff, and a call would fail at
// once.
func (c *Cluster) WaitServing(tags ...string) {
	c.T.Helper()
	for _, tag := range tags {
		c.Node(tag).WaitServing(ServeTimeout)
	}
	for _, tag := range tags {
		conn := c.Conns[tag]
		ctx, cancel := context.WithTimeout(context.Background(), ServeTimeout)
		conn.Connect()
		for st := conn.GetState(); st != connectivity.Ready; st = conn.GetState() {
			if !conn.WaitForStateChange(ctx, st) {
				cancel()
				c.T.Fatalf("client connection to node %s not READY within %v (state %v)", tag, ServeTimeout, st)
			}
		}
		cancel()
	}
}

// WaitVoter waits until node A's consistent Status lists tag as a voter, and returns that
// Status. A node started with --join serves as a non-voter first and asks to become a voter
// then, so SERVING alone does not say the join has finished.
func (c *Cluster) WaitVoter(tag string) *idnodev1.StatusResponse {
	c.T.Helper()
	var st *idnodev1.StatusResponse
	poll.Until(c.T, "node "+tag+" a voter", ClusterJoinWait, PollInterval, func() error {
		var err error
		if st, err = c.Admin["A"].Status(RPCCtx(c.T), &idnodev1.StatusRequest{Consistent: true}); err != nil {
			return err
		}
		for _, n := range st.GetNodes() {
			if n.GetTag() == tag && n.GetVoter() {
				return nil
			}
		}
		return fmt.Errorf("not a voter yet; the cluster lists %v", st.GetNodes())
	})
	return st
}

func (c *Cluster) Node(tag string) *Proc {
	for _, p := range c.Nodes {
		if p.Tag == tag {
			return p
		}
	}
	c.T.Fatalf("no node %s", tag)
	return nil
}

func (c *Cluster) Others(tags ...string) []string {
	var out []string
	for _, tag := range ClusterTags {
		if !slices.Contains(tags, tag) {
			out = append(out, tag)
		}
	}
	return out
}

func (c *Cluster) RequestID() string {
	return fmt.Sprintf("e2e-%s-%d", c.runID, c.reqSeq.Add(1))
}

// Leader polls Status{consistent} on the given nodes (all by default) until one names a
// leader, and returns its tag.
func (c *Cluster) Leader(via ...string) string {
	c.T.Helper()
	return c.LeaderStatus(via...).GetLeader()
}

// LeaderStatus is Leader's Status read: the leader and its term.
func (c *Cluster) LeaderStatus(via ...string) *idnodev1.StatusResponse {
	c.T.Helper()
	if len(via) == 0 {
		via = ClusterTags
	}
	var st *idnodev1.StatusResponse
	i := 0
	Eventually(c.T, LeaderTimeout, "a leader is named", func() error {
		tag := via[i%len(via)]
		i++
		var err error
		st, err = c.leaderStatusFrom(tag)
		return err
	})
	return st
}

// LeaderNamedBy is the leader node tag names in a consistent Status read bounded by a
// second, or why it names none: one read, for a test that polls it with other conditions.
func (c *Cluster) LeaderNamedBy(tag string) (string, error) {
	st, err := c.leaderStatusFrom(tag)
	return st.GetLeader(), err
}

func (c *Cluster) leaderStatusFrom(tag string) (*idnodev1.StatusResponse, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	st, err := c.Admin[tag].Status(ctx, &idnodev1.StatusRequest{Consistent: true})
	if err != nil {
		return nil, fmt.Errorf("the Status call via %s: %w", tag, err)
	}
	if st.GetLeader() == "" {
		return nil, fmt.Errorf("the Status call via %s names no leader", tag)
	}
	return st, nil
}

// LeadersSince is every node tag that led the cluster in term or a later one, as any of its
// nodes saw it: the leadership changes each node recorded and the leader it names now. A test
// that checks which node served a call reads the term before the call and this after it, since
// on a busy machine an election may move the leadership while the call runs.
func (c *Cluster) LeadersSince(term uint64) map[string]bool {
	c.T.Helper()
	leaders := map[string]bool{}
	for _, p := range c.Nodes {
		st, err := c.Admin[p.Tag].Status(RPCCtx(c.T), &idnodev1.StatusRequest{})
		if err != nil {
			c.T.Fatalf("the Status call via %s: %v", p.Tag, err)
		}
		if st.GetLeader() != "" && st.GetTerm() >= term {
			leaders[st.GetLeader()] = true
		}
		for _, ch := range st.GetLeaderChanges() {
			if ch.GetLeader() != "" && ch.GetTerm() >= term {
				leaders[ch.GetLeader()] = true
			}
		}
	}
	return leaders
}

// LeadFromAnother makes sure node not does not lead, for a test whose premise is that it
// follows: an election on a busy machine may have made it the leader. The leadership is then
// handed to another node.
func (c *Cluster) LeadFromAnother(not string) {
	c.T.Helper()
	if c.Leader() != not {
		return
	}
	to := c.Others(not)[0]
	c.Retried("TransferLeadership to "+to, func(ctx context.Context, tag string) error {
		_, err := c.Admin[tag].TransferLeadership(ctx, &idnodev1.TransferLeadershipRequest{Tag: to})
		return err
	})
	Eventually(c.T, LeaderTimeout, "a leader other than "+not, func() error {
		if c.Leader() == not {
			return fmt.Errorf("%s leads", not)
		}
		return nil
	})
}

// MakeLeader hands the leadership to node tag and waits until every node names it, for a
// test whose premise is that tag leads. An election on a busy machine may take it away before
// all agree; the transfer is then made again, three times at most.
func (c *Cluster) MakeLeader(tag string) {
	c.T.Helper()
	var err error
	for range 3 {
		c.Retried("TransferLeadership to "+tag, func(ctx context.Context, via string) error {
			_, err := c.Admin[via].TransferLeadership(ctx, &idnodev1.TransferLeadershipRequest{Tag: tag})
			return err
		})
		err = poll.Wait(LeaderTimeout, PollInterval, func() error {
			for _, via := range ClusterTags {
				got, err := c.LeaderNamedBy(via)
				if err != nil {
					return err
				}
				if got != tag {
					return fmt.Errorf("%s names leader %s", via, got)
				}
			}
			return nil
		})
		if err == nil {
			return
		}
	}
	c.T.Fatalf("every node names %s the leader, after three transfers to it: not within %v: %v", tag, LeaderTimeout, err)
}

// Retryable is what a client may retry on another node: no quorum or leader right now, or
// no answer in time.
func Retryable(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded:
		return true
	}
	return false
}

// ParseIdentities checks that Generate's answer for prefix and count is count consecutive
// identities of prefix (spelt as asked) and returns the first and last number.
func ParseIdentities(ids []string, prefix string, count int64) (first, last int64, err error) {
	b, err := ParseIdentityBlock(ids, prefix, count)
	if err != nil {
		return 0, 0, err
	}
	if len(b.Skipped) > 0 {
		return 0, 0, fmt.Errorf("Generate(%s|, count %d) returned non-consecutive IDs %q", prefix, count, ids)
	}
	return b.First, b.Last, nil
}

// ParseIdentityBlock checks that Generate's answer for prefix and count is count ascending
// identities of prefix (spelt as asked), and returns them as a block: the values between them
// are its holes, values someone claimed.
func ParseIdentityBlock(ids []string, prefix string, count int64) (docid.IdentityBlock, error) {
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

// WhileRetryable calls call, with the attempt's number from 0, until it returns nil, an error a
// client may not retry (Retryable), or a retryable one after budget; it pauses retryPause
// between attempts, and returns the last error. It is how a test meets an election on a busy
// machine: a refusal to retry, as a client's library would, not a failure.
func WhileRetryable(budget time.Duration, call func(attempt int) error) error {
	deadline := time.Now().Add(budget)
	for attempt := 0; ; attempt++ {
		err := call(attempt)
		if err == nil || !Retryable(err) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer within %v (%d attempts): %w", budget, attempt+1, err)
		}
		time.Sleep(retryPause) // retry backoff
	}
}

// Retried makes call, each attempt with a context of RPCTimeout, while WhileRetryable retries
// it within LeaderTimeout, and returns its last answer. call must be safe to repeat: a read,
// or a write that carries its request_id, so that a retry of a call the cluster acted on gets
// the same answer.
func Retried[T any](call func(ctx context.Context) (T, error)) (T, error) {
	var out T
	_, err := RetriedWrite(func(ctx context.Context) (err error) {
		out, err = call(ctx)
		return err
	})
	return out, err
}

// RetriedWrite is Retried for a write that carries no request id, such as an admin call: an
// attempt after a refusal for want of a leader may find an earlier attempt applied though its
// answer was lost. It returns the last attempt's error and whether that attempt was a retry,
// so that a test accepts the refusal an applied attempt makes (ALREADY_EXISTS, NOT_FOUND …)
// only then.
func RetriedWrite(call func(ctx context.Context) error) (retried bool, err error) {
	err = WhileRetryable(LeaderTimeout, func(attempt int) error {
		ctx, cancel := context.WithTimeout(context.Background(), RPCTimeout)
		defer cancel()
		retried = attempt > 0
		return call(ctx)
	})
	return retried, err
}

// Identity is one logical identity request, recorded in rec: Generate{prefix|, count,
// request_id}, sent to the nodes in order from start, moving on after every retryable
// failure with the same request_id, for at most budget. An attempt gets perCall. A
// non-retryable error, a malformed answer or the end of the budget is returned as an error
// (the operation is then recorded with an unknown outcome).
func (c *Cluster) Identity(rec *history.Recorder, prefix string, count int64, start int, perCall, budget time.Duration) (first, last int64, err error) {
	return c.identity(rec, prefix, count, func(attempt int) string { return ClusterTags[(start+attempt)%len(ClusterTags)] }, perCall, budget)
}

// identity is Identity with the node of each attempt chosen by node. A retry carries the same
// request_id, so a node answers a retry of a call the cluster acted on with the same
// identities, and the history stays exact.
func (c *Cluster) identity(rec *history.Recorder, prefix string, count int64, node func(attempt int) string, perCall, budget time.Duration) (first, last int64, err error) {
	reqID := c.RequestID()
	op := rec.BeginIdentity(prefix, count)
	deadline := time.Now().Add(budget)
	err = WhileRetryable(budget, func(attempt int) error {
		tag := node(attempt)
		if attempt > 0 {
			op.Retry()
		}
		ctx, cancel := context.WithTimeout(context.Background(), min(perCall, max(time.Until(deadline), time.Millisecond)))
		resp, err := c.Ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Id: prefix + "|", Count: count, RequestId: reqID})
		cancel()
		if err != nil {
			return fmt.Errorf("Generate(%s|, count %d) via %s: %w", prefix, count, tag, err)
		}
		first, last, err = ParseIdentities(resp.GetIds(), prefix, count)
		if err != nil {
			return fmt.Errorf("via %s: %w", tag, err)
		}
		return nil
	})
	if err != nil {
		op.Unknown()
		return 0, 0, err
	}
	op.Done(first, last)
	return first, last, nil
}

// MustIdentity asks node via, and only via, for count values of prefix (recorded), and fails
// the test unless it answers within LeaderTimeout. A refusal a client may retry (an election
// under way on a busy machine) is asked again of the same node with the same request_id.
func (c *Cluster) MustIdentity(rec *history.Recorder, prefix string, count int64, via string) (first, last int64) {
	c.T.Helper()
	first, last, err := c.identity(rec, prefix, count, func(int) string { return via }, RPCTimeout, LeaderTimeout)
	if err != nil {
		c.T.Fatal(err)
	}
	return first, last
}

// ServerSide asks node tag for one server-side ID of prefix, records it and returns its etag.
func (c *Cluster) ServerSide(rec *history.Recorder, prefix, tag string, timeout time.Duration) (uint64, error) {
	call := rec.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	resp, err := c.Ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Id: prefix + "/"})
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

func (c *Cluster) MustServerSide(rec *history.Recorder, prefix, tag string) uint64 {
	c.T.Helper()
	etag, err := c.ServerSide(rec, prefix, tag, RPCTimeout)
	if err != nil {
		c.T.Fatal(err)
	}
	return etag
}

// NextHiLo reserves a range of tag through node via and records it.
func (c *Cluster) NextHiLo(rec *history.Recorder, tag, via string) *idnodev1.NextHiLoResponse {
	c.T.Helper()
	// One request id for every attempt, so that a retry of a reservation the cluster made
	// answers the same range.
	req := &idnodev1.NextHiLoRequest{Tag: tag, RequestId: c.RequestID()}
	resp, err := Retried(func(ctx context.Context) (*idnodev1.NextHiLoResponse, error) { return c.Ids[via].NextHiLo(ctx, req) })
	if err != nil {
		c.T.Fatalf("NextHiLo(%s) via %s: %v", tag, via, err)
	}
	if resp.GetLow() < 1 || resp.GetHigh() < resp.GetLow() {
		c.T.Fatalf("NextHiLo(%s) via %s = %v: not a range", tag, via, resp)
	}
	rec.HiLoRange(tag, resp.GetLow(), resp.GetHigh())
	return resp
}

// WaitAcks waits until rec holds at least n acknowledged identity operations.
func WaitAcks(t testing.TB, rec *history.Recorder, n int, ld *load) {
	t.Helper()
	Eventually(t, LoadTimeout, fmt.Sprintf("%d identity answers", n), func() error {
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
	Ops  atomic.Int64
}

func (c *Cluster) StartLoad(rec *history.Recorder, workers int, prefix string) *load {
	ld := &load{stop: make(chan struct{})}
	for w := range workers {
		ld.wg.Go(func() {
			home := w % len(ClusterTags)
			for i := 0; ; i++ {
				select {
				case <-ld.stop:
					return
				default:
				}
				count := int64(1 + i%3/2) // 1, 1, 2, …
				if _, _, err := c.Identity(rec, prefix, count, home, attemptTimeout, opBudget); err != nil {
					ld.fail(fmt.Errorf("worker %d: %w", w, err))
					return
				}
				ld.Ops.Add(1)
				if i%4 == 0 {
					// Server-side IDs need no quorum; a dead or frozen home node just has none.
					_, _ = c.ServerSide(rec, "users", ClusterTags[home], attemptTimeout)
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

// Finish stops the load and fails the test on any error it met. A call in progress gets to
// finish (at most opBudget).
func (ld *load) Finish(t testing.TB) {
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

// CheckHistory fails the test unless rec has no duplicates and is linearizable, and unless
// every node's etags increased.
func CheckHistory(t testing.TB, rec *history.Recorder) {
	t.Helper()
	rep := rec.CheckWith(history.CheckOptions{Timeout: historyTimeout, VisualizeDir: os.Getenv("IDNODE_E2E_HISTORY_DIR")})
	t.Logf("history: %v (%d identity ops, %d retried attempts, %d without a final answer)", rep, rep.IdentityOps, rep.Retries, rep.UnknownOps)
	if err := rep.Err(); err != nil {
		t.Error(err)
	}
	if rep.Identities == 0 {
		t.Error("history: no identity was acknowledged")
	}
	for _, tag := range ClusterTags {
		if err := rec.EtagsIncreasing(tag); err != nil {
			t.Error(err)
		}
	}
}

func HealthOf(hc healthpb.HealthClient, service string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		return "error: " + err.Error()
	}
	return resp.GetStatus().String()
}

// FirstListIdentities asks every node for ListIdentities, each as often as it answers, from
// now until the first success, and returns that first answer and who gave it.
func (c *Cluster) FirstListIdentities(t testing.TB) (*idnodev1.ListIdentitiesResponse, string) {
	return c.firstListIdentitiesFrom(t, ClusterTags)
}

func (c *Cluster) firstListIdentitiesFrom(t testing.TB, tags []string) (*idnodev1.ListIdentitiesResponse, string) {
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
			for deadline := time.Now().Add(ServeTimeout); time.Now().Before(deadline); {
				select {
				case <-done:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
				resp, err := c.Ids[tag].ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{})
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
	case <-time.After(ServeTimeout + time.Second):
	}
	close(done)
	wg.Wait()
	if a.resp == nil {
		t.Fatalf("no node answered ListIdentities within %v of the restart", ServeTimeout)
	}
	return a.resp, a.via
}

func IdentityMap(list *idnodev1.ListIdentitiesResponse) map[string]int64 {
	m := map[string]int64{}
	for _, id := range list.GetIdentities() {
		m[strings.ToLower(id.GetName())] = id.GetValue()
	}
	return m
}
