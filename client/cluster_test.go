package client

import (
	"bytes"
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/helpers/memnet"
)

// deadAddr is an address nothing listens on: a call there never reaches a node.
func deadAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// The reading calls fail over like the IdService calls; a cluster change fails over from a
// node it never reached and from one that said NO_QUORUM.
func TestClusterCallsFailOver(t *testing.T) {
	state, nodes, addrs := fakeCluster(t, "A", "B")
	nodes[0].set(func(n *fakeNode) { n.down = true })
	c := dialTest(t, append([]string{deadAddr(t)}, addrs...), WithAdminToken("s3cret"))
	ctx := testCtx(t)
	if st, err := c.Admin().Status(ctx, true); err != nil || st.GetSelf() != "B" {
		t.Fatalf("Status = %v, %v; want B's answer", st, err)
	}
	c.preferred.Store(0) // start at the dead address again
	resp, err := c.Admin().AddNode(ctx, &idnodev1.AddNodeRequest{RaftAddress: "127.0.0.1:7104", GrpcAddress: "127.0.0.1:7074"})
	if err != nil || resp.GetNode().GetTag() != "D" {
		t.Fatalf("AddNode = %v, %v; want node D", resp, err)
	}
	c.preferred.Store(0)
	if err := c.Admin().RemoveNode(ctx, "D"); err != nil {
		t.Fatalf("RemoveNode(D) = %v", err)
	}
	c.preferred.Store(0)
	if leader, err := c.Admin().TransferLeadership(ctx, "B"); err != nil || leader != "B" {
		t.Fatalf("TransferLeadership(B) = %q, %v", leader, err)
	}
	if nodes[0].callCount() != 4 || nodes[1].callCount() != 4 {
		t.Errorf("calls: A %d, B %d; want each call on A (NO_QUORUM), then on B", nodes[0].callCount(), nodes[1].callCount())
	}
	if len(state.cluster.tags) != 0 {
		t.Errorf("registry %q after adding and removing D", state.cluster.tags)
	}
	for i, auth := range nodes[1].authorization() {
		if !slices.Equal(auth, []string{"Bearer s3cret"}) {
			t.Errorf("B's call %d: authorization %q", i, auth)
		}
	}
}

// A cluster change that reached a node and then failed is not repeated on another: it may
// have taken effect.
func TestClusterChangesAreNotRepeatedOnceSent(t *testing.T) {
	changes := map[string]func(ctx context.Context, c *Client) error{
		"AddNode": func(ctx context.Context, c *Client) error {
			_, err := c.Admin().AddNode(ctx, &idnodev1.AddNodeRequest{RaftAddress: "127.0.0.1:7104", GrpcAddress: "127.0.0.1:7074"})
			return err
		},
		"RemoveNode": func(ctx context.Context, c *Client) error { return c.Admin().RemoveNode(ctx, "D") },
		"TransferLeadership": func(ctx context.Context, c *Client) error {
			_, err := c.Admin().TransferLeadership(ctx, "")
			return err
		},
	}
	for name, change := range changes {
		t.Run(name+"/answer lost", func(t *testing.T) {
			state, nodes, addrs := fakeCluster(t, "A", "B")
			state.cluster.tags = []string{"D"}
			nodes[0].set(func(n *fakeNode) { n.loseAnswers = 1 })
			err := change(testCtx(t), dialTest(t, addrs))
			if status.Code(err) != codes.Unavailable || nodes[1].callCount() != 0 {
				t.Errorf("%s = %v, B called %d times; want A's UNAVAILABLE and no call on B", name, err, nodes[1].callCount())
			}
			var nf *NodesFailedError
			if errors.As(err, &nf) {
				t.Errorf("%s reports all nodes failed: %v", name, err)
			}
		})
		t.Run(name+"/attempt timeout", func(t *testing.T) {
			// The attempt's timeout must pass while the call waits at A, not before it gets
			// there: then the call never reached a node, and the client rightly goes on to B.
			// On loopback TCP a loaded CPU let the 100 ms pass while A's connection was being
			// made. In a bubble on an in-memory network they pass only once every goroutine
			// waits, that is once the call hangs in A's handler.
			synctest.Test(t, func(t *testing.T) {
				mem := memnet.New()
				_, nodes, addrs := fakeClusterOn(t, mem, "A", "B")
				nodes[0].set(func(n *fakeNode) { n.hang = true })
				c := dialTest(t, addrs, WithCallTimeout(100*time.Millisecond), WithDialOptions(grpc.WithContextDialer(mem.Dial)))
				err := change(testCtx(t), c)
				if status.Code(err) != codes.DeadlineExceeded || nodes[0].callCount() != 1 || nodes[1].callCount() != 0 {
					t.Errorf("%s = %v, A called %d times, B %d; want DEADLINE_EXCEEDED from A and no call on B",
						name, err, nodes[0].callCount(), nodes[1].callCount())
				}
			})
		})
	}
}

// Backup moves on to another node while nothing has arrived, and not after.
func TestBackupRetriesOnlyBeforeData(t *testing.T) {
	state, nodes, addrs := fakeCluster(t, "A", "B")
	state.cluster.backup = []byte("0123456789abcdef-")
	nodes[0].set(func(n *fakeNode) { n.down = true })
	c := dialTest(t, addrs)
	var w bytes.Buffer
	info, err := c.Admin().Backup(testCtx(t), &w)
	if err != nil || w.String() != "0123456789abcdef-" || info != (BackupInfo{Leader: "B", Index: 42, Bytes: 17}) {
		t.Fatalf("Backup = %+v, %v, %q; want B's whole backup", info, err, w.String())
	}

	nodes[0].set(func(n *fakeNode) { n.down, n.loseAnswers = false, 1 })
	c.preferred.Store(0)
	w.Reset()
	_, err = c.Admin().Backup(testCtx(t), &w)
	if status.Code(err) != codes.Unavailable || w.String() != "0123" || nodes[1].callCount() != 1 {
		t.Errorf("Backup failing after a chunk = %v, wrote %q, B called %d times; want UNAVAILABLE after A's first chunk, no new call on B",
			err, w.String(), nodes[1].callCount())
	}
}

// errWriter fails every write.
type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

func TestBackupReturnsTheWritersError(t *testing.T) {
	state, _, addrs := fakeCluster(t, "A")
	state.cluster.backup = []byte("0123456789")
	diskFull := errors.New("disk full")
	if _, err := dialTest(t, addrs).Admin().Backup(testCtx(t), errWriter{diskFull}); !errors.Is(err, diskFull) {
		t.Errorf("Backup into a failing writer = %v, want its error", err)
	}
}

// Restore sends the whole reader, in several chunks, to the first node whose stream opens; it
// is not repeated once data went out. It runs in a bubble on an in-memory network: on
// loopback TCP a loaded CPU let the attempt's timeout pass before any of the 786 KB went out,
// and here time passes only while every goroutine waits.
func TestRestoreRetriesOnlyBeforeData(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memnet.New()
		state, nodes, addrs := fakeClusterOn(t, mem, "A", "B")
		onMem := WithDialOptions(grpc.WithContextDialer(mem.Dial))
		data := bytes.Repeat([]byte("idnode backup "), 3*restoreChunk/14+5)
		c := dialTest(t, []string{mem.Gone(), addrs[0]}, onMem)
		resp, err := c.Admin().Restore(testCtx(t), bytes.NewReader(data))
		if got := state.restoredBytes(); err != nil || resp.GetIdentities() != int64(len(data)) || !bytes.Equal(got, data) {
			t.Fatalf("Restore of %d bytes = %v, %v; node got %d bytes", len(data), resp, err, len(got))
		}

		nodes[0].set(func(n *fakeNode) { n.down = true })
		c = dialTest(t, addrs, onMem)
		if _, err := c.Admin().Restore(testCtx(t), bytes.NewReader(data)); status.Code(err) != codes.Unavailable || nodes[1].callCount() != 0 {
			t.Errorf("Restore refused by A = %v, B called %d times; want A's UNAVAILABLE and no call on B", err, nodes[1].callCount())
		}
	})
}

// RestoreAhead's margin goes out with the first chunk only; an answer that does not echo it,
// from a build that knows no margins, is ErrMarginNotApplied with the answer.
func TestRestoreAhead(t *testing.T) {
	state, _, addrs := fakeCluster(t, "A")
	data := bytes.Repeat([]byte("idnode backup "), 2*restoreChunk/14+5)
	c := dialTest(t, addrs)
	margin := &idnodev1.RestoreMargin{Identities: &idnodev1.CounterMargin{Add: 1000}, Hilo: &idnodev1.CounterMargin{Percent: 10}}
	if _, err := c.Admin().Restore(testCtx(t), bytes.NewReader(data), RestoreAhead(margin)); err != nil {
		t.Fatalf("Restore with a margin: %v", err)
	}
	state.mu.Lock()
	sent := state.cluster.ahead
	state.cluster.olderBuild = true
	state.mu.Unlock()
	if len(sent) < 2 || !proto.Equal(sent[0], margin) || slices.ContainsFunc(sent[1:], func(m *idnodev1.RestoreMargin) bool { return m != nil }) {
		t.Fatalf("the chunks carried margins %v; want %v on the first only", sent, margin)
	}
	resp, err := c.Admin().Restore(testCtx(t), bytes.NewReader(data), RestoreAhead(margin))
	if !errors.Is(err, ErrMarginNotApplied) || resp.GetIdentities() != int64(len(data)) {
		t.Fatalf("Restore with a margin on an older build = %v, %v; want its answer and ErrMarginNotApplied", resp, err)
	}
	if _, err := c.Admin().Restore(testCtx(t), bytes.NewReader(data), RestoreAhead(&idnodev1.RestoreMargin{Hilo: &idnodev1.CounterMargin{}})); err != nil {
		t.Fatalf("Restore with a zero margin on an older build: %v", err)
	}
	state.mu.Lock()
	sent = state.cluster.ahead
	state.mu.Unlock()
	if slices.ContainsFunc(sent, func(m *idnodev1.RestoreMargin) bool { return m != nil }) {
		t.Fatalf("a restore with a zero margin sent margins %v; want none, as a build without margins", sent)
	}
}

// A margin by rates goes out like any other; an answer without the rates it assumed, from a
// build that knows margins but not by rates (it echoes by_rates as a field it does not know),
// is ErrMarginNotApplied.
func TestRestoreAheadByRates(t *testing.T) {
	state, _, addrs := fakeCluster(t, "A")
	c := dialTest(t, addrs)
	byRates := RestoreAhead(&idnodev1.RestoreMargin{ByRates: true})
	resp, err := c.Admin().Restore(testCtx(t), bytes.NewReader([]byte("idnode backup")), byRates)
	if err != nil || resp.GetRates().GetFactor() != 2 {
		t.Fatalf("Restore by rates = %v, %v; want the rates it assumed", resp, err)
	}
	state.mu.Lock()
	sent := state.cluster.ahead
	state.cluster.noRatesBuild = true
	state.mu.Unlock()
	if len(sent) == 0 || !sent[0].GetByRates() {
		t.Fatalf("the chunks carried margins %v; want by_rates on the first", sent)
	}
	if _, err := c.Admin().Restore(testCtx(t), bytes.NewReader([]byte("idnode backup")), byRates); !errors.Is(err, ErrMarginNotApplied) {
		t.Fatalf("Restore by rates on a build without them = %v; want ErrMarginNotApplied", err)
	}
}

// failingReader yields n bytes, then err.
type failingReader struct {
	n   int
	err error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, r.err
	}
	k := min(len(p), r.n)
	r.n -= k
	return k, nil
}

// A read error is returned as it is, and the node applies nothing of that restore.
func TestRestoreReadError(t *testing.T) {
	state, nodes, addrs := fakeCluster(t, "A")
	c := dialTest(t, addrs)
	broken := errors.New("broken file")
	if _, err := c.Admin().Restore(testCtx(t), &failingReader{0, broken}); !errors.Is(err, broken) || nodes[0].callCount() != 0 {
		t.Errorf("Restore of an unreadable file = %v after %d calls; want its error and no call", err, nodes[0].callCount())
	}
	_, err := c.Admin().Restore(testCtx(t), &failingReader{restoreChunk + 10, broken})
	if !errors.Is(err, broken) {
		t.Errorf("Restore failing after a chunk = %v, want the reader's error", err)
	}
	select {
	case err := <-state.cluster.ended:
		if status.Code(err) != codes.Canceled {
			t.Errorf("the node's Restore ended with %v, want CANCELED", err)
		}
	case <-testCtx(t).Done():
		t.Fatal("the node's Restore did not end")
	}
	if got := state.restoredBytes(); got != nil {
		t.Errorf("the node applied %d bytes of a restore whose reader failed", len(got))
	}
}

// WithNodesInOrder: every client starts at the first address, not at a random one.
func TestNodesInOrder(t *testing.T) {
	_, _, addrs := fakeCluster(t, "A", "B", "C")
	for range 20 {
		c, err := Dial(testCtx(t), addrs, WithNodesInOrder())
		if err != nil {
			t.Fatal(err)
		}
		ids, err := c.Generate(testCtx(t), "users/", 1)
		_ = c.Close(testCtx(t))
		if err != nil || len(ids) != 1 || !strings.HasSuffix(ids[0], "-A") {
			t.Fatalf("Generate(users/) = %v, %v; want A's ID", ids, err)
		}
	}
}
