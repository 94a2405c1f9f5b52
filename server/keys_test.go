package server

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

func mustApplyFSM(t testing.TB, f *fsm.FSM, typ fsm.CommandType, m proto.Message) {
	t.Helper()
	data, err := fsm.Encode(typ, m)
	if err != nil {
		t.Fatal(err)
	}
	if err, ok := f.Apply(&raft.Log{Type: raft.LogCommand, Data: data}).(error); ok {
		t.Fatal(err)
	}
}

// Once the cluster has API keys, an IdService call needs a key of its database with a role
// that is enough, or the admin token.
func TestAPIKeysGuardTheirDatabase(t *testing.T) {
	t.Parallel()
	f := fsm.New()
	mustApplyFSM(t, f, fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "billing"})
	s := &interceptors{core: newCore(Config{AdminToken: "adm"}, &fakeCluster{leader: true, fsm: f}, nil)}
	handler := func(context.Context, any) (any, error) { return "ok", nil }
	call := func(method string, req any, db string, tokens ...string) codes.Code {
		md := metadata.MD{}
		for _, tok := range tokens {
			md.Append("authorization", "Bearer "+tok)
		}
		if db != "" {
			md.Append("idnode-database", db)
		}
		_, err := s.authorize(metadata.NewIncomingContext(context.Background(), md), req, &grpc.UnaryServerInfo{FullMethod: method}, handler)
		return status.Code(err)
	}
	gen, list := idnodev1.IdService_Generate_FullMethodName, idnodev1.IdService_ListIdentities_FullMethodName
	if got := call(gen, &idnodev1.GenerateRequest{Id: "orders|"}, ""); got != codes.OK {
		t.Fatalf("a cluster without keys: %v", got)
	}
	if got := call(idnodev1.IdService_SeedHiLo_FullMethodName, &idnodev1.SeedHiLoRequest{Tag: "orders"}, ""); got != codes.OK {
		t.Fatalf("SeedHiLo in a cluster without keys: %v", got)
	}
	for id, role := range map[string]string{"w1": fsm.RoleWriter, "r1": fsm.RoleReader, "a1": fsm.RoleAdmin} {
		sum := sha256.Sum256([]byte("secret-" + id))
		mustApplyFSM(t, f, fsm.CreateKeyCommand, &raftv1.CreateKey{Id: id, Database: "billing", Role: role, SecretSha256: sum[:]})
	}
	writer, reader, admin := "idk_w1_secret-w1", "idk_r1_secret-r1", "idk_a1_secret-a1"
	for _, tc := range []struct {
		name   string
		method string
		req    any
		db     string
		tokens []string
		want   codes.Code
	}{
		{"no key", gen, &idnodev1.GenerateRequest{Database: "billing"}, "", nil, codes.Unauthenticated},
		{"writer, its database", gen, &idnodev1.GenerateRequest{Database: "billing"}, "", []string{writer}, codes.OK},
		{"writer, database by metadata", gen, &idnodev1.GenerateRequest{}, "Billing", []string{writer}, codes.OK},
		{"writer, the default database", gen, &idnodev1.GenerateRequest{}, "", []string{writer}, codes.PermissionDenied},
		{"reader lists", list, &idnodev1.ListIdentitiesRequest{Database: "billing"}, "", []string{reader}, codes.OK},
		{"reader generates", gen, &idnodev1.GenerateRequest{Database: "billing"}, "", []string{reader}, codes.PermissionDenied},
		{"writer seeds", idnodev1.IdService_SeedIdentity_FullMethodName, &idnodev1.SeedIdentityRequest{Database: "billing"}, "", []string{writer}, codes.PermissionDenied},
		{"writer seeds a HiLo tag", idnodev1.IdService_SeedHiLo_FullMethodName, &idnodev1.SeedHiLoRequest{Database: "billing"}, "", []string{writer}, codes.PermissionDenied},
		{"admin key seeds a HiLo tag", idnodev1.IdService_SeedHiLo_FullMethodName, &idnodev1.SeedHiLoRequest{Database: "billing"}, "", []string{admin}, codes.OK},
		{"wrong secret", gen, &idnodev1.GenerateRequest{Database: "billing"}, "", []string{"idk_w1_guess"}, codes.Unauthenticated},
		{"not a key", gen, &idnodev1.GenerateRequest{Database: "billing"}, "", []string{"w1"}, codes.Unauthenticated},
		{"admin token", gen, &idnodev1.GenerateRequest{}, "", []string{"adm"}, codes.OK},
		{"status needs none", idnodev1.ClusterService_Status_FullMethodName, &idnodev1.StatusRequest{}, "", nil, codes.OK},
		{"writer leases a worker", idnodev1.IdService_AcquireWorker_FullMethodName, &idnodev1.AcquireWorkerRequest{Database: "billing"}, "", []string{writer}, codes.OK},
		{"reader leases a worker", idnodev1.IdService_AcquireWorker_FullMethodName, &idnodev1.AcquireWorkerRequest{Database: "billing"}, "", []string{reader}, codes.PermissionDenied},
		{"reader releases a worker", idnodev1.IdService_ReleaseWorker_FullMethodName, &idnodev1.ReleaseWorkerRequest{Database: "billing"}, "", []string{reader}, codes.PermissionDenied},
		{"reader lists workers", idnodev1.IdService_ListWorkers_FullMethodName, &idnodev1.ListWorkersRequest{Database: "billing"}, "", []string{reader}, codes.OK},
		{"explain needs none", idnodev1.IdService_Explain_FullMethodName, &idnodev1.ExplainRequest{Id: "users/1"}, "", nil, codes.OK},
	} {
		if got := call(tc.method, tc.req, tc.db, tc.tokens...); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A node that has not applied what the leader had committed since it
// started may not know the cluster's first key, so it refuses calls a key guards, keys or not,
// UNAVAILABLE (NOT_CAUGHT_UP); an admin credential still passes. Once it has caught up, it
// serves a cluster without keys as before, and stays so even if it falls behind again.
func TestKeyCallsWaitUntilCaughtUpSinceStart(t *testing.T) {
	t.Parallel()
	fc := &fakeCluster{leader: true, fsm: fsm.New(), behind: true}
	s := &interceptors{core: newCore(Config{AdminToken: "adm"}, fc, nil)}
	handler := func(context.Context, any) (any, error) { return "ok", nil }
	call := func(method string, tokens ...string) error {
		md := metadata.MD{}
		for _, tok := range tokens {
			md.Append("authorization", "Bearer "+tok)
		}
		ctx, cancel := context.WithTimeout(metadata.NewIncomingContext(context.Background(), md), 50*time.Millisecond)
		defer cancel()
		_, err := s.authorize(ctx, &idnodev1.GenerateRequest{Id: "orders|"}, &grpc.UnaryServerInfo{FullMethod: method}, handler)
		return err
	}
	gen := idnodev1.IdService_Generate_FullMethodName
	if err := call(gen); status.Code(err) != codes.Unavailable || reason.Of(err) != reason.NotCaughtUp {
		t.Fatalf("Generate on a node behind since its start: %v; want UNAVAILABLE (%s)", err, reason.NotCaughtUp)
	}
	if err := call(gen, "adm"); err != nil {
		t.Errorf("Generate with the admin token on a node behind: %v", err)
	}
	if err := call(idnodev1.ClusterService_Status_FullMethodName); err != nil {
		t.Errorf("Status, which no key guards, on a node behind: %v", err)
	}
	fc.behind = false
	if err := call(gen); err != nil {
		t.Fatalf("Generate on a caught-up node of a cluster without keys: %v", err)
	}
	fc.behind = true
	if err := call(gen); err != nil {
		t.Errorf("Generate on a node that caught up once, then fell behind: %v", err)
	}
}
