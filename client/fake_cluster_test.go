package client

import (
	"context"
	"errors"
	"io"
	"slices"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// fakeMembership is the fake cluster's node registry, leader and backup, guarded by
// fakeState.mu.
type fakeMembership struct {
	tags     []string // registered node tags, in the order added
	leader   string
	backup   []byte // what Backup streams
	restored []byte // what the last Restore received
	// ahead is the margin each chunk of the last Restore carried; an older build, one that
	// knows no margins, answers none.
	ahead      []*idnodev1.RestoreMargin
	olderBuild bool
	// noRatesBuild knows margins but not margins by rates: it echoes the margin (by_rates with
	// it, as a field it does not know) and answers no rates.
	noRatesBuild bool
	ended        chan error // each Restore's result, once its handler returns (unless no one reads)
}

// fakeBackupChunk is the size of the fake's Backup chunks, small so that tests see several.
const fakeBackupChunk = 4

// restoredBytes is what the last Restore received.
func (s *fakeState) restoredBytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cluster.restored
}

func (n *fakeNode) AddNode(ctx context.Context, req *idnodev1.AddNodeRequest) (*idnodev1.AddNodeResponse, error) {
	lose, err := n.enter(ctx, "")
	if err != nil {
		return nil, err
	}
	s := n.state
	s.mu.Lock()
	tag := req.GetTag()
	if tag == "" {
		tag = string(rune('D' + len(s.cluster.tags)))
	}
	if slices.Contains(s.cluster.tags, tag) {
		s.mu.Unlock()
		return nil, status.Errorf(codes.AlreadyExists, "fake: node %s exists", tag)
	}
	s.cluster.tags = append(s.cluster.tags, tag)
	s.mu.Unlock()
	if lose {
		return nil, errLost
	}
	return &idnodev1.AddNodeResponse{Node: &idnodev1.NodeStatus{Tag: tag, RaftAddress: req.GetRaftAddress(), GrpcAddress: req.GetGrpcAddress()}}, nil
}

func (n *fakeNode) RemoveNode(ctx context.Context, req *idnodev1.RemoveNodeRequest) (*idnodev1.RemoveNodeResponse, error) {
	lose, err := n.enter(ctx, "")
	if err != nil {
		return nil, err
	}
	s := n.state
	s.mu.Lock()
	i := slices.Index(s.cluster.tags, req.GetTag())
	if i < 0 {
		s.mu.Unlock()
		return nil, status.Errorf(codes.NotFound, "fake: no node has tag %s", req.GetTag())
	}
	s.cluster.tags = slices.Delete(s.cluster.tags, i, i+1)
	s.mu.Unlock()
	if lose {
		return nil, errLost
	}
	return &idnodev1.RemoveNodeResponse{}, nil
}

func (n *fakeNode) TransferLeadership(ctx context.Context, req *idnodev1.TransferLeadershipRequest) (*idnodev1.TransferLeadershipResponse, error) {
	lose, err := n.enter(ctx, "")
	if err != nil {
		return nil, err
	}
	s := n.state
	s.mu.Lock()
	s.cluster.leader = req.GetTag()
	s.mu.Unlock()
	if lose {
		return nil, errLost
	}
	return &idnodev1.TransferLeadershipResponse{Leader: req.GetTag()}, nil
}

// Backup streams the state's backup in small chunks; loseAnswers makes it fail after the
// first chunk.
func (n *fakeNode) Backup(_ *idnodev1.BackupRequest, stream idnodev1.ClusterService_BackupServer) error {
	lose, err := n.enter(stream.Context(), "")
	if err != nil {
		return err
	}
	n.state.mu.Lock()
	data := slices.Clone(n.state.cluster.backup)
	n.state.mu.Unlock()
	for i := 0; i < len(data); i += fakeBackupChunk {
		chunk := &idnodev1.BackupChunk{Data: data[i:min(i+fakeBackupChunk, len(data))]}
		if i == 0 {
			chunk.Leader, chunk.Index = n.tag, 42
		}
		if err := stream.Send(chunk); err != nil {
			return err
		}
		if lose {
			return errLost
		}
	}
	return nil
}

// Restore keeps what it received and answers with its length in Identities.
func (n *fakeNode) Restore(stream idnodev1.ClusterService_RestoreServer) (err error) {
	defer func() {
		select {
		case n.state.cluster.ended <- err:
		default:
		}
	}()
	if _, err := n.enter(stream.Context(), ""); err != nil {
		return err
	}
	var (
		data  []byte
		ahead []*idnodev1.RestoreMargin
	)
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		data = append(data, chunk.GetData()...)
		ahead = append(ahead, chunk.GetAhead())
	}
	n.state.mu.Lock()
	n.state.cluster.restored, n.state.cluster.ahead = data, ahead
	resp := &idnodev1.RestoreResponse{Identities: int64(len(data))}
	if !n.state.cluster.olderBuild && len(ahead) > 0 {
		resp.Ahead = ahead[0]
		if ahead[0].GetByRates() && !n.state.cluster.noRatesBuild {
			resp.Rates = &idnodev1.RatesMargin{Factor: 2}
		}
	}
	n.state.mu.Unlock()
	return stream.SendAndClose(resp)
}

func (n *fakeNode) ClusterVersion(ctx context.Context, _ *idnodev1.ClusterVersionRequest) (*idnodev1.ClusterVersionResponse, error) {
	if _, err := n.enter(ctx, ""); err != nil {
		return nil, err
	}
	return &idnodev1.ClusterVersionResponse{}, nil
}
