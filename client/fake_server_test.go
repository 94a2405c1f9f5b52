package client

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/hilo"
	"github.com/idnode/idnode/internal/hilogrant"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/helpers/memnet"
)

// fakeState is the replicated state the fake nodes share: identity counters, HiLo maxima and
// the answers to request ids, with the FSM's rules (enough of them for the client's tests).
type fakeState struct {
	mu        sync.Mutex
	counters  map[string]int64 // lower-cased name → value
	spelling  map[string]string
	hiloMax   map[string]int64
	hiloGrant map[string]*hilogrant.Stack
	byReqID   map[string][2]int64
	returns   map[string]bool  // ReturnHiLo answers by request_id, as the FSM remembers them
	claimed   map[string]bool  // claimed IDs
	releases  map[string]int64 // Release answers by request_id, as the FSM remembers them
	etag      uint64
	reserved  int // identity and HiLo reservations made (replays excluded)
	hiloSizes []int64
	cluster   fakeMembership
}

func newFakeState() *fakeState {
	return &fakeState{counters: map[string]int64{}, spelling: map[string]string{}, hiloMax: map[string]int64{},
		hiloGrant: map[string]*hilogrant.Stack{}, byReqID: map[string][2]int64{}, returns: map[string]bool{},
		claimed: map[string]bool{}, releases: map[string]int64{}, cluster: fakeMembership{ended: make(chan error, 1)}}
}

func (s *fakeState) identity(name string, count int64, reqID string) (first, last int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.byReqID[reqID]; ok && reqID != "" {
		return r[0], r[1]
	}
	key := strings.ToLower(name)
	if _, ok := s.spelling[key]; !ok {
		s.spelling[key] = name
	}
	first = s.counters[key] + 1
	last = first + max(count, 1) - 1
	s.counters[key] = last
	s.reserved++
	if reqID != "" {
		s.byReqID[reqID] = [2]int64{first, last}
	}
	return first, last
}

// fakeNode is one node: a gRPC server on loopback that answers from the shared state, unless
// told to fail.
type fakeNode struct {
	idnodev1.UnimplementedIdServiceServer
	idnodev1.UnimplementedClusterServiceServer
	tag   string
	state *fakeState
	addr  string
	srv   *grpc.Server

	mu          sync.Mutex
	down        bool  // answer UNAVAILABLE NO_QUORUM, as a node cut off from the majority does
	refuse      error // answer it without doing anything, as a node shedding load does
	hang        bool  // answer nothing until the call's context ends
	loseAnswers int   // do the work, then answer UNAVAILABLE
	calls       int
	reqIDs      []string
	auth        [][]string // the authorization metadata of each call
	databases   [][]string // the idnode-database metadata of each call
	leader      string     // when set, every answer names it in LeaderHeader, as nodes do
	arrived     func()     // when set, called with each call counted, before it is answered
}

// startFakeNode serves a fake node tagged tag on a loopback port, its gRPC server made with
// opts.
func startFakeNode(t testing.TB, tag string, state *fakeState, opts ...grpc.ServerOption) *fakeNode {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveFakeNode(t, tag, state, l, opts...)
}

// serveFakeNode serves a fake node tagged tag on l until the end of the test.
func serveFakeNode(t testing.TB, tag string, state *fakeState, l net.Listener, opts ...grpc.ServerOption) *fakeNode {
	n := &fakeNode{tag: tag, state: state, addr: l.Addr().String(), srv: grpc.NewServer(opts...)}
	idnodev1.RegisterIdServiceServer(n.srv, n)
	idnodev1.RegisterClusterServiceServer(n.srv, n)
	go func() { _ = n.srv.Serve(l) }()
	t.Cleanup(n.srv.Stop)
	return n
}

func (n *fakeNode) set(f func(n *fakeNode)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f(n)
}

func (n *fakeNode) requestIDs() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.reqIDs)
}

func (n *fakeNode) authorization() [][]string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.auth)
}

func (n *fakeNode) databaseMetadata() [][]string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.databases)
}

func (n *fakeNode) callCount() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.calls
}

// enter counts the call and applies the failure mode; lose reports whether the answer must be
// dropped after doing the work.
func (n *fakeNode) enter(ctx context.Context, reqID string) (lose bool, err error) {
	n.mu.Lock()
	n.calls++
	n.reqIDs = append(n.reqIDs, reqID)
	n.auth = append(n.auth, metadata.ValueFromIncomingContext(ctx, "authorization"))
	n.databases = append(n.databases, metadata.ValueFromIncomingContext(ctx, "idnode-database"))
	down, refuse, hang := n.down, n.refuse, n.hang
	if n.leader != "" {
		_ = grpc.SetHeader(ctx, metadata.Pairs(LeaderHeader, n.leader))
	}
	if n.loseAnswers > 0 {
		n.loseAnswers--
		lose = true
	}
	arrived := n.arrived
	n.mu.Unlock()
	if arrived != nil {
		arrived()
	}
	switch {
	case down:
		return false, reason.Error(codes.Unavailable, reason.NoQuorum, "fake node "+n.tag+": no quorum")
	case refuse != nil:
		return false, refuse
	case hang:
		<-ctx.Done()
		return false, status.FromContextError(ctx.Err()).Err()
	}
	return lose, nil
}

var errLost = status.Error(codes.Unavailable, "fake: answer lost")

func (n *fakeNode) Generate(ctx context.Context, req *idnodev1.GenerateRequest) (*idnodev1.GenerateResponse, error) {
	lose, err := n.enter(ctx, req.GetRequestId())
	if err != nil {
		return nil, err
	}
	r, err := docid.Parse(req.GetId(), '/')
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	count := max(req.GetCount(), 1)
	var ids []string
	switch r.Kind {
	case docid.Semantic:
		ids = []string{r.Raw}
	case docid.GUID:
		ids = []string{"0194c1a2-0000-7000-8000-000000000000"}
	case docid.ServerSide:
		n.state.mu.Lock()
		for range count {
			n.state.etag++
			ids = append(ids, docid.ServerSideID(r.Prefix, n.state.etag, n.tag))
		}
		n.state.mu.Unlock()
	case docid.Identity:
		first, last := n.state.identity(r.Prefix, count, req.GetRequestId())
		for v := first; v <= last; v++ {
			ids = append(ids, docid.IdentityID(r.Prefix, '/', v))
		}
	}
	if lose {
		return nil, errLost
	}
	return &idnodev1.GenerateResponse{Ids: ids}, nil
}

func (n *fakeNode) NextIdentity(ctx context.Context, req *idnodev1.NextIdentityRequest) (*idnodev1.NextIdentityResponse, error) {
	lose, err := n.enter(ctx, req.GetRequestId())
	if err != nil {
		return nil, err
	}
	if err := docid.ValidateName("identity name", req.GetName()); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	first, last := n.state.identity(req.GetName(), req.GetCount(), req.GetRequestId())
	if lose {
		return nil, errLost
	}
	return &idnodev1.NextIdentityResponse{First: first, Last: last}, nil
}

func (n *fakeNode) SeedIdentity(ctx context.Context, req *idnodev1.SeedIdentityRequest) (*idnodev1.SeedIdentityResponse, error) {
	if _, err := n.enter(ctx, ""); err != nil {
		return nil, err
	}
	s := n.state
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(req.GetName())
	if _, ok := s.spelling[key]; !ok {
		s.spelling[key] = req.GetName()
	}
	if req.GetForce() {
		s.counters[key] = req.GetValue()
	} else {
		s.counters[key] = max(s.counters[key], req.GetValue())
	}
	return &idnodev1.SeedIdentityResponse{Value: s.counters[key]}, nil
}

func (n *fakeNode) ListIdentities(ctx context.Context, req *idnodev1.ListIdentitiesRequest) (*idnodev1.ListIdentitiesResponse, error) {
	if _, err := n.enter(ctx, ""); err != nil {
		return nil, err
	}
	after, err := base64.RawURLEncoding.DecodeString(req.GetPageToken())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, "bad page token")
	}
	size := int(req.GetPageSize())
	if size == 0 {
		size = 1000
	}
	s := n.state
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for k := range s.counters {
		if strings.HasPrefix(k, strings.ToLower(req.GetPrefix())) && k > string(after) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	out := &idnodev1.ListIdentitiesResponse{}
	for i, k := range keys {
		if i == size {
			out.NextPageToken = base64.RawURLEncoding.EncodeToString([]byte(keys[i-1]))
			break
		}
		out.Identities = append(out.Identities, &idnodev1.Identity{Name: s.spelling[k], Value: s.counters[k]})
	}
	return out, nil
}

func (n *fakeNode) NextHiLo(ctx context.Context, req *idnodev1.NextHiLoRequest) (*idnodev1.NextHiLoResponse, error) {
	lose, err := n.enter(ctx, req.GetRequestId())
	if err != nil {
		return nil, err
	}
	sep := cmp.Or(req.GetSeparator(), "/") // the cluster's is '/'
	if err := docid.ValidateHiLoTag(req.GetTag(), []rune(sep)[0]); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	s := n.state
	s.mu.Lock()
	key := strings.ToLower(req.GetTag())
	now := time.Now()
	r, ok := s.byReqID[req.GetRequestId()]
	if !ok || req.GetRequestId() == "" {
		var lastAt time.Time
		if req.GetLastRangeAt() > 0 {
			lastAt = time.UnixMilli(req.GetLastRangeAt())
		}
		capacity := hilo.DefaultPolicy.Capacity(req.GetLastBatchSize(), lastAt, now)
		base := max(s.hiloMax[key], req.GetLastMax())
		r = [2]int64{base + 1, base + capacity}
		s.hiloMax[key] = r[1]
		if s.hiloGrant[key] == nil {
			s.hiloGrant[key] = &hilogrant.Stack{}
		}
		s.hiloGrant[key].Push(hilogrant.Grant{ID: req.GetRequestId(), Low: r[0], High: r[1]})
		s.byReqID[req.GetRequestId()] = r
		s.reserved++
		s.hiloSizes = append(s.hiloSizes, capacity)
	}
	s.mu.Unlock()
	if lose {
		return nil, errLost
	}
	return &idnodev1.NextHiLoResponse{Prefix: req.GetTag() + sep, Low: r[0], High: r[1], LastSize: r[1] - r[0] + 1,
		ServerTag: n.tag, LastRangeAt: now.UnixMilli(), GrantId: req.GetRequestId()}, nil
}

// Claim claims ids, whoever holds them (the fake keeps no owners).
func (n *fakeNode) Claim(ctx context.Context, req *idnodev1.ClaimRequest) (*idnodev1.ClaimResponse, error) {
	if _, err := n.enter(ctx, req.GetRequestId()); err != nil {
		return nil, err
	}
	n.state.mu.Lock()
	defer n.state.mu.Unlock()
	for _, id := range req.GetIds() {
		n.state.claimed[id] = true
	}
	return &idnodev1.ClaimResponse{}, nil
}

// Release releases ids and counts those claimed; a request_id it answered before gets that
// answer again, as the FSM's request table gives it.
func (n *fakeNode) Release(ctx context.Context, req *idnodev1.ReleaseRequest) (*idnodev1.ReleaseResponse, error) {
	lose, err := n.enter(ctx, req.GetRequestId())
	if err != nil {
		return nil, err
	}
	s := n.state
	s.mu.Lock()
	defer s.mu.Unlock()
	released, replay := s.releases[req.GetRequestId()]
	if !replay || req.GetRequestId() == "" {
		released = 0
		for _, id := range req.GetIds() {
			if s.claimed[id] {
				delete(s.claimed, id)
				released++
			}
		}
		s.releases[req.GetRequestId()] = released
	}
	if lose {
		return nil, errLost
	}
	return &idnodev1.ReleaseResponse{Released: released}, nil
}

func (n *fakeNode) ReturnHiLo(ctx context.Context, req *idnodev1.ReturnHiLoRequest) (*idnodev1.ReturnHiLoResponse, error) {
	lose, err := n.enter(ctx, req.GetRequestId())
	if err != nil {
		return nil, err
	}
	s := n.state
	s.mu.Lock()
	defer s.mu.Unlock()
	ok, replay := s.returns[req.GetRequestId()]
	if !replay || req.GetRequestId() == "" {
		key := strings.ToLower(req.GetTag())
		g := s.hiloGrant[key]
		if g == nil {
			g = &hilogrant.Stack{}
		}
		if ok, err = g.Return(req.GetGrantId(), req.GetEnd(), req.GetLast()); err != nil {
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
		if ok {
			s.hiloMax[key] = req.GetLast()
		}
		s.returns[req.GetRequestId()] = ok
	}
	if lose {
		return nil, errLost
	}
	return &idnodev1.ReturnHiLoResponse{Returned: ok}, nil
}

func (n *fakeNode) SeedHiLo(ctx context.Context, req *idnodev1.SeedHiLoRequest) (*idnodev1.SeedHiLoResponse, error) {
	if _, err := n.enter(ctx, ""); err != nil {
		return nil, err
	}
	s := n.state
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(req.GetTag())
	if req.GetMax() > s.hiloMax[key] {
		s.hiloMax[key] = req.GetMax()
		delete(s.hiloGrant, key)
	}
	return &idnodev1.SeedHiLoResponse{Max: s.hiloMax[key]}, nil
}

func (n *fakeNode) Status(ctx context.Context, req *idnodev1.StatusRequest) (*idnodev1.StatusResponse, error) {
	if _, err := n.enter(ctx, ""); err != nil {
		return nil, err
	}
	return &idnodev1.StatusResponse{Leader: "A", Self: n.tag, Term: 1}, nil
}

// fakeCluster starts tags as fake nodes sharing one state.
func fakeCluster(t testing.TB, tags ...string) (*fakeState, []*fakeNode, []string) {
	t.Helper()
	return fakeClusterOn(t, nil, tags...)
}

// fakeClusterOn is fakeCluster with the nodes listening on mem, or on loopback TCP when mem is
// nil.
func fakeClusterOn(t testing.TB, mem *memnet.Network, tags ...string) (*fakeState, []*fakeNode, []string) {
	t.Helper()
	state := newFakeState()
	var nodes []*fakeNode
	var addrs []string
	for _, tag := range tags {
		var n *fakeNode
		if mem != nil {
			n = serveFakeNode(t, tag, state, mem.Listen())
		} else {
			n = startFakeNode(t, tag, state)
		}
		nodes = append(nodes, n)
		addrs = append(addrs, n.addr)
	}
	return state, nodes, addrs
}

// dialTest dials addrs with a short backoff, starting at the first address, and closes the
// client at the end of the test.
func dialTest(t *testing.T, addrs []string, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithBackoff(Backoff{Initial: time.Millisecond, Max: 20 * time.Millisecond})}, opts...)
	c, err := Dial(context.Background(), addrs, opts...)
	if err != nil {
		t.Fatalf("Dial(%v): %v", addrs, err)
	}
	c.preferred.Store(0)
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (n *fakeNode) String() string { return fmt.Sprintf("node %s (%s)", n.tag, n.addr) }

// AcquireWorker leases worker 1 for the time asked, with nothing minted under it before.
func (n *fakeNode) AcquireWorker(ctx context.Context, req *idnodev1.AcquireWorkerRequest) (*idnodev1.WorkerLease, error) {
	if _, err := n.enter(ctx, req.GetRequestId()); err != nil {
		return nil, err
	}
	now := time.Now()
	return &idnodev1.WorkerLease{Worker: 1, Epoch: 1, MinMs: now.Add(-time.Second).UnixMilli(),
		MaxMs: now.Add(24 * time.Hour).UnixMilli(), ExpiresAtMs: now.UnixMilli() + req.GetLeaseMs()}, nil
}

// ReleaseWorker ends the lease.
func (n *fakeNode) ReleaseWorker(ctx context.Context, _ *idnodev1.ReleaseWorkerRequest) (*idnodev1.ReleaseWorkerResponse, error) {
	if _, err := n.enter(ctx, ""); err != nil {
		return nil, err
	}
	return &idnodev1.ReleaseWorkerResponse{}, nil
}
