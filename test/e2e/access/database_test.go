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
	// Admin writes carry no request id: one asked again after a refusal for want of a leader
	// may find its earlier attempt applied (retried), and be refused for that.
	createDatabase := func(tag, name string) {
		t.Helper()
		retried, err := e2etest.RetriedWrite(func(ctx context.Context) error {
			_, err := c.Admin[tag].CreateDatabase(ctx, &idnodev1.CreateDatabaseRequest{Name: name})
			return err
		})
		if err != nil && !(retried && status.Code(err) == codes.AlreadyExists) {
			t.Fatalf("CreateDatabase %s via %s: %v", name, tag, err)
		}
	}
	createDatabase(followers[0], "billing")
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
	// would, also when the test expects a refusal for what it asks.
	next := func(tag, db string, viaMetadata bool) (string, error) {
		reqID := c.RequestID()
		return e2etest.Retried(func(ctx context.Context) (string, error) { return generate(ctx, tag, db, viaMetadata, reqID) })
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
	if _, err := next(followers[0], "shop", false); status.Code(err) != codes.NotFound || !strings.Contains(err.Error(), `"shop"`) {
		t.Fatalf("orders| in an unknown database: %v, want NOT_FOUND naming it", err)
	}
	deleteDatabase := func(req *idnodev1.DeleteDatabaseRequest) (bool, error) {
		return e2etest.RetriedWrite(func(ctx context.Context) error {
			_, err := c.Admin[leader].DeleteDatabase(ctx, req)
			return err
		})
	}
	if _, err := deleteDatabase(&idnodev1.DeleteDatabaseRequest{Name: "billing"}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("deleting a database with counters: %v, want FAILED_PRECONDITION", err)
	}
	if retried, err := deleteDatabase(&idnodev1.DeleteDatabaseRequest{Name: "billing", Force: true}); err != nil && !(retried && status.Code(err) == codes.NotFound) {
		t.Fatalf("deleting a database with force: %v", err)
	}
	if _, err := next(followers[1], "billing", true); status.Code(err) != codes.NotFound {
		t.Fatalf("orders| in a deleted database: %v, want NOT_FOUND", err)
	}
	createDatabase(leader, "Billing")
	if got, err := next(followers[1], "billing", false); err != nil || got != fmt.Sprintf("orders/%d", want["billing"]+1) {
		t.Fatalf("orders| in billing created again: %q, %v; want orders/%d (after the values handed out before)", got, err, want["billing"]+1)
	}
	want["billing"]++

	// API keys: once the cluster has one, ID calls need a key of their database. A key create
	// asked again after a refusal for want of a leader may leave a key of a lost answer that
	// nobody holds; the test uses the keys it was shown.
	addr := []string{"IDNODE_ADDR=" + c.Node(followers[0]).GRPCAddr}
	billingKey := strings.TrimSpace(e2etest.MustIdctlRetrying(t, addr, "key", "create", "--db", "billing", "--role", "writer"))
	defaultKey := strings.TrimSpace(e2etest.MustIdctlRetrying(t, addr, "key", "create", "--role", "writer"))
	withKey := func(tag, db, key string) (string, error) {
		reqID := c.RequestID()
		return e2etest.Retried(func(ctx context.Context) (string, error) {
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+key)
			resp, err := c.Ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|", Database: db, RequestId: reqID})
			if err != nil {
				return "", err
			}
			return resp.GetIds()[0], nil
		})
	}
	if _, err := next(leader, "billing", false); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("orders| without a key on a cluster with keys: %v, want UNAUTHENTICATED", err)
	}
	want["billing"]++
	if got, err := withKey(followers[1], "billing", billingKey); err != nil || got != fmt.Sprintf("orders/%d", want["billing"]) {
		t.Fatalf("orders| in billing with its key via follower %s: %q, %v; want orders/%d", followers[1], got, err, want["billing"])
	}
	if _, err := withKey(followers[1], "", billingKey); status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), `"default"`) {
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
