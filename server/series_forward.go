package server

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/internal/forward"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/series"
)

// issueRelay commits a follower's batch of issues by sending it to the leader in one call:
// per caller, a relayed gRPC call cost the follower and the leader more than the issue.
type issueRelay struct{ s *seriesService }

func (c issueRelay) Commit(ctx context.Context, issues []*raftv1.SeriesIssue) ([]series.IssueResult, error) {
	s := c.s
	resp, self, err := relay(ctx, s.core, forwardv1.ForwardClient.IssueSeries, &forwardv1.IssueSeriesRequest{Issues: issues})
	if self {
		return s.issues.DoMany(ctx, issues), nil
	}
	if err != nil {
		return nil, err
	}
	if len(resp.GetAnswers()) != len(issues) {
		return nil, status.Errorf(codes.Internal, "the leader answered %d of %d relayed issues", len(resp.GetAnswers()), len(issues))
	}
	out := make([]series.IssueResult, len(issues))
	for i, a := range resp.GetAnswers() {
		out[i].Entry, out[i].Err = a.GetEntry(), relayedRefusal(a.GetCode(), a.GetReason(), a.GetMessage())
	}
	return out, nil
}

// IssueSeries merges a follower's issues into the leader's own batches. Each is checked as a
// client's call would be: the follower did, but the leader does not take its word. A call
// that did not come from a node of this cluster (one before the cluster has its secret)
// names its own caller as the issuer of every issue, so nobody names someone else.
func (f forwardService) IssueSeries(ctx context.Context, req *forwardv1.IssueSeriesRequest) (*forwardv1.IssueSeriesResponse, error) {
	if !f.node.IsLeader() {
		return nil, f.noQuorum(forward.ErrNoLeader)
	}
	fromNode := forward.FromNode(ctx)
	for _, is := range req.GetIssues() {
		if err := errors.Join(docid.ValidateDatabaseRef(is.GetDatabase()), series.CheckIssue(is)); err != nil {
			return nil, toStatus(err)
		}
		if !fromNode {
			is.IssuedBy = f.actorOf(ctx)
		}
	}
	results := f.series.issues.DoMany(ctx, req.GetIssues())
	out := &forwardv1.IssueSeriesResponse{Answers: make([]*forwardv1.IssueAnswer, len(results))}
	for i, res := range results {
		a := &forwardv1.IssueAnswer{Entry: res.Entry}
		if res.Err != nil {
			a = &forwardv1.IssueAnswer{}
			a.Code, a.Reason, a.Message = f.relayRefusal(res.Err)
		}
		out.Answers[i] = a
	}
	return out, nil
}
