package access

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/loopback"
)

// needNonLoopbackIP is nonLoopbackIP, or the end of the test: it fails in CI and skips elsewhere.
func needNonLoopbackIP(t *testing.T) string {
	t.Helper()
	ip := e2etest.NonLoopbackIP()
	if ip == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("this machine has no non-loopback IPv4 address to call the node through")
		}
		t.Skip("no non-loopback IPv4 address on this machine")
	}
	return ip
}

// A node listening on the network with no admin token takes admin calls only from its own
// machine: from a non-loopback peer, AddNode and a forced seed are PERMISSION_DENIED
// naming the flag that opens them, and change nothing. The same calls over loopback work.
func TestAdminIsClosedToTheNetworkByDefault(t *testing.T) {
	t.Parallel()
	ip := needNonLoopbackIP(t)
	port := loopback.FreePort(t)
	p := e2etest.StartNode(t, e2etest.NodeOpts{GRPCAddr: fmt.Sprintf("0.0.0.0:%d", port)})
	p.WaitServing(e2etest.ServeTimeout)
	localIDs, localAdmin := e2etest.Dial(t, fmt.Sprintf("127.0.0.1:%d", port))
	remoteIDs, remoteAdmin := e2etest.Dial(t, net.JoinHostPort(ip, fmt.Sprint(port)))

	if _, err := localIDs.SeedIdentity(e2etest.RPCCtx(t), &idnodev1.SeedIdentityRequest{Name: "x", Value: 5}); err != nil {
		t.Fatal(err)
	}
	_, err := remoteAdmin.AddNode(e2etest.RPCCtx(t), &idnodev1.AddNodeRequest{Tag: "D", RaftAddress: "10.255.0.1:7000", GrpcAddress: "10.255.0.1:7070"})
	if status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), "--admin-token") {
		t.Fatalf("AddNode of a voter at a dead address through %s: %v; want PERMISSION_DENIED naming --admin-token", ip, err)
	}
	if _, err := remoteIDs.SeedIdentity(e2etest.RPCCtx(t), &idnodev1.SeedIdentityRequest{Name: "x", Value: 1, Force: true}); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("a forced seed through %s: %v; want PERMISSION_DENIED", ip, err)
	}
	st, err := localAdmin.Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{Consistent: true})
	if err != nil || len(st.GetNodes()) != 1 {
		t.Fatalf("members after the refused AddNode: %v, %v; want node A alone", st.GetNodes(), err)
	}
	if got := e2etest.Generate(t, remoteIDs, &idnodev1.GenerateRequest{Id: "x|"}); got != "x/6" {
		t.Fatalf("x| after the refused forced seed = %s, want x/6 (nothing moved back)", got)
	}
	// ID calls are open, and admin calls from this machine too.
	if v, err := localIDs.SeedIdentity(e2etest.RPCCtx(t), &idnodev1.SeedIdentityRequest{Name: "y", Value: 3, Force: true}); err != nil || v.GetValue() != 3 {
		t.Fatalf("a forced seed over loopback: %v, %v", v, err)
	}
}
