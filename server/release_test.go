package server_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/idnode/idnode/fsm"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// A Release sent again with its request_id, as a client does when the first attempt's answer
// was lost, answers the count the first attempt released rather than 0; a cluster finalised
// below fsm.ReleaseRequestVersion leaves the request_id out of the log, and the retry counts
// anew.
func TestARetriedReleaseAnswersAsItsFirstAttempt(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestCluster(t, 1)
		c.waitServing(startupTimeout, "A")
		ctx, cancel := context.WithTimeout(context.Background(), startupTimeout)
		defer cancel()
		conn := c.Dial(t, "A")
		ids, admin := idnodev1.NewIdServiceClient(conn), idnodev1.NewClusterServiceClient(conn)

		releaseTwice := func(rid string, id string) (first, again int64) {
			t.Helper()
			if _, err := ids.Claim(ctx, &idnodev1.ClaimRequest{Ids: []string{id}, Owner: "alice"}); err != nil {
				t.Fatal(err)
			}
			req := &idnodev1.ReleaseRequest{Ids: []string{id}, Owner: "alice", RequestId: rid}
			for _, n := range []*int64{&first, &again} {
				resp, err := ids.Release(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				*n = resp.GetReleased()
			}
			return first, again
		}
		if first, again := releaseTwice("r1", "users/1"); first != 1 || again != 1 {
			t.Fatalf("at version %d: released %d, then %d for the retry; want 1 both times", fsm.CurrentVersion, first, again)
		}
		if _, err := admin.SetClusterVersion(ctx, &idnodev1.SetClusterVersionRequest{Version: fsm.ReleaseRequestVersion - 1}); err == nil {
			t.Fatal("a downgrade below the version of a Release the log remembered was allowed")
		}

		d := newVirtualTestCluster(t, 1)
		d.waitServing(startupTimeout, "A")
		conn = d.Dial(t, "A")
		ids, admin = idnodev1.NewIdServiceClient(conn), idnodev1.NewClusterServiceClient(conn)
		if _, err := admin.SetClusterVersion(ctx, &idnodev1.SetClusterVersionRequest{Version: fsm.ReleaseRequestVersion - 1}); err != nil {
			t.Fatal(err)
		}
		if first, again := releaseTwice("r1", "users/1"); first != 1 || again != 0 {
			t.Fatalf("at version %d: released %d, then %d for the retry; want 1, then 0", fsm.ReleaseRequestVersion-1, first, again)
		}
	})
}
