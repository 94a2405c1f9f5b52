package server

import (
	"context"
	"errors"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/identity"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	relayv1 "github.com/idnode/idnode/proto/idnode/relay/v1"
	"github.com/idnode/idnode/reason"
)

// nextIdentity reserves identity values through this node's batcher: the leader's commits to
// Raft, a follower's relays the whole batch to the leader in one call.
func (s *Server) nextIdentity(ctx context.Context, name string, count int64, requestID string) (identity.Range, error) {
	b := s.relayBatch
	if s.node.IsLeader() || relayed(ctx) {
		b = s.leaderBatch
	}
	rng, err := b.Next(ctx, name, count, requestID)
	if err != nil {
		return identity.Range{}, s.raftError(err)
	}
	return rng, nil
}

// relayCommitter commits a follower's batch by sending it to the leader in one Relay call.
type relayCommitter struct{ s *Server }

func (c relayCommitter) Commit(ctx context.Context, incs []*raftv1.IdentityIncrement) ([]identity.Result, error) {
	s := c.s
	leaderID, cc, err := s.leaderConn(ctx)
	if err != nil {
		return nil, s.noQuorum(err)
	}
	rctx, cancel := s.relayContext(ctx, leaderID)
	defer cancel()
	var trailer metadata.MD
	resp, err := relayv1.NewRelayClient(cc).NextIdentities(rctx, &relayv1.NextIdentitiesRequest{Increments: incs}, grpc.Trailer(&trailer))
	if err != nil {
		return nil, s.relayError(ctx, rctx, trailer, err)
	}
	out := make([]identity.Result, len(resp.GetAnswers()))
	for i, a := range resp.GetAnswers() {
		out[i].Range = identity.Range{First: a.GetFirst(), Last: a.GetLast()}
		if code := codes.Code(a.GetCode()); code != codes.OK {
			out[i].Err = reason.Error(code, a.GetReason(), a.GetMessage())
		}
	}
	return out, nil
}

// relayService is the leader's side of Relay.
type relayService struct {
	relayv1.UnimplementedRelayServer
	s *Server
}

// NextIdentities merges a follower's batch into the leader's own batches. Each increment is
// checked as a client's call would be: the follower did, but the leader does not take its word.
func (r relayService) NextIdentities(ctx context.Context, req *relayv1.NextIdentitiesRequest) (*relayv1.NextIdentitiesResponse, error) {
	s := r.s
	if !s.node.IsLeader() {
		return nil, s.noQuorum(errNoLeader)
	}
	for _, inc := range req.GetIncrements() {
		if err := errors.Join(docid.ValidateName("identity name", inc.GetName()),
			docid.ValidateCount(docid.Identity, inc.GetCount(), s.cfg.MaxCount)); err != nil {
			return nil, toStatus(err)
		}
	}
	results := s.leaderBatch.NextMany(ctx, req.GetIncrements())
	out := &relayv1.NextIdentitiesResponse{Answers: make([]*relayv1.IdentityAnswer, len(results))}
	for i, res := range results {
		a := &relayv1.IdentityAnswer{First: res.First, Last: res.Last}
		if res.Err != nil {
			err := s.raftError(res.Err)
			st := status.Convert(err)
			a.Code, a.Message, a.Reason = int32(st.Code()), st.Message(), reason.Of(err)
		}
		out.Answers[i] = a
	}
	return out, nil
}
