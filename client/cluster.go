package client

import (
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/grpc/peer"
	"google.golang.org/protobuf/proto"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
)

// Admin makes the calls that run the cluster rather than use it: its status and members, the
// hand-over of leadership, backups and restores, the cluster version, and the release of a
// dead owner's claims. Most are admin calls (WithAdminToken); Status, WhoAmI and
// ClusterVersion are not, but an operator asks them, not an application's data path. Get one
// from Client.Admin; it shares the Client's connections.
type Admin struct{ fo *failover }

// Admin is the calls that run the cluster.
func (c *Client) Admin() Admin { return Admin{&c.failover} }

// The ClusterService calls. Status and Backup only read, and Restore only raises counters, so
// they fail over like the IdService calls (the streams with the limits their doc comments
// give). AddNode, RemoveNode and TransferLeadership change the cluster and are not simply
// idempotent: an AddNode without a tag that is repeated after its answer was lost finds its
// addresses taken by the node the first attempt added (ALREADY_EXISTS), a repeated RemoveNode
// finds no such node (NOT_FOUND), a repeated TransferLeadership without a tag moves the
// leadership again. So they are tried on another node only when the first one certainly did
// nothing: the request never reached it (node down, connection refused), or it refused with
// NO_QUORUM, which idnode sends only for a call it did not carry out. Any other UNAVAILABLE or
// a DEADLINE_EXCEEDED (the answer was lost, OUTCOME_UNKNOWN, the attempt's timeout passed)
// ends the call: see Status for what happened before trying again.

// Status reports the cluster as the answering node sees it; consistent confirms leadership
// with a quorum first, so the answer is not stale.
func (a Admin) Status(ctx context.Context, consistent bool) (*idnodev1.StatusResponse, error) {
	return unaryCall(ctx, a.fo.callRepeatable, clusterOf, idnodev1.ClusterServiceClient.Status, &idnodev1.StatusRequest{Consistent: consistent})
}

// WhoAmI is what the node makes of this client's credentials: whether it may make admin
// calls and by what right, and the API key it sent.
func (a Admin) WhoAmI(ctx context.Context) (*idnodev1.WhoAmIResponse, error) {
	return unaryCall(ctx, a.fo.callRepeatable, clusterOf, idnodev1.ClusterServiceClient.WhoAmI, &idnodev1.WhoAmIRequest{})
}

// AddNode registers a node and makes it a Raft member (an admin call: see WithAdminToken). An
// empty req.Tag lets the cluster assign the next free tag; the answer names it. Adding a tag
// again with the same addresses changes nothing. Tried on another node only when the first
// did nothing (see above).
func (a Admin) AddNode(ctx context.Context, req *idnodev1.AddNodeRequest) (*idnodev1.AddNodeResponse, error) {
	var resp *idnodev1.AddNodeResponse
	err := a.fo.call(ctx, func(ctx context.Context, n *node) error {
		var p peer.Peer
		var err error
		resp, err = n.cluster.AddNode(ctx, req, grpc.Peer(&p))
		return atMostOnce(err, &p)
	})
	return resp, err
}

// RemoveNode takes the node with tag out of the cluster and retires the tag for ever (an admin
// call). Tried on another node only when the first did nothing (see above).
func (a Admin) RemoveNode(ctx context.Context, tag string) error {
	return a.fo.call(ctx, func(ctx context.Context, n *node) error {
		var p peer.Peer
		_, err := n.cluster.RemoveNode(ctx, &idnodev1.RemoveNodeRequest{Tag: tag}, grpc.Peer(&p))
		return atMostOnce(err, &p)
	})
}

// TransferLeadership hands leadership to the node with tag, or to any up-to-date voter when
// tag is empty, and returns the new leader's tag (an admin call). Tried on another node only
// when the first did nothing (see above).
func (a Admin) TransferLeadership(ctx context.Context, tag string) (leader string, err error) {
	var resp *idnodev1.TransferLeadershipResponse
	err = a.fo.call(ctx, func(ctx context.Context, n *node) error {
		var p peer.Peer
		var err error
		resp, err = n.cluster.TransferLeadership(ctx, &idnodev1.TransferLeadershipRequest{Tag: tag}, grpc.Peer(&p))
		return atMostOnce(err, &p)
	})
	return resp.GetLeader(), err
}

// atMostOnce lets call retry a failed cluster change only when it certainly was not carried
// out: gRPC fills in the peer only once the request was given to a connection, and NO_QUORUM
// is idnode's word that nothing was done.
func atMostOnce(err error, p *peer.Peer) error {
	if err == nil || p.Addr == nil || reason.Of(err) == reason.NoQuorum {
		return err
	}
	return final(err)
}

// BackupInfo describes a backup written by Backup.
type BackupInfo struct {
	Leader string // tag of the leader that took it
	Index  uint64 // the Raft index it covers
	Bytes  int64  // bytes written
}

// Backup writes a consistent backup of the cluster's replicated state to w (an admin call);
// the bytes are what Restore reads. The attempt's timeout (WithCallTimeout) bounds the whole
// transfer from one node. It is tried on another node only until the first bytes arrive: after
// that, w holds part of a backup, and an error ends the call. An error from w is returned as
// it is.
func (a Admin) Backup(ctx context.Context, w io.Writer) (BackupInfo, error) {
	var info BackupInfo
	err := a.fo.callRepeatable(ctx, func(ctx context.Context, n *node) error {
		stream, err := n.cluster.Backup(ctx, &idnodev1.BackupRequest{})
		if err != nil {
			return err
		}
		for received := false; ; received = true {
			chunk, err := stream.Recv()
			switch {
			case errors.Is(err, io.EOF):
				return nil
			case err != nil && !received:
				return err // nothing arrived yet: another node may answer
			case err != nil:
				return final(err)
			}
			if !received {
				info.Leader, info.Index = chunk.GetLeader(), chunk.GetIndex()
			}
			if _, err := w.Write(chunk.GetData()); err != nil {
				return final(err)
			}
			info.Bytes += int64(len(chunk.GetData()))
		}
	})
	return info, err
}

// restoreChunk is the size of the chunks Restore sends.
const restoreChunk = 256 << 10

// RestoreOption changes what Restore does.
type RestoreOption func(*idnodev1.RestoreMargin)

// RestoreAhead makes Restore set the counters that far above the backup's values, to skip
// what the backup's cluster issued after the backup was taken (docs/backups.md). Without it a
// restore sets the backup's values, and the cluster may issue those IDs again. A margin with
// ByRates raises each kind it leaves unset by the backup's peak issue rate × its age × 2 (a
// HiLo tag at least its last range); the answer's Rates say what that assumed.
func RestoreAhead(margin *idnodev1.RestoreMargin) RestoreOption {
	return func(m *idnodev1.RestoreMargin) { proto.Merge(m, margin) }
}

// Restore raises the cluster's identity counters and HiLo maxima to at least those of the
// backup read from r (plus the RestoreAhead margin) and retires the backup's node tags (an
// admin call). The attempt's timeout bounds the whole transfer to one node. It is tried on
// another node only when the stream could not be opened: once data went out, r cannot be read
// again, and an error ends the call. Running a restore again is safe (it never lowers
// anything). An error from r is returned as it is, and the cluster gets nothing of that
// restore. A margin the answer does not echo is ErrMarginNotApplied, with the answer.
func (a Admin) Restore(ctx context.Context, r io.Reader, opts ...RestoreOption) (*idnodev1.RestoreResponse, error) {
	ahead := &idnodev1.RestoreMargin{}
	for _, o := range opts {
		o(ahead)
	}
	asked := ahead
	if marginOf(ahead) == ([4]int64{}) && !ahead.GetByRates() {
		asked = nil // no margin: the request a build without margins would send
	}
	buf := make([]byte, restoreChunk)
	first, readErr := io.ReadFull(r, buf)
	if readErr != nil && !errors.Is(readErr, io.EOF) && !errors.Is(readErr, io.ErrUnexpectedEOF) {
		return nil, readErr
	}
	var resp *idnodev1.RestoreResponse
	err := a.fo.call(ctx, func(ctx context.Context, n *node) error {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel() // a read error leaves the stream unclosed: cancelling it tells the node to drop it
		stream, err := n.cluster.Restore(ctx)
		if err != nil {
			return err
		}
		send, margin := buf[:first], asked
		for len(send) > 0 {
			if err := stream.Send(&idnodev1.RestoreChunk{Data: send, Ahead: margin}); err != nil {
				break // the node ended the stream; CloseAndRecv has its reason
			}
			margin = nil // the first chunk carries it
			if readErr != nil {
				break // r was read to the end
			}
			var k int
			k, readErr = io.ReadFull(r, buf)
			if readErr != nil && !errors.Is(readErr, io.EOF) && !errors.Is(readErr, io.ErrUnexpectedEOF) {
				return final(readErr)
			}
			send = buf[:k]
		}
		resp, err = stream.CloseAndRecv()
		return final(err)
	})
	// A node of an older build echoes by_rates among the fields it does not know: only the
	// answer's rates say that the margin by rates was taken.
	if err == nil && (marginOf(resp.GetAhead()) != marginOf(ahead) || ahead.GetByRates() && resp.GetRates() == nil) {
		err = fmt.Errorf("%w: asked %v (by rates %t), applied %v (rates %v)", ErrMarginNotApplied,
			marginOf(ahead), ahead.GetByRates(), marginOf(resp.GetAhead()), resp.GetRates())
	}
	return resp, err
}

// marginOf is m's numbers, so that an unset margin and a zero one compare equal.
func marginOf(m *idnodev1.RestoreMargin) [4]int64 {
	return [4]int64{m.GetIdentities().GetAdd(), m.GetIdentities().GetPercent(), m.GetHilo().GetAdd(), m.GetHilo().GetPercent()}
}
