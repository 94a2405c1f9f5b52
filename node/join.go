package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/datadir"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// joinTimeout bounds how long a new node keeps asking the cluster to let it in.
const joinTimeout = 60 * time.Second

// loadIdentity reads who this node is from its data dir (found is false for a new data dir)
// and settles its Raft addresses.
func loadIdentity(cfg *Config) (st datadir.NodeState, found bool, err error) {
	st, found, err = datadir.LoadNodeState(cfg.DataDir)
	if err != nil {
		return st, false, err
	}
	if found {
		if cfg.TagSet && cfg.Tag != st.Tag {
			return st, true, fmt.Errorf("data dir %s belongs to node %s, not --tag %s: a node keeps its tag for life; use another data dir for a new node", cfg.DataDir, st.Tag, cfg.Tag)
		}
		cfg.Tag = st.Tag
		if st.Separator != "" && st.Separator != string(cfg.Separator) {
			return st, true, fmt.Errorf("%w: --separator %q, but this node's cluster uses %q (set when it was created): start this node with --separator %q",
				fsm.ErrSeparatorDiffers, string(cfg.Separator), st.Separator, st.Separator)
		}
	} else if err := datadir.CheckOrphans(cfg.DataDir); err != nil {
		return st, false, err
	}
	return st, found, cfg.place()
}

// newIdentity gives a new data dir its identity: the --tag given, or with --join the tag the
// cluster assigns. It persists the answer before Raft starts, so a crash cannot leave the node
// unsure of its own tag.
func newIdentity(ctx context.Context, cfg *Config, log *slog.Logger) (datadir.NodeState, error) {
	if cfg.Join == "" {
		st := datadir.NewNodeState(cfg.Tag)
		return st, datadir.SaveNodeState(cfg.DataDir, st)
	}
	st := datadir.NewNodeState("")
	if cfg.TagSet {
		st.Tag = cfg.Tag
	}
	member, err := join(ctx, cfg, st, nonVoter, log)
	if err != nil {
		return st, err
	}
	st.Tag, st.RaftID, st.Registered, cfg.Tag = member.GetTag(), member.GetId(), true, member.GetTag()
	if err := datadir.SaveNodeState(cfg.DataDir, st); err != nil {
		return st, errors.Join(err, leaveAfterFailedJoin(cfg, st, log))
	}
	return st, nil
}

// leaveTimeout bounds how long a node whose join failed tries to be removed again.
const leaveTimeout = 15 * time.Second

// leaveAfterFailedJoin undoes a join that the cluster accepted but this node could not
// complete (a port in use, a disk error): it asks the cluster to remove the node again, so no
// voter that will never answer is left behind to cost the cluster its quorum, and empties the
// data dir so that a next start is a new node. The tag is retired with the removal.
func leaveAfterFailedJoin(cfg *Config, st datadir.NodeState, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), leaveTimeout)
	defer cancel()
	cc, err := grpc.NewClient("passthrough:///"+cfg.Join, cfg.JoinDialOptions...)
	if err != nil {
		return fmt.Errorf("the join failed after the cluster added node %s, and removing it again failed (%w): remove it by hand (idctl node remove %s)", st.Tag, err, st.Tag)
	}
	defer cc.Close()
	for backoff := 100 * time.Millisecond; ; backoff = min(2*backoff, time.Second) {
		_, err = idnodev1.NewClusterServiceClient(cc).RemoveNode(ctx, &idnodev1.RemoveNodeRequest{Tag: st.Tag})
		if err == nil || status.Code(err) == codes.NotFound {
			log.Warn("the join failed after the cluster added this node; it was removed again", "tag", st.Tag, "via", cfg.Join)
			return datadir.Clear(cfg.DataDir)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the join failed after the cluster added node %s, and removing it again failed (%s): remove it by hand (idctl node remove %s)",
				st.Tag, status.Convert(err).Message(), st.Tag)
		case <-time.After(backoff):
		}
	}
}

// Suffrage a join asks for: a new node first joins as a non-voter, and asks again to become a
// voter once it serves.
const (
	nonVoter = false
	voter    = true
)

// join asks the cluster, through any node, to register this node and add it as a voter or
// non-voter, retrying while the cluster has no leader. The answer names the node's tag and
// Raft ID.
func join(ctx context.Context, cfg *Config, st datadir.NodeState, asVoter bool, log *slog.Logger) (*idnodev1.NodeStatus, error) {
	cc, err := grpc.NewClient("passthrough:///"+cfg.Join, cfg.JoinDialOptions...)
	if err != nil {
		return nil, fmt.Errorf("--join %s: %w", cfg.Join, err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(ctx, joinTimeout)
	defer cancel()
	req := &idnodev1.AddNodeRequest{Tag: st.Tag, Id: st.RaftID, RaftAddress: cfg.RaftAdvertise, GrpcAddress: cfg.GRPCAdvertise,
		Incarnation: st.Incarnation, NonVoter: !asVoter, Separator: string(cfg.Separator), Version: fsm.CurrentVersion}
	for backoff := 100 * time.Millisecond; ; backoff = min(2*backoff, 2*time.Second) {
		resp, err := idnodev1.NewClusterServiceClient(cc).AddNode(ctx, req)
		if err == nil {
			log.Info("joined the cluster", "via", cfg.Join, "tag", resp.GetNode().GetTag(), "id", resp.GetNode().GetId(), "voter", asVoter)
			return resp.GetNode(), nil
		}
		if c := status.Code(err); c != codes.Unavailable && c != codes.DeadlineExceeded {
			return nil, fmt.Errorf("join via %s refused: %s", cfg.Join, status.Convert(err).Message())
		}
		log.Info("waiting to join", "via", cfg.Join, "err", status.Convert(err).Message())
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("join via %s: no answer within %s: %w", cfg.Join, joinTimeout, err)
		case <-time.After(backoff):
		}
	}
}
