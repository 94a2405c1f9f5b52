package server

import (
	"context"
	"crypto/sha256"
	"net/netip"
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// WhoAmI says admin exactly when the admin check lets the caller through, by the right that
// let it, and names the API key the caller sent only when its secret is right.
func TestWhoAmINamesWhatTheChecksDecide(t *testing.T) {
	t.Parallel()
	f := fsm.New()
	mustApplyFSM(t, f, fsm.CreateDatabaseCommand, &raftv1.CreateDatabase{Name: "billing"})
	sum := sha256.Sum256([]byte("secret"))
	mustApplyFSM(t, f, fsm.CreateKeyCommand, &raftv1.CreateKey{Id: "r1", Database: "billing", Role: fsm.RoleReader, SecretSha256: sum[:]})
	bearer := func(ctx context.Context, token string) context.Context {
		return metadata.NewIncomingContext(ctx, metadata.Pairs("authorization", "Bearer "+token))
	}
	viaHTTP := func(addr, host string) context.Context {
		return WithHTTPCaller(context.Background(), HTTPCaller{Addr: netip.MustParseAddrPort(addr), Host: host})
	}
	loopback := viaHTTP("127.0.0.1:5000", "127.0.0.1:7080")
	for _, tc := range []struct {
		name  string
		token string // the node's admin token
		ctx   context.Context
		admin string
		key   string
	}{
		{"loopback, no token configured", "", loopback, adminByLoopback, ""},
		{"a page's host on loopback", "", viaHTTP("127.0.0.1:5000", "evil.example:7080"), "", ""},
		{"the network", "", viaHTTP("192.0.2.7:5000", "192.0.2.1:7080"), "", ""},
		{"loopback, a token configured", "adm", loopback, "", ""},
		{"the admin token", "adm", bearer(context.Background(), "adm"), adminByToken, ""},
		{"a wrong token", "adm", bearer(context.Background(), "guess"), "", ""},
		{"a reader key", "adm", bearer(context.Background(), "idk_r1_secret"), "", "r1/billing/reader"},
		{"a key with a wrong secret", "adm", bearer(context.Background(), "idk_r1_guess"), "", ""},
	} {
		s := &interceptors{core: newCore(Config{AdminToken: tc.token}, &fakeCluster{fsm: f}, nil)}
		resp, err := (&clusterService{core: s.core}).WhoAmI(tc.ctx, &idnodev1.WhoAmIRequest{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		checked := s.checkAdmin(tc.ctx, idnodev1.ClusterService_RemoveNode_FullMethodName) == nil
		if resp.GetAdmin() != tc.admin || checked != (resp.GetAdmin() != "") {
			t.Errorf("%s: admin %q, and the admin check lets it through: %v; want %q", tc.name, resp.GetAdmin(), checked, tc.admin)
		}
		key := ""
		if k := resp.GetKey(); k != nil {
			key = k.GetId() + "/" + k.GetDatabase() + "/" + k.GetRole()
		}
		if key != tc.key || !resp.GetKeysRequired() {
			t.Errorf("%s: key %q, keys required %v; want %q, true", tc.name, key, resp.GetKeysRequired(), tc.key)
		}
	}
}
