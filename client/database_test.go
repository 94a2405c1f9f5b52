package client

import (
	"context"
	"slices"
	"testing"
)

// WithDatabase: every call names the database in metadata; without it none does.
func TestWithDatabaseNamesTheDatabaseOnEveryCall(t *testing.T) {
	_, nodes, addrs := fakeCluster(t, "A")
	ctx := testCtx(t)
	c := dialTest(t, addrs, WithDatabase("billing"))
	if _, err := c.Generate(ctx, "orders|", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.NextIdentity(ctx, "orders", 1); err != nil {
		t.Fatal(err)
	}
	got := nodes[0].databaseMetadata()
	if len(got) != 2 || !slices.Equal(got[0], []string{"billing"}) || !slices.Equal(got[1], []string{"billing"}) {
		t.Fatalf("idnode-database of the calls: %q, want billing on each", got)
	}
	if _, err := dialTest(t, addrs).Generate(ctx, "orders|", 1); err != nil {
		t.Fatal(err)
	}
	if got := nodes[0].databaseMetadata(); len(got[2]) != 0 {
		t.Fatalf("a call without WithDatabase named %q", got[2])
	}
	for _, name := range []string{"", "bad name", "-x"} {
		if c, err := Dial(context.Background(), []string{"127.0.0.1:1"}, WithDatabase(name)); err == nil {
			_ = c.Close(context.Background())
			t.Errorf("WithDatabase(%q) accepted", name)
		}
	}
}
