package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/docid"
)

// formationLogEvery is how often a node waiting for its peers says so.
const formationLogEvery = 5 * time.Second

// formationConfiguration decides what a node on a data dir with no Raft state bootstraps,
// given a --peers list of tags and addresses. Every peer is asked who it is (hello.go):
//
//   - a peer that already belongs to a cluster whose configuration lists this node's member
//     ID formed it with this node (which then crashed before its own bootstrap was durable):
//     bootstrap the same configuration;
//   - a peer that belongs to a cluster without this member ID means the cluster exists and
//     this data dir is not part of it, typically a node whose data dir was lost: refuse
//     (ErrClusterExists). Its empty log must never vote or count toward a quorum as the old
//     member's;
//   - when every peer answers and none has formed yet, the cluster is new: bootstrap all of
//     them with the member IDs they reported.
//
// Until one of these holds, the node waits (a new cluster forms only when every peer in
// --peers answers), telling the log whom it waits for.
func (n *Node) formationConfiguration(ctx context.Context) (raft.Configuration, error) {
	selfTag, _ := docid.MemberTag(n.cfg.ID)
	lastLog := time.Now()
	for backoff := 50 * time.Millisecond; ; backoff = min(2*backoff, time.Second) {
		conf := raft.Configuration{Servers: []raft.Server{{Suffrage: raft.Voter, ID: raft.ServerID(n.cfg.ID), Address: raft.ServerAddress(n.cfg.advertise())}}}
		var waiting []string
		for _, p := range n.cfg.Peers {
			if p.ID == selfTag {
				continue
			}
			h, err := askHello(n.dial, p.Address)
			if err != nil {
				waiting = append(waiting, fmt.Sprintf("%s at %s (%v)", p.ID, p.Address, err))
				continue
			}
			if tag, _ := docid.MemberTag(h.ID); tag != p.ID {
				return raft.Configuration{}, fmt.Errorf("%w: %s is node %s, not %s: give every node the same, correct --peers list", ErrPeerMismatch, p.Address, h.ID, p.ID)
			}
			switch {
			case h.Formed && h.Servers == nil:
				waiting = append(waiting, fmt.Sprintf("%s at %s (starting)", p.ID, p.Address))
			case h.Formed && h.has(n.cfg.ID):
				n.log.Info("joining the cluster that formed with this node", "peer", p.ID)
				return h.configuration(), nil
			case h.Formed:
				return raft.Configuration{}, n.clusterExists(p, h)
			default:
				conf.Servers = append(conf.Servers, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(h.ID), Address: raft.ServerAddress(p.Address)})
			}
		}
		if len(waiting) == 0 {
			slices.SortFunc(conf.Servers, func(a, b raft.Server) int { return strings.Compare(string(a.ID), string(b.ID)) })
			return conf, nil
		}
		if time.Since(lastLog) >= formationLogEvery {
			n.log.Info("data dir is new: waiting for every peer in --peers to answer, to learn whether the cluster exists",
				"waiting_for", strings.Join(waiting, "; "))
			lastLog = time.Now()
		}
		select {
		case <-ctx.Done():
			return raft.Configuration{}, fmt.Errorf("forming the cluster: still waiting for %s: %w", strings.Join(waiting, "; "), ctx.Err())
		case <-time.After(backoff):
		}
	}
}

// clusterExists explains ErrClusterExists to the operator.
func (n *Node) clusterExists(p Peer, h hello) error {
	members := make([]string, len(h.Servers))
	for i, s := range h.Servers {
		members[i] = s.ID
	}
	selfTag, _ := docid.MemberTag(n.cfg.ID)
	return fmt.Errorf("%w: peer %s (%s) belongs to a cluster of %s, and this node's data dir %s (member %s) is not one of them. "+
		"If this node lost its data dir, it cannot come back as its old self: its etag and Raft log restarted, so it could hand out IDs twice. "+
		"Remove the old member (idctl node remove %s) and start this node as a new member with an empty data dir: idnode --join <address of a running node> (it gets a new tag)",
		ErrClusterExists, p.ID, p.Address, strings.Join(members, ", "), n.cfg.DataDir, n.cfg.ID, selfTag)
}
