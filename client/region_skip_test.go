package client

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/idnode/idnode/reason"
)

// skippedNow reports whether local node i comes after the nodes that are not skipped: last in
// the order, where a local node in its place never is.
func skippedNow(r *regionOrder, i int64) bool {
	o := r.order(-1)
	return o[len(o)-1] == i
}

// wantSkip checks that node i is skipped for d from now, and not a nanosecond longer, leaving
// the clock at the end of its skip.
func wantSkip(t *testing.T, r *regionOrder, clock *fakeClock, i int64, d time.Duration) {
	t.Helper()
	if !skippedNow(r, i) {
		t.Fatalf("node %d not skipped right after its failure; want %v", i, d)
	}
	clock.advance(d - time.Nanosecond)
	if !skippedNow(r, i) {
		t.Fatalf("node %d back in its place before %v; want it skipped for %v", i, d, d)
	}
	clock.advance(time.Nanosecond)
	if skippedNow(r, i) {
		t.Fatalf("node %d still skipped %v after its failure; want it back in its place", i, d)
	}
}

// A node that keeps failing after each skip ends is skipped twice as long each time, up to
// regionSkipMax: a local node that hangs costs an attempt timeout ever more rarely. A failure
// within the skip starts the same skip again, an answer starts the count afresh, and the other
// nodes keep their own.
func TestRegionSkipDoublesWhileANodeKeepsFailing(t *testing.T) {
	addrs := []string{"a:1", "b:1", "c:1", "d:1"}
	regions := map[string]string{"a:1": "east", "b:1": "west", "c:1": "west", "d:1": "south"}
	r, err := newRegionOrder("west", regions, addrs, true)
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	r.now = clock.now
	const b, c = 1, 2

	for _, d := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second} {
		r.failed(b)
		if skippedNow(r, c) {
			t.Fatalf("c skipped while only b failed")
		}
		wantSkip(t, r, clock, b, d)
	}

	r.answered(b)
	r.failed(b)
	clock.advance(time.Second / 2)
	r.failed(b) // within its skip: the same second again, from now
	wantSkip(t, r, clock, b, time.Second)

	r.failed(b)
	r.failed(c)
	clock.advance(time.Second)
	if !skippedNow(r, b) || skippedNow(r, c) {
		t.Fatalf("a second after b failed for the second time and c for the first: b skipped %v, c %v; want b still skipped, c not", skippedNow(r, b), skippedNow(r, c))
	}
}

// Through a client whose region has one node: while it stays down it is asked once when each
// skip ends, 1 s, 2 s, then 4 s apart, and once it answers, a new failure skips it for a second
// again.
func TestRegionalClientAsksAFailingNodeEverMoreRarely(t *testing.T) {
	c, nodes, clock := westWithOneNode(t)
	takeDown(nodes[1], true)
	// callEach makes one call every 500 ms over d and returns how often B was asked meanwhile.
	callEach := func(d time.Duration) int {
		before := nodes[1].callCount()
		for range d / (500 * time.Millisecond) {
			if got := generateAt(t, c); got != "A" {
				t.Fatalf("with B down, answered by %s; want A", got)
			}
			clock.advance(500 * time.Millisecond)
		}
		return nodes[1].callCount() - before
	}
	// Failures at 0 s (skip 1 s), 1 s (2 s), 3 s (4 s), then 7 s.
	if got := callEach(7 * time.Second); got != 3 {
		t.Fatalf("B asked %d times in its first 7 s down; want 3 (at 0 s, 1 s and 3 s)", got)
	}
	if got := callEach(500 * time.Millisecond); got != 1 {
		t.Fatalf("B asked %d times 7 s after it went down; want once, its 4 s skip over", got)
	}
	takeDown(nodes[1], false)
	clock.advance(8 * time.Second)
	if got := generateAt(t, c); got != "B" {
		t.Fatalf("once B's skip ended and it is back, answered by %s; want B", got)
	}
	takeDown(nodes[1], true)
	if got := callEach(time.Second); got != 1 {
		t.Fatalf("B asked %d times in the second after it failed again; want once", got)
	}
	if got := callEach(500 * time.Millisecond); got != 1 {
		t.Fatalf("B asked %d times a second after its first failure since it answered; want once, its skip back to 1 s", got)
	}
}

// skipTestAttemptTimeout bounds each attempt of TestRegionSkipsOnlyANodeThatFailedItself. An
// attempt that times out is a failure of its node, so it must be long enough for a loaded
// machine under -race to connect to a fake node and have its answer: with 50 ms, B's first
// attempt timed out before B saw it, or A's did and A was skipped too. Only the case of the
// hanging node waits it out, once.
const skipTestAttemptTimeout = 2 * time.Second

// Only a failure of the node itself skips it: no answer (no idnode reason), the attempt's own
// timeout, or a refusal about the node alone (NODE_BUSY, SHUTTING_DOWN, NOT_CAUGHT_UP,
// STORAGE_FULL, STORAGE_FAILED, NOT_REGISTERED, REPLICA_DIVERGED: a node that is stopping,
// behind or fenced would cost
// every call a round trip). A refusal with another idnode reason is about the cluster, which
// the other nodes share, so the local node stays first: skipping it would keep calls in another
// region for as long as its skip lasts after the cluster recovered.
func TestRegionSkipsOnlyANodeThatFailedItself(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fail    func(n *fakeNode)
		skipped bool
	}{
		{"no quorum", func(n *fakeNode) { n.down = true }, false},
		{"outcome unknown", func(n *fakeNode) {
			n.refuse = reason.Error(codes.Unavailable, reason.OutcomeUnknown, "fake: leadership lost")
		}, false},
		{"unreachable", func(n *fakeNode) { n.refuse = errUnreachable }, true},
		{"busy", func(n *fakeNode) { n.refuse = reason.Error(codes.ResourceExhausted, reason.Busy, "fake: busy") }, true},
		{"shutting down", func(n *fakeNode) { n.refuse = reason.Error(codes.Unavailable, reason.ShuttingDown, "fake: stopping") }, true},
		{"not caught up", func(n *fakeNode) { n.refuse = reason.Error(codes.Unavailable, reason.NotCaughtUp, "fake: behind") }, true},
		{"storage full", func(n *fakeNode) { n.refuse = reason.Error(codes.Unavailable, reason.StorageFull, "fake: disk full") }, true},
		{"storage failed", func(n *fakeNode) {
			n.refuse = reason.Error(codes.Unavailable, reason.StorageFailed, "fake: disk failed")
		}, true},
		{"not registered", func(n *fakeNode) {
			n.refuse = reason.Error(codes.Unavailable, reason.NotRegistered, "fake: not registered")
		}, true},
		{"replica diverged", func(n *fakeNode) {
			n.refuse = reason.Error(codes.Unavailable, reason.ReplicaDiverged, "fake: fenced")
		}, true},
		{"attempt timed out", func(n *fakeNode) { n.hang = true }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, nodes, addrs := fakeCluster(t, "A", "B")
			c := dialTest(t, addrs, WithCallTimeout(skipTestAttemptTimeout),
				WithRegion("west", map[string]string{addrs[0]: "east", addrs[1]: "west"}))
			c.regions.now = newFakeClock().now
			nodes[1].set(tc.fail)
			for range 2 {
				if got := generateAt(t, c); got != "A" {
					t.Fatalf("with B, west's only node, failing, answered by %s; want A", got)
				}
			}
			want := 2
			if tc.skipped {
				want = 1
			}
			if got := nodes[1].callCount(); got != want {
				t.Fatalf("B asked %d times by two calls after it failed; want %d (skipped: %v)", got, want, tc.skipped)
			}
		})
	}
}
