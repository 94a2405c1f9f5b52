package e2etest

import (
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// StartSingle starts a fresh single-node cluster and waits until it serves.
func StartSingle(t *testing.T, extra ...string) (*Proc, idnodev1.IdServiceClient) {
	t.Helper()
	p := StartNode(t, NodeOpts{Extra: extra})
	p.WaitServing(ServeTimeout)
	ids, _ := Dial(t, p.GRPCAddr)
	return p, ids
}

// Generate asks for one request string and returns the single ID.
func Generate(t *testing.T, c idnodev1.IdServiceClient, req *idnodev1.GenerateRequest) string {
	t.Helper()
	resp, err := c.Generate(RPCCtx(t), req)
	if err != nil {
		t.Fatalf("Generate(%q): %v", req.GetId(), err)
	}
	if len(resp.GetIds()) != 1 {
		t.Fatalf("Generate(%q) = %q, want exactly one ID", req.GetId(), resp.GetIds())
	}
	return resp.GetIds()[0]
}

func ExpectGenerate(t *testing.T, c idnodev1.IdServiceClient, id, want string) {
	t.Helper()
	if got := Generate(t, c, &idnodev1.GenerateRequest{Id: id}); got != want {
		t.Fatalf("Generate(%q) = %q, want %q", id, got, want)
	}
}
