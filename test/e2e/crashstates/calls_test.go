package crashstates

import (
	"context"
	"fmt"
	"time"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/helpers/ledger"
)

// The workload's names: one identity counter, server-side IDs of one collection, one HiLo tag.
const (
	identityName = "orders"
	serverSide   = "users/"
	hiloTag      = "pool"
)

// callTimeout bounds one call of the workload, all its attempts on the nodes included.
const callTimeout = 3 * time.Second

// afterRestart stamps the answers given after a restart: they come after every operation
// of the recording.
const afterRestart = -1

// newLedger records answers stamped with the recording's Seq when the client had the
// answer: the answer rests on no operation after it.
func newLedger() *ledger.Ledger {
	return ledger.New(func(seq int64) string {
		if seq == afterRestart {
			return "after the restart"
		}
		return fmt.Sprintf("at operation %d", seq)
	})
}

// call makes the i-th call of the workload (identities twice as often as the others) and
// records its answer in l, stamped with stamp().
func call(l *ledger.Ledger, cl *client.Client, i int, stamp func() int64) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var err error
	switch i % 4 {
	case 0, 1:
		b, e := cl.NextIdentity(ctx, identityName, int64(1+i%2))
		if err = e; err == nil {
			l.Identity(b.First, b.Last, stamp())
		}
	case 2:
		ids, e := cl.Generate(ctx, serverSide, 1)
		if err = e; err == nil {
			s := stamp()
			for _, id := range ids {
				l.ID("server-side ID", id, s)
			}
		}
	case 3:
		r, e := cl.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: hiloTag})
		if err = e; err == nil {
			l.HiLo(r.GetLow(), r.GetHigh(), stamp())
		}
	}
	if err != nil {
		l.Failed()
	}
}
