package idnodeent_test

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
	pgserver "github.com/idnode/idnode/test/helpers/postgres"
	"github.com/idnode/idnode/test/helpers/readmeexample"
)

// The README's first example runs as written against a node and a private PostgreSQL, and
// prints the keys its comment promises.
func TestReadmeExample(t *testing.T) {
	pg := pgserver.ForTest(t)
	node, _ := e2etest.StartSingle(t)
	out := readmeexample.Run(t, "IDNODE_NODES="+node.GRPCAddr, "DATABASE_URL="+pg.DSN)
	if got := readmeexample.LastLine(out); got != "orders/1-A 1" {
		t.Fatalf("the example printed %q last, want \"orders/1-A 1\"\n%s", got, out)
	}
}
