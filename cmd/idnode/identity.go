package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/datadir"
	"github.com/idnode/idnode/nodestate"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// joinTimeout bounds how long a new node keeps asking the cluster to let it in.
const joinTimeout = 60 * time.Second

// resolveIdentity decides who this node is: the tag its data dir remembers, or on a fresh data
// dir the --tag given, or the tag the cluster assigns when joining. It persists the answer
// before Raft starts, so a crash cannot leave the node unsure of its own tag.
func resolveIdentity(ctx context.Context, cfg *config, log *slog.Logger) (nodestate.State, error) {
	st, found, err := nodestate.Load(cfg.dataDir)
	if err != nil {
		return st, err
	}
	if found {
		if cfg.tagSet && cfg.tag != st.Tag {
			return st, fmt.Errorf("data dir %s belongs to node %s, not --tag %s: a node keeps its tag for life; use another data dir for a new node", cfg.dataDir, st.Tag, cfg.tag)
		}
		cfg.tag = st.Tag
		return st, cfg.placeSelf()
	}
	if err := datadir.CheckOrphans(cfg.dataDir); err != nil {
		return st, err
	}
	if cfg.join == "" {
		st = nodestate.New(cfg.tag)
		if err := cfg.placeSelf(); err != nil {
			return st, err
		}
		return st, nodestate.Save(cfg.dataDir, st)
	}
	if err := cfg.placeSelf(); err != nil {
		return st, err
	}
	st = nodestate.New("")
	if cfg.tagSet {
		st.Tag = cfg.tag
	}
	member, err := join(ctx, cfg, st, log)
	if err != nil {
		return st, err
	}
	st.Tag, st.RaftID, st.Registered, cfg.tag = member.GetTag(), member.GetId(), true, member.GetTag()
	return st, nodestate.Save(cfg.dataDir, st)
}

// join asks the cluster, through any node, to register this node and add it as a voter,
// retrying while the cluster has no leader. The answer names the node's tag and Raft ID.
func join(ctx context.Context, cfg *config, st nodestate.State, log *slog.Logger) (*idnodev1.NodeStatus, error) {
	cc, err := grpc.NewClient("passthrough:///"+cfg.join, grpc.WithTransportCredentials(cfg.peerCreds()))
	if err != nil {
		return nil, fmt.Errorf("--join %s: %w", cfg.join, err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(cfg.withAdminToken(ctx), joinTimeout)
	defer cancel()
	req := &idnodev1.AddNodeRequest{Tag: st.Tag, Id: st.RaftID, RaftAddress: cfg.raftAdvertise, GrpcAddress: cfg.grpcAdvertise, Incarnation: st.Incarnation}
	for backoff := 100 * time.Millisecond; ; backoff = min(2*backoff, 2*time.Second) {
		resp, err := idnodev1.NewClusterServiceClient(cc).AddNode(ctx, req)
		if err == nil {
			log.Info("joined the cluster", "via", cfg.join, "tag", resp.GetNode().GetTag(), "id", resp.GetNode().GetId())
			return resp.GetNode(), nil
		}
		if c := status.Code(err); c != codes.Unavailable && c != codes.DeadlineExceeded {
			return nil, fmt.Errorf("join via %s refused: %s", cfg.join, status.Convert(err).Message())
		}
		log.Info("waiting to join", "via", cfg.join, "err", status.Convert(err).Message())
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("join via %s: no answer within %s: %w", cfg.join, joinTimeout, err)
		case <-time.After(backoff):
		}
	}
}
