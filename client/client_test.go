package client

import (
	"context"
	"errors"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// A node that cannot serve (UNAVAILABLE) is skipped: the call is answered by the next one with
// the same request_id, and later calls start at the node that answered.
func TestClientRetriesUnavailableOnNextNode(t *testing.T) {
	state, nodes, addrs := fakeCluster(t, "A", "B", "C")
	nodes[0].set(func(n *fakeNode) { n.down = true })
	c := dialTest(t, addrs)
	ctx := testCtx(t)
	block, err := c.NextIdentity(ctx, "orders", 3)
	first, last := block.First, block.Last
	if err != nil || first != 1 || last != 3 {
		t.Fatalf("NextIdentity(orders, 3) = %d, %d, %v; want 1, 3", first, last, err)
	}
	if nodes[0].callCount() != 1 || nodes[1].callCount() != 1 {
		t.Fatalf("calls: A %d, B %d; want one each", nodes[0].callCount(), nodes[1].callCount())
	}
	if a, b := nodes[0].requestIDs()[0], nodes[1].requestIDs()[0]; a == "" || a != b {
		t.Fatalf("request ids: A %q, B %q; want the same non-empty one", a, b)
	}
	if _, err := c.NextIdentity(ctx, "orders", 1); err != nil {
		t.Fatal(err)
	}
	if nodes[0].callCount() != 1 || nodes[1].callCount() != 2 {
		t.Errorf("second call: A %d, B %d calls; want it to start at B, which answered", nodes[0].callCount(), nodes[1].callCount())
	}
	if state.reserved != 2 {
		t.Errorf("%d reservations, want 2", state.reserved)
	}
}

// The answer was lost after the cluster reserved the values: the retry's request_id gets the
// same values back, so none is burnt.
func TestClientRetryNeverBurnsIdentities(t *testing.T) {
	state, nodes, addrs := fakeCluster(t, "A", "B")
	c := dialTest(t, addrs)
	ctx := testCtx(t)
	nodes[0].set(func(n *fakeNode) { n.loseAnswers = 1 })
	if b, err := c.NextIdentity(ctx, "orders", 2); err != nil || b.First != 1 || b.Last != 2 {
		t.Fatalf("NextIdentity after a lost answer = %+v, %v; want 1, 2", b, err)
	}
	nodes[1].set(func(n *fakeNode) { n.loseAnswers = 1 })
	ids, err := c.Generate(ctx, "orders|", 1)
	if err != nil || !slices.Equal(ids, []string{"orders/3"}) {
		t.Fatalf("Generate(orders|) after a lost answer = %v, %v; want [orders/3]", ids, err)
	}
	if state.reserved != 2 {
		t.Errorf("%d reservations for two calls, want 2", state.reserved)
	}
}

// A node that answers nothing costs one attempt's timeout; a node whose port is closed costs
// nothing but a failed connection. Either way the next node answers.
func TestClientDeadAndSilentNodes(t *testing.T) {
	_, nodes, addrs := fakeCluster(t, "A", "B")
	nodes[0].set(func(n *fakeNode) { n.hang = true })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	// An attempt's timeout long enough that B, which answers, answers within it on a loaded
	// machine too: a timed-out attempt on B would fail the call.
	const attempt = time.Second
	c := dialTest(t, []string{dead, addrs[0], addrs[1]}, WithCallTimeout(attempt))
	ctx := testCtx(t)
	begin := time.Now()
	ids, err := c.Generate(ctx, "users/", 1)
	if err != nil || len(ids) != 1 || ids[0] != "users/0000000000000000001-B" {
		t.Fatalf("Generate(users/) = %v, %v; want B's first server-side ID", ids, err)
	}
	if took := time.Since(begin); took < attempt || took > 5*attempt {
		t.Errorf("took %v: want about one attempt timeout (%v) for the silent node", took, attempt)
	}
}

// Errors that are not about availability come back unchanged after one attempt.
func TestClientNonRetryableErrorsUnchanged(t *testing.T) {
	_, nodes, addrs := fakeCluster(t, "A", "B")
	c := dialTest(t, addrs)
	_, err := c.Generate(testCtx(t), `a\b`, 1)
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.InvalidArgument || st.Message() != `document id contains a backslash: "a\\b"` {
		t.Fatalf(`Generate("a\b") = %v; want the node's INVALID_ARGUMENT status as is`, err)
	}
	var nf *NodesFailedError
	if errors.As(err, &nf) {
		t.Errorf("a refused call reports all nodes failed: %v", err)
	}
	if nodes[0].callCount()+nodes[1].callCount() != 1 {
		t.Errorf("%d attempts, want 1", nodes[0].callCount()+nodes[1].callCount())
	}
}

// When no node answers: NodesFailedError with the nodes' refusal (status.Code and reason.Of
// see it), after MaxAttempts attempts or when the context ends. Each subtest has nodes of its own: an
// attempt in flight when one subtest's context ended may reach its node after the next began.
func TestClientAllNodesFailed(t *testing.T) {
	down := func(t *testing.T) ([]*fakeNode, []string) {
		_, nodes, addrs := fakeCluster(t, "A", "B")
		for _, n := range nodes {
			n.set(func(n *fakeNode) { n.down = true })
		}
		return nodes, addrs
	}
	t.Run("context", func(t *testing.T) {
		nodes, addrs := down(t)
		// The context ends when the third attempt reaches its node, not at a time: a deadline
		// of 300 ms assumed a few attempts fit in it, and under load the first attempt, which
		// dials its node, took longer than that alone. Two identities, since a call for one
		// is folded, and a folded caller who cancels leaves without waiting for the nodes.
		ctx, cancel := context.WithCancel(testCtx(t))
		defer cancel()
		cancelOnArrival(nodes, 3, cancel)
		c := dialTest(t, addrs)
		_, err := c.NextIdentity(ctx, "orders", 2)
		var nf *NodesFailedError
		if !errors.As(err, &nf) || nf.Attempts != 3 || nf.Nodes != 2 {
			t.Fatalf("NextIdentity with every node down = %v; want NodesFailedError after the 3 attempts made before the context ended", err)
		}
		// The caller ended the call: its code says so, and the nodes' refusal is its reason.
		if status.Code(err) != codes.Canceled || reason.Of(err) != reason.NoQuorum || !errors.Is(err, context.Canceled) {
			t.Errorf("status.Code = %v, reason %q, errors.Is(Canceled) = %v; want CANCELLED, NO_QUORUM and true (%v)",
				status.Code(err), reason.Of(err), errors.Is(err, context.Canceled), err)
		}
	})
	t.Run("max attempts", func(t *testing.T) {
		nodes, addrs := down(t)
		c := dialTest(t, addrs, WithBackoff(Backoff{Initial: time.Millisecond, MaxAttempts: 5}))
		_, err := c.Admin().Status(testCtx(t), true)
		var nf *NodesFailedError
		if !errors.As(err, &nf) || nf.Attempts != 5 || nf.Cause != nil || status.Code(err) != codes.Unavailable {
			t.Fatalf("Status with every node down = %#v; want NodesFailedError after 5 attempts, UNAVAILABLE", err)
		}
		if got := nodes[0].callCount() + nodes[1].callCount(); got != 5 {
			t.Errorf("%d attempts reached the nodes, want 5", got)
		}
	})
}

// cancelOnArrival calls cancel when the nth attempt of all reaches one of nodes, and returns
// the count of attempts that reached them.
func cancelOnArrival(nodes []*fakeNode, n int32, cancel context.CancelFunc) *atomic.Int32 {
	var arrived atomic.Int32
	for _, node := range nodes {
		node.set(func(node *fakeNode) {
			node.arrived = func() {
				if arrived.Add(1) == n {
					cancel()
				}
			}
		})
	}
	return &arrived
}

// A node that refuses costs no backoff: the next node is asked at once, and the client backs
// off only after a whole round of refusals. The test watches the backoff itself rather than a
// deadline: the client's wait is replaced by one that notes how many attempts had reached the
// nodes when it began, and ends the call at once. A deadline assumed a round of attempts fits
// in it, which a loaded machine does not promise.
func TestClientBacksOffOnlyAfterEveryNodeFailed(t *testing.T) {
	_, nodes, addrs := fakeCluster(t, "A", "B", "C")
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	// A client that never backed off would try the nodes again and again: the fourth attempt
	// of the call with every node refusing ends its context, so that the test ends too.
	arrived := cancelOnArrival(nodes, 4, cancel)
	c := dialTest(t, addrs, WithBackoff(Backoff{Initial: time.Hour}))
	errBackoff := errors.New("the client backed off")
	var (
		mu    sync.Mutex
		waits []int32 // the attempts that had reached the nodes when each backoff began
	)
	c.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, arrived.Load())
		return errBackoff
	}
	backoffs := func() []int32 {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(waits)
	}

	for _, n := range nodes[:2] {
		n.set(func(n *fakeNode) { n.down = true })
	}
	// Two identities each time, since a call for one is folded, and the fold's own call
	// would be the one that backs off.
	if _, err := c.NextIdentity(ctx, "orders", 2); err != nil {
		t.Fatalf("NextIdentity with A and B refusing, C up: %v; want C's answer without a pause", err)
	}
	if got := nodes[2].callCount(); got != 1 {
		t.Errorf("C got %d calls, want 1", got)
	}
	if w := backoffs(); len(w) != 0 {
		t.Fatalf("the client backed off after %v attempts while C was still to be asked; want no backoff", w)
	}

	nodes[2].set(func(n *fakeNode) { n.down = true })
	arrived.Store(0)
	_, err := c.NextIdentity(ctx, "orders", 2)
	if w := backoffs(); !slices.Equal(w, []int32{3}) {
		t.Fatalf("the client backed off after %v attempts (%v); want one backoff, after the 3 attempts of one round", w, err)
	}
	var nf *NodesFailedError
	if !errors.As(err, &nf) || nf.Attempts != 3 || !errors.Is(err, errBackoff) {
		t.Errorf("NextIdentity with every node refusing = %v; want NodesFailedError after one round of 3 attempts, ended by the backoff", err)
	}
}

// The typed calls against the fake cluster.
func TestClientTypedCalls(t *testing.T) {
	_, _, addrs := fakeCluster(t, "A")
	c := dialTest(t, addrs)
	ctx := testCtx(t)

	if ids, err := c.Generate(ctx, "users/ayende", 1); err != nil || !slices.Equal(ids, []string{"users/ayende"}) {
		t.Errorf("Generate(semantic) = %v, %v", ids, err)
	}
	if ids, err := c.Generate(ctx, "users|", 3); err != nil || !slices.Equal(ids, []string{"users/1", "users/2", "users/3"}) {
		t.Errorf("Generate(users|, 3) = %v, %v", ids, err)
	}
	if v, err := c.SeedIdentity(ctx, "invoices", 654, false); err != nil || v != 654 {
		t.Errorf("SeedIdentity(invoices, 654) = %d, %v", v, err)
	}
	if v, err := c.SeedIdentity(ctx, "invoices", 10, false); err != nil || v != 654 {
		t.Errorf("SeedIdentity(invoices, 10) = %d, %v; want 654 (a seed only raises)", v, err)
	}
	if v, err := c.SeedIdentity(ctx, "invoices", 10, true); err != nil || v != 10 {
		t.Errorf("SeedIdentity(invoices, 10, force) = %d, %v", v, err)
	}
	for i := range 25 {
		if _, err := c.SeedIdentity(ctx, "item"+string(rune('a'+i)), int64(i), false); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for id, err := range c.Identities(ctx, "item", 4) {
		if err != nil {
			t.Fatalf("Identities: %v", err)
		}
		names = append(names, id.GetName())
	}
	if len(names) != 25 || names[0] != "itema" || names[24] != "itemy" {
		t.Errorf("Identities(item, pages of 4) = %v; want itema … itemy", names)
	}
	count := 0
	for range c.Identities(ctx, "", 2) {
		count++
		if count == 3 {
			break // stopping early ends the iteration
		}
	}
	if count != 3 {
		t.Errorf("breaking out of Identities after 3: saw %d", count)
	}
	page, err := c.ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{Prefix: "users"})
	if err != nil || len(page.GetIdentities()) != 1 || page.GetIdentities()[0].GetValue() != 3 {
		t.Errorf("ListIdentities(users) = %v, %v", page, err)
	}
	st, err := c.Admin().Status(ctx, true)
	if err != nil || st.GetLeader() != "A" {
		t.Errorf("Status = %v, %v", st, err)
	}
	r, err := c.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "raw"})
	if err != nil || r.GetLow() != 1 || r.GetHigh() != 32 || r.GetPrefix() != "raw/" {
		t.Fatalf("NextHiLo(raw) = %v, %v", r, err)
	}
	if ok, err := c.ReturnHiLo(ctx, &idnodev1.ReturnHiLoRequest{Tag: "raw", End: 32, Last: 4, GrantId: r.GetGrantId()}); err != nil || !ok {
		t.Fatalf("ReturnHiLo(raw, 32, 4, %q) = %v, %v; want it taken back", r.GetGrantId(), ok, err)
	}
	if r, err := c.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "raw"}); err != nil || r.GetLow() != 5 {
		t.Errorf("NextHiLo(raw) after returning 5…32 = %v, %v; want low 5", r, err)
	}
}

// A return whose answer was lost after it took effect is retried with the same request_id on
// the next node, which answers as the first attempt did: returned. Without one the retry found
// the range no longer the newest and said false, a gap that is not one. The caller's request
// is left as it was.
func TestClientRetriedReturnHiLoAnswersReturned(t *testing.T) {
	_, nodes, addrs := fakeCluster(t, "A", "B")
	c := dialTest(t, addrs, WithNodesInOrder())
	ctx := testCtx(t)
	r, err := c.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	nodes[0].set(func(n *fakeNode) { n.loseAnswers = 1 })
	req := &idnodev1.ReturnHiLoRequest{Tag: "orders", End: r.GetHigh(), Last: r.GetLow(), GrantId: r.GetGrantId()}
	if ok, err := c.ReturnHiLo(ctx, req); err != nil || !ok {
		t.Fatalf("ReturnHiLo whose first answer was lost = %v, %v; want returned, as the first attempt did", ok, err)
	}
	a, b := nodes[0].requestIDs(), nodes[1].requestIDs()
	if len(b) != 1 || a[len(a)-1] == "" || a[len(a)-1] != b[0] || req.GetRequestId() != "" {
		t.Errorf("the return's request ids: A %q, B %q (the caller's request now has %q); want one new one on both", a, b, req.GetRequestId())
	}
}

// A release whose answer was lost after it took effect is retried with the same request_id on
// the next node, which answers the first attempt's count; without one the retry found the IDs
// released and said 0. The caller's request is left as it was.
func TestClientRetriedReleaseAnswersItsFirstCount(t *testing.T) {
	_, nodes, addrs := fakeCluster(t, "A", "B")
	c := dialTest(t, addrs, WithNodesInOrder())
	ctx := testCtx(t)
	if err := c.Claim(ctx, "alice", "users/1", "users/2"); err != nil {
		t.Fatal(err)
	}
	nodes[0].set(func(n *fakeNode) { n.loseAnswers = 1 })
	req := &idnodev1.ReleaseRequest{Ids: []string{"users/1", "users/2", "users/3"}, Owner: "alice"}
	if resp, err := c.ReleaseRaw(ctx, req); err != nil || resp.GetReleased() != 2 {
		t.Fatalf("Release whose first answer was lost = %v, %v; want 2 released, as the first attempt did", resp, err)
	}
	a, b := nodes[0].requestIDs(), nodes[1].requestIDs()
	if len(b) != 1 || a[len(a)-1] == "" || a[len(a)-1] != b[0] || req.GetRequestId() != "" {
		t.Errorf("the release's request ids: A %q, B %q (the caller's request now has %q); want one new one on both", a, b, req.GetRequestId())
	}
}

// NextID: HiLo IDs from the collection's generator; Close returns the unused tail; after
// Close every call fails with ErrClosed.
func TestClientNextIDAndClose(t *testing.T) {
	state, _, addrs := fakeCluster(t, "A", "B")
	c, err := Dial(context.Background(), addrs)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	re := regexp.MustCompile(`^orders/([0-9]+)-[AB]$`)
	const workers, each = 16, 500
	seen := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				id, err := c.NextID(ctx, "orders")
				mu.Lock()
				if err != nil || !re.MatchString(id) || seen[id] {
					t.Errorf("NextID(orders) = %q, %v (seen before: %v)", id, err, seen[id])
				}
				seen[id] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if _, err := c.NextID(ctx, "bad|tag"); status.Code(err) != codes.InvalidArgument {
		t.Errorf("NextID(bad|tag) = %v, want INVALID_ARGUMENT", err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	state.mu.Lock()
	m := state.hiloMax["orders"]
	state.mu.Unlock()
	// 8000 IDs: ranges 32 … 4096 end at 8160 and the 8192 one was prefetched at 80% of 4096:
	// Close returns that one whole (Max 8160), or the tail of the current one (Max 8000).
	if m != workers*each && m != 8160 {
		t.Errorf("Max(orders) after Close = %d, want %d (or 8160)", m, workers*each)
	}
	if _, err := c.NextID(ctx, "orders"); !errors.Is(err, ErrClosed) {
		t.Errorf("NextID after Close = %v, want ErrClosed", err)
	}
	if _, err := c.Generate(ctx, "", 1); !errors.Is(err, ErrClosed) {
		t.Errorf("Generate after Close = %v, want ErrClosed", err)
	}
	if err := c.Close(ctx); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestClientDialArguments(t *testing.T) {
	ctx := context.Background()
	if _, err := Dial(ctx, nil); err == nil {
		t.Error("Dial with no address succeeded")
	}
	if _, err := Dial(ctx, []string{"127.0.0.1:1", " "}); err == nil {
		t.Error("Dial with an empty address succeeded")
	}
	if _, err := Dial(ctx, []string{"127.0.0.1:1"}, WithSeparator('|')); err == nil {
		t.Error("Dial with separator '|' succeeded")
	}
	if _, err := Dial(ctx, []string{"127.0.0.1:1"}, WithBackoff(Backoff{Jitter: 2})); err == nil {
		t.Error("Dial with jitter 2 succeeded")
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Dial(done, []string{"127.0.0.1:1"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Dial with a cancelled context = %v", err)
	}
	c, err := Dial(ctx, []string{"127.0.0.1:1", "127.0.0.1:2"}, WithCallTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Addrs(); !slices.Equal(got, []string{"127.0.0.1:1", "127.0.0.1:2"}) {
		t.Errorf("Addrs = %v", got)
	}
	if err := c.Close(ctx); err != nil {
		t.Errorf("Close of an unused client: %v", err)
	}
}

// The backoff grows by Multiplier up to Max, spread by Jitter.
func TestClientBackoffDelays(t *testing.T) {
	c := &failover{backoff: Backoff{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond, Multiplier: 2, Jitter: 0.2}}
	for i, want := range []time.Duration{10, 20, 40, 80, 100, 100} {
		want *= time.Millisecond
		for range 50 {
			d := c.delay(i + 1)
			if d < want*8/10 || d > want*12/10 {
				t.Fatalf("delay before round %d = %v, want %v ± 20%%", i+2, d, want)
			}
		}
	}
}

// GenerateRaw sends the caller's request_id as it is, and gives an identity request without one
// a request_id of its own, without modifying the caller's request.
func TestGenerateRawRequestIDs(t *testing.T) {
	_, nodes, addrs := fakeCluster(t, "A")
	c := dialTest(t, addrs)
	ctx := testCtx(t)
	if resp, err := c.GenerateRaw(ctx, &idnodev1.GenerateRequest{Id: "orders|", RequestId: "mine"}); err != nil || len(resp.GetIds()) != 1 {
		t.Fatalf("GenerateRaw = %v, %v", resp, err)
	}
	req := &idnodev1.GenerateRequest{Id: "orders|", Count: 2}
	if resp, err := c.GenerateRaw(ctx, req); err != nil || !slices.Equal(resp.GetIds(), []string{"orders/2", "orders/3"}) {
		t.Fatalf("GenerateRaw = %v, %v", resp, err)
	}
	if ids := nodes[0].requestIDs(); len(ids) != 2 || ids[0] != "mine" || !strings.HasPrefix(ids[1], "go-") || req.GetRequestId() != "" {
		t.Errorf("request ids %q (caller's request now has %q); want mine, then a go-… one", ids, req.GetRequestId())
	}
}

// A node shedding load (NODE_BUSY) did nothing: a call that is safe to repeat (it carries a
// request_id, or only reads) goes on to the next node with the same request_id, as for
// UNAVAILABLE. A call that is not (a forced seed) comes back with the node's refusal after one
// attempt, and so does RESOURCE_EXHAUSTED without NODE_BUSY (an answer over the message limit).
func TestClientRetriesNodeBusyWhenSafeToRepeat(t *testing.T) {
	state, nodes, addrs := fakeCluster(t, "A", "B")
	c := dialTest(t, addrs)
	ctx := testCtx(t)
	busy := reason.Error(codes.ResourceExhausted, reason.Busy, "fake node A: busy")
	// try makes call with node A refusing refusal, and reports the attempts A and B saw.
	try := func(refusal error, call func() error) (onA, onB int, err error) {
		c.preferred.Store(0)
		c.leader.Store(0)
		nodes[0].set(func(n *fakeNode) { n.refuse, n.calls, n.reqIDs = refusal, 0, nil })
		nodes[1].set(func(n *fakeNode) { n.calls, n.reqIDs = 0, nil })
		err = call()
		return nodes[0].callCount(), nodes[1].callCount(), err
	}
	repeatable := map[string]func() error{
		"NextIdentity":      func() error { _, err := c.NextIdentity(ctx, "orders", 2); return err },
		"Generate(orders|)": func() error { _, err := c.Generate(ctx, "orders|", 1); return err },
		"Generate(users/)":  func() error { _, err := c.Generate(ctx, "users/", 1); return err },
		"NextHiLo": func() error {
			_, err := c.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders"})
			return err
		},
		"ListIdentities": func() error {
			_, err := c.ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{})
			return err
		},
		"Status":         func() error { _, err := c.Admin().Status(ctx, true); return err },
		"ClusterVersion": func() error { _, err := c.Admin().ClusterVersion(ctx); return err },
	}
	for name, call := range repeatable {
		onA, onB, err := try(busy, call)
		if err != nil || onA != 1 || onB != 1 {
			t.Errorf("%s with node A busy: %v after %d attempts on A, %d on B; want B's answer after one each", name, err, onA, onB)
		}
		if a, b := nodes[0].requestIDs(), nodes[1].requestIDs(); len(a) == 1 && len(b) == 1 && a[0] != b[0] {
			t.Errorf("%s: request id %q on A, %q on B; want the same", name, a[0], b[0])
		}
	}
	if state.reserved != 3 {
		t.Errorf("%d reservations for three reserving calls, want 3", state.reserved)
	}

	onA, onB, err := try(busy, func() error { _, err := c.SeedIdentity(ctx, "orders", 100, true); return err })
	if status.Code(err) != codes.ResourceExhausted || reason.Of(err) != reason.Busy || onA != 1 || onB != 0 {
		t.Errorf("SeedIdentity(force) with node A busy: %v after %d attempts on A, %d on B; want A's NODE_BUSY after one", err, onA, onB)
	}
	tooBig := status.Error(codes.ResourceExhausted, "grpc: received message larger than max")
	onA, onB, err = try(tooBig, repeatable["Status"])
	if status.Code(err) != codes.ResourceExhausted || reason.Of(err) != "" || onA != 1 || onB != 0 {
		t.Errorf("Status refused RESOURCE_EXHAUSTED without NODE_BUSY: %v after %d attempts on A, %d on B; want it as is after one", err, onA, onB)
	}
}
