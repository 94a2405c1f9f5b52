package ops

// Helpers of the operations tests (ops_*_test.go): the idctl binary, clusters whose nodes get
// flags of their own (metrics ports, TLS certificates), and waiting for a node over TLS.

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// leaderVia polls Status{consistent} through conn until it names a leader.
func leaderVia(t testing.TB, conn *grpc.ClientConn) string {
	t.Helper()
	var leader string
	e2etest.Eventually(t, e2etest.LeaderTimeout, "a leader is named", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		st, err := idnodev1.NewClusterServiceClient(conn).Status(ctx, &idnodev1.StatusRequest{Consistent: true})
		if err != nil {
			return err
		}
		if leader = st.GetLeader(); leader == "" {
			return errors.New("no leader named")
		}
		return nil
	})
	return leader
}
