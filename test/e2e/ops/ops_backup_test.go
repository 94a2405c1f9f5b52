package ops

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/history"
)

// TestBackupRestoreIntoAFreshCluster backs up a running cluster (through a follower, which
// relays to the leader) and restores it into a fresh cluster with other node tags: the new
// cluster's identities and HiLo ranges start above everything the old one handed out, and the
// old tags can never be used again.
func TestBackupRestoreIntoAFreshCluster(t *testing.T) {
	t.Parallel()
	old := e2etest.StartCluster(t)
	rec := history.New()

	// History: identities through every node, a seed, HiLo ranges, server-side IDs.
	var ordersMax int64
	for i, tag := range []string{"A", "B", "C", "A"} {
		_, last := old.MustIdentity(rec, "orders", int64(10*(i+1)), tag)
		ordersMax = max(ordersMax, last)
	}
	// A seed sets a counter to at least its value: asked again through an election, it
	// changes nothing the first attempt did.
	if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.SeedIdentityResponse, error) {
		return old.Ids["B"].SeedIdentity(ctx, &idnodev1.SeedIdentityRequest{Name: "Invoices", Value: 5000})
	}); err != nil {
		t.Fatal(err)
	}
	var cartsMax int64
	for _, via := range []string{"C", "A", "B"} {
		cartsMax = max(cartsMax, old.NextHiLo(rec, "carts", via).GetHigh())
	}
	for _, tag := range e2etest.ClusterTags {
		old.MustServerSide(rec, "users", tag)
	}

	before := old.LeaderStatus()
	follower := old.Others(before.GetLeader())[0]
	file := filepath.Join(t.TempDir(), "old.backup")
	// A read: sent again after a refusal while the nodes elect a leader. An election may move
	// the leadership while it runs, so the node that took it must have led since it began.
	out := e2etest.MustIdctlRetrying(t, nil, "--addr", old.Node(follower).GRPCAddr, "backup", file)
	if led := old.LeadersSince(before.GetTerm()); !led[e2etest.BackupTakenOn(out)] {
		t.Errorf("backup via follower %s: %q, want it taken on a leader of term %d or later, %v", follower, out, before.GetTerm(), led)
	}

	// The new cluster: tags D, E, F (A, B and C have issued server-side IDs that D, E, F's
	// fresh etag counters would repeat under the same tags).
	nodes := e2etest.StartNodes(t, []string{"D", "E", "F"}, nil, nil)
	newAddr := []string{"IDNODE_ADDR=" + e2etest.AddrsOf(nodes...)}
	conn := e2etest.DialOver(t, nodes[1].GRPCAddr, nil)
	ids, admin := idnodev1.NewIdServiceClient(conn), idnodev1.NewClusterServiceClient(conn)
	// It already handed out a few values of its own before the restore.
	if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.GenerateResponse, error) {
		return ids.Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|", Count: 3, RequestId: "before-the-restore"})
	}); err != nil {
		t.Fatal(err)
	}

	// --ahead 0: the backup's values exactly, not a margin from its rates. A restore is safe
	// to run again (it never lowers anything), so each goes through an election as a read
	// does; only a first run's answer says what that restore raised, since a refused run may
	// have raised it already.
	restored := e2etest.MustIdctlThroughElections(t, newAddr, "restore", file, "--json", "--ahead", "0")
	var m map[string]string // protojson writes int64 as strings
	if err := json.Unmarshal([]byte(restored.Stdout), &m); err != nil {
		t.Fatalf("restore --json: %v\n%s", err, restored.Stdout)
	}
	if m["identities"] != "2" || m["hilo_tags"] != "1" || m["tags"] != "3" ||
		!restored.Retried && (m["identities_raised"] != "2" || m["hilo_raised"] != "1" || m["tags_retired"] != "3") {
		t.Errorf("restore answered %v", restored)
	}

	resp, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.GenerateResponse, error) {
		return ids.Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|", RequestId: "after-the-restore"})
	})
	if err != nil {
		t.Fatal(err)
	}
	_, first, perr := history.ParseIdentityID(resp.GetIds()[0], '/')
	if perr != nil || first != ordersMax+1 {
		t.Errorf("first identity after the restore %v (%v), want orders/%d", resp.GetIds(), perr, ordersMax+1)
	}
	inv, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.NextIdentityResponse, error) {
		return ids.NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: "invoices", RequestId: "invoices-after-the-restore"})
	})
	if err != nil || inv.GetFirst() != 5001 {
		t.Errorf("next invoices identity %v, %v; want 5001", inv, err)
	}
	hilo, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.NextHiLoResponse, error) {
		return ids.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "Carts", RequestId: "carts-after-the-restore"})
	})
	// Above the old cluster's HiLo Max, which its nodes' pools took beyond cartsMax.
	if err != nil || hilo.GetLow() <= cartsMax {
		t.Errorf("first HiLo range after the restore %v, %v; want it above %d", hilo, err, cartsMax)
	}
	// An old range's tail cannot be given back into the new cluster.
	stale := &idnodev1.ReturnHiLoRequest{Tag: "carts", End: cartsMax, Last: cartsMax - 10, GrantId: "a-grant-of-the-old-cluster", RequestId: "a-stale-return"}
	if resp, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.ReturnHiLoResponse, error) { return ids.ReturnHiLo(ctx, stale) }); err != nil || resp.GetReturned() {
		t.Fatalf("ReturnHiLo of an old range = %v, %v; want not returned", resp, err)
	}
	hilo2, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.NextHiLoResponse, error) {
		return ids.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "carts", RequestId: "carts-after-a-stale-return"})
	})
	if err != nil || hilo2.GetLow() <= hilo.GetHigh() {
		t.Errorf("range after a stale return %v, %v; want above %d", hilo2, err, hilo.GetHigh())
	}
	for _, tag := range e2etest.ClusterTags {
		_, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.AddNodeResponse, error) {
			return admin.AddNode(ctx, &idnodev1.AddNodeRequest{Tag: tag, RaftAddress: e2etest.FreeAddr(t), GrpcAddress: e2etest.FreeAddr(t), NonVoter: true})
		})
		if status.Code(err) != codes.AlreadyExists {
			t.Errorf("AddNode with the old cluster's tag %s: %v, want ALREADY_EXISTS (retired)", tag, err)
		}
	}

	// A second restore of the same backup changes nothing, and says so, and what it risks.
	if out := e2etest.MustIdctlRetrying(t, newAddr, "restore", file, "--ahead", "0"); !strings.Contains(out, "2 identities (0 raised), 1 HiLo tags (0 raised), 3 node tags (0 newly retired)") ||
		!strings.Contains(out, "no margin for 2 identity counters: identities the backup's cluster issued after the backup was taken may be issued again here") {
		t.Errorf("second restore: %q", out)
	}
	next, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.NextIdentityResponse, error) {
		return ids.NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: "orders", RequestId: "after-a-second-restore"})
	})
	if err != nil || next.GetFirst() != ordersMax+2 {
		t.Errorf("identity after a second restore %v, %v; want %d", next, err, ordersMax+2)
	}

	// With a margin, the counters go that far above the backup's values, and the summary says
	// what was skipped.
	restored = e2etest.MustIdctlThroughElections(t, newAddr, "restore", file, "--ahead", "1000", "--hilo-ahead", "100%")
	if out := restored.Stdout; !restored.Retried && !strings.Contains(out, "2 identities (2 raised), 1 HiLo tags (1 raised)") ||
		!strings.Contains(out, "margin 1000 for 2 identity counters: each set 1000 above the backup's") || !strings.Contains(out, "margin 100% for 1 HiLo maxima") {
		t.Errorf("restore --ahead 1000 --hilo-ahead 100%%: %v", restored)
	}
	next, err = e2etest.Retried(func(ctx context.Context) (*idnodev1.NextIdentityResponse, error) {
		return ids.NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: "orders", RequestId: "after-a-restore-with-a-margin"})
	})
	if err != nil || next.GetFirst() != ordersMax+1001 {
		t.Errorf("identity after a restore with --ahead 1000: %v, %v; want %d", next, err, ordersMax+1001)
	}

	// Without --ahead, the margin comes from the rates the backup recorded, and the summary
	// says what it assumed.
	out = e2etest.MustIdctlRetrying(t, newAddr, "restore", file)
	if !strings.Contains(out, "margin by rates for 2 identity counters: each set") || !strings.Contains(out, "a second in the hour before the backup x age") ||
		!strings.Contains(out, "margin by rates for 1 HiLo maxima") {
		t.Errorf("restore without --ahead: %q", out)
	}
}
