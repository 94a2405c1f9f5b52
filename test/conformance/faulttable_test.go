package conformance_test

import (
	"context"
	"testing"
	"time"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/test/conformance/conformancetest"
	"github.com/idnode/idnode/test/helpers/faulttable"
)

// faultRow is what an application saw in one situation.
type faultRow struct {
	situation string
	took      time.Duration
	err       error
	note      string // what the outcome was, when it was no error
}

// TestGoClientFaultTable measures what an application using the Go client sees in each
// situation of docs/fault-table.md, one after another on one three-node cluster, and checks
// the page's Go client table against it: the error types, codes and reasons must be the
// committed ones; the times are shown as measured once and never compared.
// IDNODE_WRITE_FAULT_TABLE=1 writes the table instead.
func TestGoClientFaultTable(t *testing.T) {
	env := conformancetest.Env(t)
	cp := startControlProgram(t, env)
	info, err := cp.start([]byte(`{"nodes": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := cp.send(map[string]any{"cmd": "teardown"}); err != nil {
			t.Error(err)
		}
	}()
	var addrs []string
	for _, n := range info.Nodes {
		addrs = append(addrs, n.GRPC)
	}
	c := faulttable.Dial(t, addrs)
	defer c.Close(context.Background())
	faulttable.Check(t, "go-client", "TestGoClientFaultTable", faultTable(measureFaults(t, cp, c)))
}

// measureFaults makes the calls of each situation through c, breaking the cluster on the way:
// the leader killed, then the last follower (no quorum), then every node.
func measureFaults(t *testing.T, cp *controlProgram, c *client.Client) []faultRow {
	fault := func(cmd, node string) {
		t.Helper()
		if _, err := cp.send(map[string]any{"cmd": cmd, "node": node}); err != nil {
			t.Fatal(err)
		}
	}
	measure := func(situation string, deadline time.Duration, call func(context.Context) error) faultRow {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		began := time.Now()
		err := call(ctx)
		return faultRow{situation: situation, took: time.Since(began), err: err}
	}
	identity := func(ctx context.Context) error {
		_, err := c.NextIdentity(ctx, "orders", 1)
		return err
	}
	warm, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := identity(warm); err != nil {
		t.Fatal(err)
	}
	if _, err := c.NextID(warm, "receipts"); err != nil { // a HiLo range for Close to give back
		t.Fatal(err)
	}

	var rows []faultRow
	fault("kill", "leader")
	r := measure("leader killed: an identity right after (10 s deadline)", 10*time.Second, identity)
	r.note = "none: the new leader answers"
	rows = append(rows, r)
	if r.err != nil {
		t.Fatalf("an identity after the leader's kill: %v", r.err)
	}

	fault("kill", "followers")
	rows = append(rows, measure("no quorum: an identity from the leader left alone (4 s deadline)", 4*time.Second, identity))
	rows = append(rows, measure("caller's deadline: a HiLo ID waiting for its first range under no quorum (1 s deadline)",
		time.Second, func(ctx context.Context) error {
			_, err := c.NextID(ctx, "invoices")
			return err
		}))

	fault("kill", "all")
	rows = append(rows, measure("all nodes down: an identity (2 s deadline)", 2*time.Second, identity))
	r = measure("client closed: Close holding a HiLo range, every node down (no deadline)", time.Hour, func(context.Context) error {
		return c.Close(context.Background())
	})
	r.note = "none: nil, the numbers it held logged as a gap"
	if g, err := c.Generator("receipts"); err != nil || g.Stats().Unreturned == 0 {
		t.Errorf("Close with every node down gave back its HiLo range, or did not count it as a gap")
	}
	rows = append(rows, r)
	rows = append(rows, measure("client closed: an identity after Close", time.Second, identity))
	return rows
}

// faultTable is the Go client's table, one row per situation.
func faultTable(rows []faultRow) faulttable.Table {
	table := faulttable.Table{Columns: []string{"error", "gRPC code", "reason"}}
	for _, r := range rows {
		cells := []string{r.note, "—", "—"}
		if r.err != nil {
			code, why := faulttable.CodeAndReason(r.err)
			cells = []string{faulttable.Kind(r.err), code, why}
		}
		table.Rows = append(table.Rows, faulttable.Row{Situation: r.situation, Took: r.took, Cells: cells})
	}
	return table
}
