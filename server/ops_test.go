package server

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

func TestNeedsAdmin(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		method string
		req    any
		want   bool
	}{
		{idnodev1.ClusterService_AddNode_FullMethodName, nil, true},
		{idnodev1.ClusterService_RemoveNode_FullMethodName, nil, true},
		{idnodev1.ClusterService_TransferLeadership_FullMethodName, nil, true},
		{idnodev1.ClusterService_Backup_FullMethodName, nil, true},
		{idnodev1.ClusterService_Restore_FullMethodName, nil, true},
		{idnodev1.ClusterService_Status_FullMethodName, nil, false},
		{idnodev1.ClusterService_SetClusterVersion_FullMethodName, nil, true},
		{idnodev1.ClusterService_ClusterVersion_FullMethodName, nil, false},
		{idnodev1.IdService_SeedIdentity_FullMethodName, &idnodev1.SeedIdentityRequest{Force: true}, true},
		{idnodev1.IdService_SeedIdentity_FullMethodName, &idnodev1.SeedIdentityRequest{}, false},
		{idnodev1.IdService_Generate_FullMethodName, &idnodev1.GenerateRequest{}, false},
		{idnodev1.IdService_NextHiLo_FullMethodName, &idnodev1.NextHiLoRequest{}, false},
		{idnodev1.IdService_SeedHiLo_FullMethodName, &idnodev1.SeedHiLoRequest{}, false},
		{forwardv1.Forward_NextIdentities_FullMethodName, nil, false},
	} {
		if got := needsAdmin(c.method, c.req); got != c.want {
			t.Errorf("needsAdmin(%s, %v) = %v, want %v", c.method, c.req, got, c.want)
		}
	}
}

func TestAuthorizeChecksTheBearerToken(t *testing.T) {
	t.Parallel()
	s := &interceptors{core: newCore(Config{AdminToken: "s3cret"}, &fakeCluster{leader: true, fsm: fsm.New()}, nil)}
	info := &grpc.UnaryServerInfo{FullMethod: idnodev1.ClusterService_RemoveNode_FullMethodName}
	called := false
	handler := func(context.Context, any) (any, error) { called = true; return "ok", nil }
	incoming := func(vals ...string) context.Context {
		md := metadata.MD{}
		for _, v := range vals {
			md.Append("authorization", v)
		}
		return metadata.NewIncomingContext(context.Background(), md)
	}
	for _, c := range []struct {
		ctx  context.Context
		want codes.Code
	}{
		{context.Background(), codes.Unauthenticated},
		{incoming("Bearer wrong"), codes.Unauthenticated},
		{incoming("s3cret"), codes.Unauthenticated},
		{incoming("Basic s3cret"), codes.Unauthenticated},
		{incoming("Bearer s3cret"), codes.OK},
		{incoming("bearer  s3cret "), codes.OK},
		{incoming("Bearer wrong", "Bearer s3cret"), codes.OK},
	} {
		called = false
		_, err := s.authorize(c.ctx, &idnodev1.RemoveNodeRequest{}, info, handler)
		if status.Code(err) != c.want || called != (c.want == codes.OK) {
			t.Errorf("authorize(%v) = %v (handler called %v), want %v", c.ctx, err, called, c.want)
		}
	}
	// Without a configured token admin calls come from this machine or another node only;
	// ID calls are not checked.
	open := &interceptors{core: newCore(Config{}, &fakeCluster{leader: true, fsm: fsm.New()}, nil)}
	from := func(ip string) context.Context {
		return peer.NewContext(context.Background(), &peer.Peer{Addr: &net.TCPAddr{IP: net.ParseIP(ip), Port: 5000}})
	}
	for ip, want := range map[string]codes.Code{"127.0.0.1": codes.OK, "::1": codes.OK, "10.1.2.3": codes.PermissionDenied, "192.168.0.7": codes.PermissionDenied} {
		if _, err := open.authorize(from(ip), &idnodev1.RemoveNodeRequest{}, info, handler); status.Code(err) != want {
			t.Errorf("no token configured, RemoveNode from %s: %v, want %v", ip, err, want)
		}
	}
	if _, err := open.authorize(from("10.1.2.3"), &idnodev1.SeedIdentityRequest{Force: true}, &grpc.UnaryServerInfo{FullMethod: idnodev1.IdService_SeedIdentity_FullMethodName}, handler); status.Code(err) != codes.PermissionDenied {
		t.Errorf("no token configured, forced seed from the network: %v, want PERMISSION_DENIED", err)
	}
	secret := func() []byte { return []byte("0123456789abcdef") }
	arrived, _ := forward.Receiver("B", secret)
	node := metadata.NewIncomingContext(from("10.1.2.3"), metadata.Pairs("x-idnode-cluster-secret-bin", string(secret())))
	if _, err := arrived(node, &idnodev1.RemoveNodeRequest{}, info, func(ctx context.Context, req any) (any, error) {
		return open.authorize(ctx, req, info, handler)
	}); err != nil {
		t.Errorf("no token configured, RemoveNode forwarded by a node: %v", err)
	}
	gen := &grpc.UnaryServerInfo{FullMethod: idnodev1.IdService_Generate_FullMethodName}
	if _, err := s.authorize(context.Background(), &idnodev1.GenerateRequest{}, gen, handler); err != nil {
		t.Errorf("Generate without a token: %v", err)
	}
}

func TestOwnCallsCarryTheOwnToken(t *testing.T) {
	t.Parallel()
	s := &Server{core: newCore(Config{AdminToken: "own"}, nil, nil)}
	md, _ := metadata.FromOutgoingContext(s.withOwnToken(context.Background()))
	if got := md.Get("authorization"); len(got) != 1 || got[0] != "Bearer own" {
		t.Errorf("own token metadata %v", md)
	}
}

type countingObserver struct {
	ids      map[string]int64 // by strategy
	byDB     map[string]int64 // by database
	ranges   []int64
	noQuorum int
}

func (o *countingObserver) IDsIssued(s, db string, n int64)      { o.ids[s] += n; o.byDB[db] += n }
func (o *countingObserver) HiLoRange(n int64)                    { o.ranges = append(o.ranges, n) }
func (o *countingObserver) NoQuorum()                            { o.noQuorum++ }
func (o *countingObserver) HiLoPoolGrant(string, string, int64)  {}
func (o *countingObserver) HiLoPoolRefill(string, string, int64) {}
func (o *countingObserver) ClockOffset(time.Duration)            {}
func (o *countingObserver) NumericClockBehind(string)            {}

func TestObserveCountsWhatCallersGet(t *testing.T) {
	t.Parallel()
	obs := &countingObserver{ids: map[string]int64{}, byDB: map[string]int64{}}
	s := &interceptors{core: newCore(Config{Separator: '/', Observer: obs}, nil, nil)}
	info := &grpc.UnaryServerInfo{}
	answer := func(resp any, err error) grpc.UnaryHandler {
		return func(context.Context, any) (any, error) { return resp, err }
	}
	ctx := context.Background()
	gen := func(id string, n int) {
		_, _ = s.observe(ctx, &idnodev1.GenerateRequest{Id: id}, info, answer(&idnodev1.GenerateResponse{Ids: make([]string, n)}, nil))
	}
	gen("", 2)
	gen("users/", 3)
	gen("users|", 4)
	gen("users/x", 1)
	_, _ = s.observe(ctx, &idnodev1.GenerateRequest{Numeric: true}, info, answer(&idnodev1.GenerateResponse{Ids: make([]string, 6)}, nil))
	_, _ = s.observe(ctx, &idnodev1.NextIdentityRequest{Database: "billing"}, info, answer(&idnodev1.NextIdentityResponse{First: 5, Last: 9}, nil))
	_, _ = s.observe(ctx, &idnodev1.NextHiLoRequest{}, info, answer(&idnodev1.NextHiLoResponse{Low: 33, High: 96}, nil))
	_, _ = s.observe(ctx, &idnodev1.GenerateRequest{Id: "a|"}, info, answer(nil, reason.Error(codes.Unavailable, reason.NoQuorum, "no quorum: …")))
	_, _ = s.observe(ctx, &idnodev1.GenerateRequest{Id: "a|"}, info, answer(nil, reason.Error(codes.Unavailable, reason.OutcomeUnknown, "no quorum: …")))
	_, _ = s.observe(ctx, &idnodev1.GenerateRequest{Id: "a|"}, info, answer(nil, status.Error(codes.Unavailable, "shutting down")))
	// A call another node forwarded here is that node's to count.
	arrived, _ := forward.Receiver("B", nil)
	_, _ = arrived(ctx, &idnodev1.NextIdentityRequest{}, info, func(ctx context.Context, req any) (any, error) {
		return s.observe(ctx, req, info, answer(&idnodev1.NextIdentityResponse{First: 1, Last: 100}, nil))
	})
	want := map[string]int64{StrategyGUID: 2, StrategyServerSide: 3, StrategyIdentity: 4 + 5, StrategySemantic: 1, StrategyHiLo: 64, StrategyNumeric: 6}
	for k, v := range want {
		if obs.ids[k] != v {
			t.Errorf("%s: %d IDs counted, want %d (all: %v)", k, obs.ids[k], v, obs.ids)
		}
	}
	if obs.byDB["billing"] != 5 || obs.byDB[""] != 2+3+4+1+6+64 {
		t.Errorf("IDs by database %v, want billing 5 and the rest in the default", obs.byDB)
	}
	if len(obs.ranges) != 1 || obs.ranges[0] != 64 || obs.noQuorum != 2 {
		t.Errorf("ranges %v, no-quorum refusals %d", obs.ranges, obs.noQuorum)
	}
	// Status's tally counts what the observer was told, and counts without one too.
	bare := &interceptors{core: newCore(Config{Separator: '/'}, nil, nil)}
	_, _ = bare.observe(ctx, &idnodev1.GenerateRequest{Id: "users/"}, info, answer(&idnodev1.GenerateResponse{Ids: make([]string, 3)}, nil))
	tally := s.issued.snapshot()
	for k, v := range want {
		if tally[k] != uint64(v) {
			t.Errorf("Status's tally of %s: %d, want %d (all: %v)", k, tally[k], v, tally)
		}
	}
	if got := bare.issued.snapshot(); got[StrategyServerSide] != 3 || got[StrategySeries] != 0 {
		t.Errorf("the tally of a server without metrics: %v; want 3 server-side IDs", got)
	}
}

func TestChunkWriter(t *testing.T) {
	t.Parallel()
	for _, size := range []int{0, 1, backupChunkSize - 1, backupChunkSize, 2*backupChunkSize + 17} {
		var chunks []*idnodev1.BackupChunk
		w := &chunkWriter{first: &idnodev1.BackupChunk{Leader: "A", Index: 7}, send: func(c *idnodev1.BackupChunk) error {
			chunks = append(chunks, c)
			return nil
		}}
		data := bytes.Repeat([]byte{'x'}, size)
		for rest := data; len(rest) > 0; { // odd write sizes, as bufio would make them
			n := min(len(rest), 4093)
			if _, err := w.Write(rest[:n]); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if err := w.flush(); err != nil {
			t.Fatal(err)
		}
		var got []byte
		for i, c := range chunks {
			if len(c.GetData()) > backupChunkSize || (i == 0) != (c.GetLeader() == "A" && c.GetIndex() == 7) {
				t.Errorf("size %d: chunk %d has %d bytes, leader %q", size, i, len(c.GetData()), c.GetLeader())
			}
			got = append(got, c.GetData()...)
		}
		if len(chunks) == 0 || !bytes.Equal(got, data) || w.total != size {
			t.Errorf("size %d: %d chunks, %d bytes back, total %d", size, len(chunks), len(got), w.total)
		}
	}
}
