package client

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// WithAdminToken: every call, unary or streaming, carries "authorization: Bearer <token>",
// over plaintext too; without the option no call carries any.
func TestAdminTokenIsSentAsBearer(t *testing.T) {
	state, nodes, addrs := fakeCluster(t, "A")
	state.cluster.backup = []byte("0123456789")
	ctx := testCtx(t)
	calls := func(c *Client) {
		t.Helper()
		if _, err := c.Admin().Status(ctx, false); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Admin().Backup(ctx, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Admin().Restore(ctx, bytes.NewReader([]byte("backup"))); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Generate(ctx, "users/", 1); err != nil {
			t.Fatal(err)
		}
	}

	calls(dialTest(t, addrs, WithAdminToken("s3cret")))
	auth := nodes[0].authorization()
	if len(auth) != 4 {
		t.Fatalf("%d calls recorded, want 4", len(auth))
	}
	for i, got := range auth {
		if !slices.Equal(got, []string{"Bearer s3cret"}) {
			t.Errorf("call %d: authorization %q, want [\"Bearer s3cret\"]", i, got)
		}
	}

	calls(dialTest(t, addrs))
	for i, got := range nodes[0].authorization()[4:] {
		if len(got) != 0 {
			t.Errorf("call %d without WithAdminToken: authorization %q", i, got)
		}
	}
}

// A daemon that dials with plain gRPC uses the same credentials (cmd/idnode's --join).
func TestAdminTokenCredentialsWithPlainGRPC(t *testing.T) {
	_, nodes, addrs := fakeCluster(t, "A")
	cc, err := grpc.NewClient(addrs[0], grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(AdminTokenCredentials("t0k")))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	if _, err := idnodev1.NewClusterServiceClient(cc).Status(testCtx(t), &idnodev1.StatusRequest{}); err != nil {
		t.Fatalf("Status over plaintext with the token: %v", err)
	}
	if got := nodes[0].authorization(); len(got) != 1 || !slices.Equal(got[0], []string{"Bearer t0k"}) {
		t.Errorf("authorization %q, want [[\"Bearer t0k\"]]", got)
	}
}

func TestAdminTokenRefusesWhatGRPCCannotSend(t *testing.T) {
	for _, token := range []string{"", "line\nbreak", "é"} {
		if c, err := Dial(context.Background(), []string{"127.0.0.1:1"}, WithAdminToken(token)); err == nil {
			_ = c.Close(context.Background())
			t.Errorf("WithAdminToken(%q) accepted", token)
		}
	}
}
