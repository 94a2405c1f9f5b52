package faulttable

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/idnode/idnode/client/rowkeys"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// SaveColumns are the columns of an ORM adapter's table after the situation and the time.
var SaveColumns = []string{"error", "errors.As `*rowkeys.Error`", "gRPC code", "reason", "rows written"}

// Save is one way an application saves rows through an adapter, e.g. GORM's db.Create.
type Save struct {
	// Name says what is saved, for the situations: "`db.Create` of 3 rows".
	Name string
	// Identities saves rows whose keys are identities (one Raft round per save), and HiLo rows
	// of a collection no save took a range of before. Each returns what the application meets.
	Identities, HiLo func(ctx context.Context) error
}

// Adapter is the application under test: its saves, how many rows its tables hold, and how it
// closes its idnode client and what takes keys through it (KeysName: "the plugin") when the
// program ends.
type Adapter struct {
	Saves       []Save
	Rows        func(ctx context.Context) (int64, error)
	CloseClient func(ctx context.Context) error
	KeysName    string
	CloseKeys   func(ctx context.Context) error
}

// MeasureSaves makes each of a's saves in the situations of docs/fault-table.md, one after
// another on cl, killing its nodes on the way: the leader, then the last follower (no quorum),
// then every node; then a's client is closed, and then what takes keys through it. It fails t
// when a save that failed wrote rows, when one that succeeded wrote none, and when the save
// right after the leader's death fails.
func MeasureSaves(t *testing.T, cl *e2etest.Cluster, a Adapter) Table {
	t.Helper()
	rows := func() int64 {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		n, err := a.Rows(ctx)
		if err != nil {
			t.Fatalf("counting the rows: %v", err)
		}
		return n
	}
	var table Table
	table.Columns = SaveColumns
	measure := func(situation string, deadline time.Duration, save func(context.Context) error) error {
		t.Helper()
		before := rows()
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		began := time.Now()
		err := save(ctx)
		took := time.Since(began)
		written := rows() - before
		if err != nil && written != 0 {
			t.Errorf("%s: the save failed (%v) and wrote %d rows; want none", situation, err, written)
		}
		if err == nil && written == 0 {
			t.Errorf("%s: the save succeeded and wrote no row", situation)
		}
		table.Rows = append(table.Rows, Row{Situation: situation, Took: took, Cells: saveCells(err, written)})
		return err
	}
	for _, s := range a.Saves {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := s.Identities(ctx) // the cluster serves: the client finds its leader
		cancel()
		if err != nil {
			t.Fatalf("%s with every node up: %v", s.Name, err)
		}
	}

	leader := cl.Leader()
	cl.Node(leader).Kill9()
	for _, s := range a.Saves {
		if err := measure(fmt.Sprintf("leader killed: %s right after (10 s deadline)", s.Name), 10*time.Second, s.Identities); err != nil {
			t.Fatalf("%s after the leader's kill: %v", s.Name, err)
		}
	}
	alone := cl.Leader(cl.Others(leader)...)
	for _, tag := range cl.Others(leader, alone) {
		cl.Node(tag).Kill9()
	}
	for _, s := range a.Saves {
		_ = measure(fmt.Sprintf("no quorum: %s, identities, from the leader left alone (4 s deadline)", s.Name), 4*time.Second, s.Identities)
	}
	for _, s := range a.Saves {
		_ = measure(fmt.Sprintf("caller's deadline: %s waiting for its first HiLo range under no quorum (1 s deadline)", s.Name), time.Second, s.HiLo)
	}
	cl.Node(alone).Kill9()
	for _, s := range a.Saves {
		_ = measure(fmt.Sprintf("all nodes down: %s, identities (2 s deadline)", s.Name), 2*time.Second, s.Identities)
	}
	if err := a.CloseClient(context.Background()); err != nil {
		t.Errorf("closing the client with every node down: %v", err)
	}
	for _, s := range a.Saves {
		_ = measure(fmt.Sprintf("client closed: %s after the client's Close", s.Name), time.Second, s.Identities)
	}
	if err := a.CloseKeys(context.Background()); err != nil {
		t.Errorf("closing %s with every node down: %v", a.KeysName, err)
	}
	for _, s := range a.Saves {
		_ = measure(fmt.Sprintf("client closed: %s after %s's Close too", s.Name, a.KeysName), time.Second, s.Identities)
	}
	return table
}

// saveCells are the cells of a save's row after its time: what failed it, and how many rows it
// wrote.
func saveCells(err error, written int64) []string {
	if err == nil {
		return []string{"none", "—", "—", "—", strconv.FormatInt(written, 10)}
	}
	kind, reaches := Kind(err), "no"
	if outer := fmt.Sprintf("`%T`", err); errors.Unwrap(err) != nil && outer != kind {
		kind = outer + " wrapping " + kind
	}
	var kerr *rowkeys.Error
	if errors.As(err, &kerr) {
		reaches = "yes"
	}
	code, why := CodeAndReason(err)
	return []string{kind, reaches, code, why, strconv.FormatInt(written, 10)}
}
