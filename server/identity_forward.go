package server

import (
	"context"
	"errors"
	"slices"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/identity"
	"github.com/idnode/idnode/internal/batch"
	"github.com/idnode/idnode/internal/forward"
	"github.com/idnode/idnode/internal/tracing"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/reason"
)

// nextIdentity reserves identity values through this node's batcher: the leader's commits to
// Raft, a follower's forwards the whole batch to the leader in one call.
func (s *idService) nextIdentity(ctx context.Context, inc *raftv1.IdentityIncrement) (identity.Result, error) {
	b := s.forwardBatch
	if s.fwd.Local(ctx) {
		b = s.leaderBatch
	}
	rng, err := b.Next(ctx, inc)
	if err != nil {
		err = s.raftError(err)
		if b != s.leaderBatch || !s.fwd.HandOff(ctx, err) {
			return identity.Result{}, err
		}
		// This node handed leadership over before proposing the increment: the new leader
		// serves it.
		if rng, err = s.forwardBatch.Next(ctx, inc); err != nil {
			return identity.Result{}, s.raftError(err)
		}
	}
	return rng, nil
}

// forwardCommitter commits a follower's batch by forwarding it to the leader, in as few calls
// as the leader's message limit allows.
type forwardCommitter struct{ s *idService }

// maxRelayBytes bounds one relayed request under the 4 MiB a node accepts in one message
// (gRPC's default, kept on the internal port): a full batch of 4,096 names of 2 KB is twice
// that, and a batch the leader cannot read refuses every caller in it.
const maxRelayBytes = 3 << 20

func (c forwardCommitter) Commit(ctx context.Context, incs []*raftv1.IdentityIncrement) ([]identity.Result, error) {
	out := make([]identity.Result, 0, len(incs))
	for start := 0; start < len(incs); {
		end := start + relayable(incs[start:])
		res, err := c.relay(ctx, incs[start:end])
		if err != nil && start == 0 {
			return nil, err
		}
		if err != nil {
			// The earlier parts are committed: their callers get their values, the rest the error.
			for range incs[start:] {
				out = append(out, identity.Result{Err: err})
			}
			return out, nil
		}
		out = append(out, res...)
		start = end
	}
	return out, nil
}

// relayable is how many of incs, from the first, fit in one relayed request (at least one: a
// single increment is bounded by the longest name, far below the limit).
func relayable(incs []*raftv1.IdentityIncrement) int {
	size := 0
	for i, inc := range incs {
		// Each repeated element costs its length prefix (at most 3 bytes here) and a tag byte.
		size += proto.Size(inc) + 4
		if size > maxRelayBytes && i > 0 {
			return i
		}
	}
	return len(incs)
}

// relay forwards one part of a batch to the leader in one call.
func (c forwardCommitter) relay(ctx context.Context, incs []*raftv1.IdentityIncrement) ([]identity.Result, error) {
	s := c.s
	// The answers are bounded (identity.AnswerBytes each), their sum only by the batch size.
	resp, self, err := relay(ctx, s.core, forwardv1.ForwardClient.NextIdentities, &forwardv1.NextIdentitiesRequest{Increments: incs},
		grpc.MaxCallRecvMsgSize(max(len(incs)*identity.AnswerBytes, 4<<20)))
	if self {
		return s.leaderBatch.NextMany(ctx, incs), nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]identity.Result, len(resp.GetAnswers()))
	for i, a := range resp.GetAnswers() {
		out[i].IdentityBlock = docid.IdentityBlock{First: a.GetFirst(), Last: a.GetLast(), Skipped: a.GetSkipped()}
		out[i].Err = relayedRefusal(a.GetCode(), a.GetReason(), a.GetMessage())
	}
	s.forms().relayedForms(ctx, incs, resp.GetAnswers(), out)
	return out, nil
}

// relay sends a follower's batch to the leader in one Forward call. self means this node is
// the leader now (forward.ErrSelf): it commits the batch itself.
func relay[Req, Resp any](ctx context.Context, s *core, m func(forwardv1.ForwardClient, context.Context, Req, ...grpc.CallOption) (Resp, error), req Req,
	opts ...grpc.CallOption) (resp Resp, self bool, err error) {
	err = s.fwd.Do(ctx, forward.Unary, func(h *forward.Hop) error {
		var err error
		resp, err = m(forwardv1.NewForwardClient(h.Conn), h.Context(), req, append(h.CallOptions(), opts...)...)
		return err
	})
	if errors.Is(err, forward.ErrSelf) {
		return resp, true, nil
	}
	return resp, false, err
}

// relayedRefusal is the error of one relayed item as the leader answered it (nil: none).
func relayedRefusal(code int32, why, message string) error {
	if codes.Code(code) == codes.OK {
		return nil
	}
	return reason.Error(codes.Code(code), why, message)
}

// relayRefusal is what the leader answers a relayed item that it refused: its code, reason
// and message, as the item's own call would have answered.
func (s *core) relayRefusal(err error) (code int32, why, message string) {
	err = s.raftError(err)
	st := status.Convert(err)
	return int32(st.Code()), reason.Of(err), st.Message()
}

// forwardService is the leader's side of the Forward service: the batches a follower relays
// (identities to ids' batcher, series issues to series'), its pool reservations and its
// records in the cluster.
type forwardService struct {
	forwardv1.UnimplementedForwardServer
	*core
	ids    *idService
	series *seriesService
}

// NextIdentities merges a follower's batch into the leader's own batches. Each increment is
// checked as a client's call would be: the follower did, but the leader does not take its word.
func (f forwardService) NextIdentities(ctx context.Context, req *forwardv1.NextIdentitiesRequest) (*forwardv1.NextIdentitiesResponse, error) {
	if !f.node.IsLeader() {
		return nil, f.noQuorum(forward.ErrNoLeader)
	}
	for _, inc := range req.GetIncrements() {
		if err := errors.Join(docid.ValidateName("identity name", inc.GetName()),
			docid.ValidateCount(docid.Identity, inc.GetCount(), f.cfg.MaxCount), docid.ValidateDatabaseRef(inc.GetDatabase())); err != nil {
			return nil, toStatus(err)
		}
	}
	results := f.ids.leaderBatch.NextMany(ctx, req.GetIncrements())
	if len(results) > 0 && !slices.ContainsFunc(results, proposed) {
		// This node handed leadership over (or is handing it over) and proposed none of them:
		// one refusal of the whole call, which the follower takes to the new leader
		// (forward.Forwarder.Do).
		return nil, f.raftError(results[0].Err)
	}
	out := &forwardv1.NextIdentitiesResponse{Answers: make([]*forwardv1.IdentityAnswer, len(results))}
	for i, res := range results {
		a := &forwardv1.IdentityAnswer{First: res.First, Last: res.Last, Skipped: res.Skipped}
		if res.Forms != nil {
			a.Opaque, a.OpaqueKey, a.OpaqueTweak = true, res.Forms.Key, res.Forms.Tweak
		}
		if res.Err != nil {
			a.Code, a.Reason, a.Message = f.relayRefusal(res.Err)
		}
		out.Answers[i] = a
	}
	return out, nil
}

// proposed reports whether an increment's result came from the log, rather than a refusal
// made before it was proposed because this node no longer led or was handing leadership over.
func proposed(r identity.Result) bool {
	return !errors.Is(r.Err, cluster.ErrHandingOver) && !errors.Is(r.Err, cluster.ErrNotLeader)
}

// identityRounds is cfg.Identity for the leader's batcher (leader) or the follower's, telling
// cfg.OnIdentityRound which one answered a batch, and naming its batches' commit spans: a
// Raft apply on the leader, a relay to it on a follower.
func identityRounds(cfg Config, leader bool) identity.Options {
	opts := cfg.Identity
	opts.OnRound = nil
	if f := cfg.OnIdentityRound; f != nil {
		opts.OnRound = func(r batch.Round) { f(leader, r) }
	}
	opts.Tracing, opts.SpanName = cfg.Tracing, tracing.SpanRelay
	if leader {
		opts.SpanName = tracing.SpanRaftApply
	}
	return opts
}
