package server

import (
	"context"
	"testing"

	"github.com/hashicorp/raft"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// headerStream is the part of a gRPC server stream that grpc.SetHeader writes to.
type headerStream struct{ header metadata.MD }

func (h *headerStream) Method() string { return "/idnode.v1.IdService/Generate" }
func (h *headerStream) SetHeader(md metadata.MD) error {
	h.header = metadata.Join(h.header, md)
	return nil
}
func (h *headerStream) SendHeader(metadata.MD) error { return nil }
func (h *headerStream) SetTrailer(metadata.MD) error { return nil }

// registered is an FSM where the leader fakeCluster names, A-1, registered with grpcAddr.
func registered(t testing.TB, f *fsm.FSM, grpcAddr string) {
	t.Helper()
	data, err := fsm.Encode(fsm.RegisterNodeCommand, &raftv1.RegisterNode{Tag: "A", Id: "A-1", Incarnation: "i1", RaftAddress: "a:7000", GrpcAddress: grpcAddr})
	if err != nil {
		t.Fatal(err)
	}
	if err, ok := f.Apply(&raft.Log{Index: 1, Data: data}).(error); ok {
		t.Fatal(err)
	}
}

// hintOf is the leader header one call through the interceptor answers with.
func hintOf(t testing.TB, s *interceptors) []string {
	t.Helper()
	stream := &headerStream{}
	ctx := grpc.NewContextWithServerTransportStream(context.Background(), stream)
	if _, err := s.leaderHint(ctx, nil, nil, func(context.Context, any) (any, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	return stream.header.Get(idnodev1.LeaderHeader)
}

func TestLeaderHintNamesTheLeadersAddressAsRegistered(t *testing.T) {
	t.Parallel()
	f := fsm.New()
	s := &interceptors{core: newCore(Config{}, &fakeCluster{fsm: f}, nil)}
	if got := hintOf(t, s); got != nil {
		t.Fatalf("hint %v before the leader registered, want none", got)
	}
	registered(t, f, "a:7070")
	for range 2 { // the second from the cache
		if got := hintOf(t, s); len(got) != 1 || got[0] != "a:7070" {
			t.Fatalf("hint %v, want [a:7070]", got)
		}
	}
	// The leader registers again with another address (restarted with another --grpc-addr).
	registered(t, f, "a:7071")
	if got := hintOf(t, s); len(got) != 1 || got[0] != "a:7071" {
		t.Fatalf("hint %v after the leader's address changed, want [a:7071]", got)
	}
}

// BenchmarkLeaderHint is the interceptor's own cost per call: the leader lookup and the header.
func BenchmarkLeaderHint(b *testing.B) {
	f := fsm.New()
	registered(b, f, "a:7070")
	s := &interceptors{core: newCore(Config{}, &fakeCluster{fsm: f}, nil)}
	handler := func(context.Context, any) (any, error) { return nil, nil }
	b.ReportAllocs()
	for b.Loop() {
		ctx := grpc.NewContextWithServerTransportStream(context.Background(), &headerStream{})
		if _, err := s.leaderHint(ctx, nil, nil, handler); err != nil {
			b.Fatal(err)
		}
	}
}
