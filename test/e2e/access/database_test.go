package access

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// Two databases on a three-node cluster count the same identity names on their own, through
// any node, by the request's field or by metadata; an unknown database is NOT_FOUND naming
// it; a deleted database refuses calls and, created again, goes on after its old
// values.
func TestDatabasesCountOnTheirOwn(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	leader := c.Leader()
	followers := c.Others(leader)
	if _, err := c.Admin[followers[0]].CreateDatabase(e2etest.RPCCtx(t), &idnodev1.CreateDatabaseRequest{Name: "billing"}); err != nil {
		t.Fatalf("CreateDatabase billing via follower %s: %v", followers[0], err)
	}
	generate := func(ctx context.Context, tag, db string, viaMetadata bool, reqID string) (string, error) {
		req := &idnodev1.GenerateRequest{Id: "orders|", RequestId: reqID}
		if viaMetadata {
			ctx = metadata.AppendToOutgoingContext(ctx, "idnode-database", db)
		} else {
			req.Database = db
		}
		resp, err := c.Ids[tag].Generate(ctx, req)
		if err != nil {
			return "", err
		}
		return resp.GetIds()[0], nil
	}
	// next asks again with its request id after a refusal for want of a leader, as a client
	// would; nextOnce asks once, for a call the test expects refused.
	next := func(tag, db string, viaMetadata bool) (string, error) {
		reqID := c.RequestID()
		return e2etest.Retried(func(ctx context.Context) (string, error) { return generate(ctx, tag, db, viaMetadata, reqID) })
	}
	nextOnce := func(tag, db string, viaMetadata bool) (string, error) {
		return generate(e2etest.RPCCtx(t), tag, db, viaMetadata, c.RequestID())
	}
	// Interleaved, through every node: each database's orders go 1, 2, 3 …
	want := map[string]int{"": 0, "billing": 0}
	for i, tag := range []string{leader, followers[0], followers[1], leader, followers[1], followers[0]} {
		for _, db := range []string{"", "billing"} {
			got, err := next(tag, db, i%2 == 1)
			want[db]++
			if err != nil || got != fmt.Sprintf("orders/%d", want[db]) {
				t.Fatalf("orders| in database %q via %s: %q, %v; want orders/%d", db, tag, got, err, want[db])
			}
		}
	}

	// A read, asked again after a refusal for want of a leader, as a client would.
	list, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.ListDatabasesResponse, error) {
		return c.Admin[followers[1]].ListDatabases(ctx, &idnodev1.ListDatabasesRequest{})
	})
	if err != nil || len(list.GetDatabases()) != 2 || list.GetDatabases()[0].GetName() != "billing" || list.GetDatabases()[0].GetIdentities() != 1 {
		t.Fatalf("ListDatabases: %v, %v; want billing (1 identity) and default", list, err)
	}
	if _, err := nextOnce(followers[0], "shop", false); status.Code(err) != codes.NotFound || !strings.Contains(err.Error(), `"shop"`) {
		t.Fatalf("orders| in an unknown database: %v, want NOT_FOUND naming it", err)
	}
	if _, err := c.Admin[leader].DeleteDatabase(e2etest.RPCCtx(t), &idnodev1.DeleteDatabaseRequest{Name: "billing"}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("deleting a database with counters: %v, want FAILED_PRECONDITION", err)
	}
	if _, err := c.Admin[leader].DeleteDatabase(e2etest.RPCCtx(t), &idnodev1.DeleteDatabaseRequest{Name: "billing", Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := nextOnce(followers[1], "billing", true); status.Code(err) != codes.NotFound {
		t.Fatalf("orders| in a deleted database: %v, want NOT_FOUND", err)
	}
	if _, err := c.Admin[leader].CreateDatabase(e2etest.RPCCtx(t), &idnodev1.CreateDatabaseRequest{Name: "Billing"}); err != nil {
		t.Fatal(err)
	}
	if got, err := next(followers[1], "billing", false); err != nil || got != fmt.Sprintf("orders/%d", want["billing"]+1) {
		t.Fatalf("orders| in billing created again: %q, %v; want orders/%d (after the values handed out before)", got, err, want["billing"]+1)
	}
	want["billing"]++

	// API keys: once the cluster has one, ID calls need a key of their database.
	addr := []string{"IDNODE_ADDR=" + c.Node(followers[0]).GRPCAddr}
	billingKey := strings.TrimSpace(e2etest.MustIdctl(t, addr, "key", "create", "--db", "billing", "--role", "writer"))
	defaultKey := strings.TrimSpace(e2etest.MustIdctl(t, addr, "key", "create", "--role", "writer"))
	withKeyOnce := func(ctx context.Context, tag, db, key, reqID string) (string, error) {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+key)
		resp, err := c.Ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|", Database: db, RequestId: reqID})
		if err != nil {
			return "", err
		}
		return resp.GetIds()[0], nil
	}
	withKey := func(tag, db, key string) (string, error) {
		reqID := c.RequestID()
		return e2etest.Retried(func(ctx context.Context) (string, error) { return withKeyOnce(ctx, tag, db, key, reqID) })
	}
	if _, err := nextOnce(leader, "billing", false); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("orders| without a key on a cluster with keys: %v, want UNAUTHENTICATED", err)
	}
	want["billing"]++
	if got, err := withKey(followers[1], "billing", billingKey); err != nil || got != fmt.Sprintf("orders/%d", want["billing"]) {
		t.Fatalf("orders| in billing with its key via follower %s: %q, %v; want orders/%d", followers[1], got, err, want["billing"])
	}
	if _, err := withKeyOnce(e2etest.RPCCtx(t), followers[1], "", billingKey, c.RequestID()); status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), `"default"`) {
		t.Fatalf("orders| in default with billing's key: %v, want PERMISSION_DENIED naming the database", err)
	}
	want[""]++
	if got, err := withKey(leader, "", defaultKey); err != nil || got != fmt.Sprintf("orders/%d", want[""]) {
		t.Fatalf("orders| in default with its key: %q, %v; want orders/%d", got, err, want[""])
	}
	want["billing"]++
	if got := e2etest.MustIdctlRetrying(t, append(addr, "IDNODE_DB=billing", "IDNODE_KEY="+billingKey), "next", "orders|", "--request-id", "billing-with-its-key"); got != fmt.Sprintf("orders/%d\n", want["billing"]) {
		t.Fatalf("idctl --db billing --key … next orders| = %q, want orders/%d", got, want["billing"])
	}
}
