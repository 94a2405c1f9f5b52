package fsm

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/series"
)

// Applier proposes a framed command through Raft and returns the FSM's answer. When the FSM
// answers with an error, Apply returns that error as its own, as cluster.Node.Apply does.
type Applier interface {
	Apply(ctx context.Context, cmd []byte) (any, error)
}

// Op is a command a node proposes, typed: the message it carries (Req) and what the FSM
// answers (Resp). Propose is the one way to propose, so an answer of the wrong type is an
// error a caller sees, never a panic in a handler.
type Op[Req proto.Message, Resp any] struct{ Type CommandType }

// Done is the answer of a command that answers nothing but success.
type Done struct{}

// The commands a node proposes. HiLoReserveCommand and HiLoReturnCommand are only replayed
// from older logs.
var (
	ProposeIdentityBatch     = Op[*raftv1.IdentityBatch, IdentityBatchResult]{IdentityBatchCommand}
	ProposeSeedIdentity      = Op[*raftv1.SeedIdentity, int64]{SeedIdentityCommand}
	ProposeRegisterNode      = Op[*raftv1.RegisterNode, Node]{RegisterNodeCommand}
	ProposeRemoveNode        = Op[*raftv1.RemoveNode, Node]{RemoveNodeCommand}
	ProposeRaiseFloor        = Op[*raftv1.RaiseFloor, RaiseFloorResult]{RaiseFloorCommand}
	ProposeSetClusterSecret  = Op[*raftv1.SetClusterSecret, Done]{SetClusterSecretCommand}
	ProposeCreateDatabase    = Op[*raftv1.CreateDatabase, Done]{CreateDatabaseCommand}
	ProposeDeleteDatabase    = Op[*raftv1.DeleteDatabase, Done]{DeleteDatabaseCommand}
	ProposeCreateKey         = Op[*raftv1.CreateKey, Done]{CreateKeyCommand}
	ProposeDeleteKey         = Op[*raftv1.DeleteKey, Done]{DeleteKeyCommand}
	ProposeSeedHiLo          = Op[*raftv1.SeedHiLo, int64]{SeedHiLoCommand}
	ProposeClaim             = Op[*raftv1.Claim, Done]{ClaimCommand}
	ProposeRelease           = Op[*raftv1.Release, ReleaseResult]{ReleaseCommand}
	ProposeHiLoPoolReserve   = Op[*raftv1.HiLoPoolReserve, HiLoRange]{HiLoPoolReserveCommand}
	ProposeHiLoGrant         = Op[*raftv1.HiLoReserve, HiLoRange]{HiLoGrantCommand}
	ProposeHiLoReturnGrant   = Op[*raftv1.HiLoReturn, HiLoReturned]{HiLoReturnGrantCommand}
	ProposeSetFold           = Op[*raftv1.Fold, Done]{SetFoldCommand}
	ProposeLocalReservations = Op[*raftv1.LocalReservations, Reservations]{LocalReservationsCommand}
	ProposeCreateSeries      = Op[*raftv1.CreateSeries, *raftv1.SeriesDefinition]{CreateSeriesCommand}
	ProposeSeriesIssueBatch  = Op[*raftv1.SeriesIssueBatch, SeriesIssued]{SeriesIssueBatchCommand}
	ProposeSeriesVoid        = Op[*raftv1.SeriesVoid, *raftv1.SeriesEntry]{SeriesVoidCommand}
	ProposeRestoreSeries     = Op[*raftv1.RestoreSeries, series.RestoreResult]{RestoreSeriesCommand}
	ProposeAcquireWorker     = Op[*raftv1.AcquireWorker, WorkerLease]{AcquireWorkerCommand}
	ProposeRenewWorker       = Op[*raftv1.RenewWorker, WorkerLease]{RenewWorkerCommand}
	ProposeReleaseWorker     = Op[*raftv1.ReleaseWorker, Done]{ReleaseWorkerCommand}
	ProposeReleaseOwner      = Op[*raftv1.ReleaseOwner, ReleaseResult]{ReleaseOwnerCommand}
	ProposeNodeVersion       = Op[*raftv1.NodeVersion, Done]{NodeVersionCommand}
	ProposeSetClusterVersion = Op[*raftv1.SetClusterVersion, Done]{SetClusterVersionCommand}
	ProposeMakeOpaque        = Op[*raftv1.MakeOpaque, OpaqueSetting]{MakeOpaqueCommand}
	ProposeDigestMark        = Op[*raftv1.DigestMark, uint64]{DigestMarkCommand}
	ProposeFenceReplica      = Op[*raftv1.ReplicaFence, Done]{FenceReplicaCommand}
)

// Propose encodes req as the command op names, proposes it through a, and returns the FSM's
// answer as op's answer type. An error comes from a (one of package cluster's sentinel errors,
// or the FSM's own answer), from the encoding, or from an answer of another type than op's.
func Propose[Req proto.Message, Resp any](ctx context.Context, a Applier, op Op[Req, Resp], req Req) (Resp, error) {
	var answer Resp
	cmd, err := Encode(op.Type, req)
	if err != nil {
		return answer, err
	}
	out, err := a.Apply(ctx, cmd)
	if err != nil {
		return answer, err
	}
	if _, done := any(answer).(Done); done && out == nil {
		return answer, nil
	}
	answer, ok := out.(Resp)
	if !ok {
		return answer, fmt.Errorf("raft command %d answered %T, not %T: the FSM and its proposer disagree", op.Type, out, answer)
	}
	return answer, nil
}
