package access

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// An API key outlived its database and worked on a database created later
// under the same name. Deleting the database deletes its keys; the default database's key,
// which keeps keys required, is untouched.
func TestKeysAreDeletedWithTheirDatabase(t *testing.T) {
	t.Parallel()
	p, ids := e2etest.StartSingle(t)
	_, admin := e2etest.Dial(t, p.GRPCAddr)
	if _, err := admin.CreateDatabase(e2etest.RPCCtx(t), &idnodev1.CreateDatabaseRequest{Name: "billing"}); err != nil {
		t.Fatal(err)
	}
	billing, err := admin.CreateKey(e2etest.RPCCtx(t), &idnodev1.CreateKeyRequest{Database: "billing", Role: "writer"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := admin.CreateKey(e2etest.RPCCtx(t), &idnodev1.CreateKeyRequest{Role: "writer"})
	if err != nil {
		t.Fatal(err)
	}
	generate := func(key *idnodev1.CreateKeyResponse, db string) error {
		ctx := metadata.AppendToOutgoingContext(e2etest.RPCCtx(t), "authorization", "Bearer "+key.GetKey())
		_, err := ids.Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|", Database: db})
		return err
	}
	if err := generate(billing, "billing"); err != nil {
		t.Fatalf("billing's key in billing: %v", err)
	}
	if _, err := admin.DeleteDatabase(e2etest.RPCCtx(t), &idnodev1.DeleteDatabaseRequest{Name: "billing", Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateDatabase(e2etest.RPCCtx(t), &idnodev1.CreateDatabaseRequest{Name: "billing"}); err != nil {
		t.Fatal(err)
	}
	if err := generate(billing, "billing"); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("the deleted database's key on the database created again: %v, want UNAUTHENTICATED", err)
	}
	keys, err := admin.ListKeys(e2etest.RPCCtx(t), &idnodev1.ListKeysRequest{})
	if err != nil || len(keys.GetKeys()) != 1 || keys.GetKeys()[0].GetId() != other.GetId() {
		t.Fatalf("ListKeys = %v, %v; want only the default database's key %s", keys, err, other.GetId())
	}
	if err := generate(other, ""); err != nil {
		t.Fatalf("the default database's key after billing's deletion: %v", err)
	}
}
