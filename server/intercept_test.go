package server

import (
	"context"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/idnode/idnode/fsm"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// chained runs interceptors as grpc-go's chain does: each one's handler is the next.
func chained(interceptors ...grpc.UnaryServerInterceptor) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		next := handler
		for i := len(interceptors) - 1; i >= 0; i-- {
			inner, next0 := interceptors[i], next
			next = func(ctx context.Context, req any) (any, error) { return inner(ctx, req, info, next0) }
		}
		return next(ctx, req)
	}
}

// interceptorServer is a server over an FSM with a database "billing" limited to calls a
// second, and a writer key of it.
func interceptorServer(t testing.TB, calls float64) (s *Server, writer string) {
	f := fsm.New()
	sum := sha256.Sum256([]byte("secret"))
	for _, cmd := range []struct {
		typ fsm.CommandType
		msg proto.Message
	}{
		{fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "billing", MaxCallsPerSecond: calls}},
		{fsm.CreateKeyCommand, &raftv1.CreateKey{Id: "w1", Database: "billing", Role: fsm.RoleWriter, SecretSha256: sum[:]}},
	} {
		data, err := fsm.Encode(cmd.typ, cmd.msg)
		if err != nil {
			t.Fatal(err)
		}
		if err, ok := f.Apply(&raft.Log{Type: raft.LogCommand, Data: data}).(error); ok {
			t.Fatal(err)
		}
	}
	s = New(Config{Tag: "A", AdminToken: "adm"}, &fakeCluster{leader: true, fsm: f}, nil)
	t.Cleanup(s.Close)
	s.registered.Store(true)
	return s, "idk_w1_secret"
}

// unary answers every call as the interceptors it replaces did, one after another, with the
// same codes and messages, and hands the handler the database it resolved.
func TestUnaryAnswersAsTheInterceptorChain(t *testing.T) {
	t.Parallel()
	s, writer := interceptorServer(t, 2)
	s.cfg.Now = func() time.Time { return time.Unix(1000, 0) } // no refill between the two
	old := chained(withReason, refuseUndecodable, s.intercept.leaderHint, s.intercept.authorize, s.intercept.limitCalls, s.intercept.observe, s.intercept.checkUTF8)
	gen := &grpc.UnaryServerInfo{FullMethod: idnodev1.IdService_Generate_FullMethodName}
	for _, tc := range []struct {
		name string
		req  *idnodev1.GenerateRequest
		md   []string
	}{
		{"no key", &idnodev1.GenerateRequest{Id: "users/1", Database: "billing"}, nil},
		{"key", &idnodev1.GenerateRequest{Id: "users/1", Database: "billing"}, []string{"authorization", "Bearer " + writer}},
		{"key, database by metadata", &idnodev1.GenerateRequest{Id: "users/1"}, []string{"authorization", "Bearer " + writer, "idnode-database", "Billing"}},
		{"field and metadata disagree", &idnodev1.GenerateRequest{Id: "users/1", Database: "billing"}, []string{"authorization", "Bearer adm", "idnode-database", "other"}},
		{"bad database", &idnodev1.GenerateRequest{Id: "users/1", Database: "no such/name"}, []string{"authorization", "Bearer adm"}},
		{"bad UTF-8", &idnodev1.GenerateRequest{Id: "users/\xff"}, []string{"authorization", "Bearer adm"}},
		{"bad id", &idnodev1.GenerateRequest{Id: "users||"}, []string{"authorization", "Bearer adm"}},
		{"over the limit", &idnodev1.GenerateRequest{Id: "users/1", Database: "billing"}, []string{"authorization", "Bearer " + writer}},
	} {
		ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs(tc.md...))
		var dbs []string
		handler := func(ctx context.Context, req any) (any, error) {
			db, _ := databaseOf(ctx, req.(*idnodev1.GenerateRequest).GetDatabase())
			dbs = append(dbs, db)
			return s.ids.Generate(ctx, req.(*idnodev1.GenerateRequest))
		}
		_, want := old(ctx, tc.req, gen, handler)
		_, got := s.intercept.unary(ctx, tc.req, gen, handler)
		if status.Code(got) != status.Code(want) || status.Convert(got).Message() != status.Convert(want).Message() {
			t.Errorf("%s: %v, want %v", tc.name, got, want)
		}
		if len(dbs) == 2 && dbs[0] != dbs[1] {
			t.Errorf("%s: the handler saw database %q, the chain %q", tc.name, dbs[1], dbs[0])
		}
	}
}

// stringsValid reads every string field of the requests it checks directly (Generate, and
// every increment of a relayed batch): one it missed would let bad UTF-8 through.
func TestStringsValidCoversEveryField(t *testing.T) {
	t.Parallel()
	relayed := func(inc *raftv1.IdentityIncrement) *forwardv1.NextIdentitiesRequest {
		return &forwardv1.NextIdentitiesRequest{Increments: []*raftv1.IdentityIncrement{
			{Name: "orders", RequestId: "r", Database: "billing"}, inc,
		}}
	}
	for _, tc := range []struct {
		valid proto.Message
		// bad returns the request with the string field fd of its innermost message set to s.
		bad func(fd protoreflect.FieldDescriptor, s string) proto.Message
		of  protoreflect.MessageDescriptor
	}{
		{
			valid: &idnodev1.GenerateRequest{Id: "users/ä", Database: "billing", RequestId: "r", Owner: "o"},
			bad: func(fd protoreflect.FieldDescriptor, s string) proto.Message {
				req := &idnodev1.GenerateRequest{}
				req.ProtoReflect().Set(fd, protoreflect.ValueOfString(s))
				return req
			},
			of: (&idnodev1.GenerateRequest{}).ProtoReflect().Descriptor(),
		},
		{
			valid: relayed(&raftv1.IdentityIncrement{Name: "orders-ä", Count: 1}),
			bad: func(fd protoreflect.FieldDescriptor, s string) proto.Message {
				inc := &raftv1.IdentityIncrement{Count: 1}
				inc.ProtoReflect().Set(fd, protoreflect.ValueOfString(s))
				return relayed(inc) // the second increment: every one is checked
			},
			of: (&raftv1.IdentityIncrement{}).ProtoReflect().Descriptor(),
		},
	} {
		name := tc.valid.ProtoReflect().Descriptor().FullName()
		if !stringsValid(tc.valid) {
			t.Fatalf("a valid %s was not valid", name)
		}
		fields := tc.of.Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			if fd.Kind() != protoreflect.StringKind {
				continue
			}
			if stringsValid(tc.bad(fd, "a\xffb")) {
				t.Errorf("%s: field %s with bad UTF-8 was valid", name, fd.Name())
			}
		}
	}
}

// The client port's interceptors and Generate's validation on a semantic ID (the server's own
// work per call, without grpc-go's): as one interceptor, and as the chain it replaced.
func BenchmarkGenerateInterceptors(b *testing.B) {
	s, writer := interceptorServer(b, 0)
	info := &grpc.UnaryServerInfo{FullMethod: idnodev1.IdService_Generate_FullMethodName}
	handler := func(ctx context.Context, req any) (any, error) {
		return s.ids.Generate(ctx, req.(*idnodev1.GenerateRequest))
	}
	ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Bearer "+writer))
	req := &idnodev1.GenerateRequest{Id: "users/ayende", Database: "billing"}
	for _, bc := range []struct {
		name        string
		interceptor grpc.UnaryServerInterceptor
	}{
		{"unary", s.intercept.unary},
		{"chain", chained(withReason, refuseUndecodable, s.intercept.leaderHint, s.intercept.authorize, s.intercept.limitCalls, s.intercept.observe, s.intercept.checkUTF8)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.interceptor(ctx, req, info, handler); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The UTF-8 check of a follower's relayed batch of 20 identities, as the leader's internal
// server runs it on every relay: the direct check, and the reflection walk it replaced.
//
//	go test -run NONE -bench CheckStringsRelay ./server/
func BenchmarkCheckStringsRelay(b *testing.B) {
	req := &forwardv1.NextIdentitiesRequest{}
	for i := range 20 {
		req.Increments = append(req.Increments, &raftv1.IdentityIncrement{Name: fmt.Sprintf("orders-%d", i), Count: 1, Database: "billing"})
	}
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := checkStrings(req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reflection", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := validUTF8(req.ProtoReflect(), ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}
