package cluster

import (
	"strings"
	"time"

	"github.com/hashicorp/raft"
)

// Member is one server of the Raft configuration.
type Member struct {
	ID      string // Raft server ID (docid.MemberID)
	Address string // Raft address
	Voter   bool
}

// Members is the newest Raft configuration, or nothing while it cannot be read.
func (n *Node) Members() []Member {
	f := n.raft.GetConfiguration()
	if f.Error() != nil {
		return nil
	}
	var out []Member
	for _, s := range f.Configuration().Servers {
		out = append(out, Member{ID: string(s.ID), Address: string(s.Address), Voter: s.Suffrage == raft.Voter})
	}
	return out
}

// Leader is the leader this node knows of, or empty strings.
func (n *Node) Leader() (id, address string) {
	addr, lid := n.raft.LeaderWithID()
	return string(lid), string(addr)
}

// State is raft's state of this node in lower case: leader, follower, candidate, shutdown.
func (n *Node) State() string { return strings.ToLower(n.raft.State().String()) }

// LastContact is when this node last heard from the leader (zero if never).
func (n *Node) LastContact() time.Time { return n.raft.LastContact() }

// Term is the current Raft term.
func (n *Node) Term() uint64 { return n.raft.CurrentTerm() }

// CommitIndex is the newest index this node knows to be committed.
func (n *Node) CommitIndex() uint64 { return n.raft.CommitIndex() }

// AppliedIndex is the newest index applied to this node's FSM.
func (n *Node) AppliedIndex() uint64 { return n.raft.AppliedIndex() }

// AddMember adds m to the configuration, as a voter or not, or changes its suffrage; on the
// leader only.
func (n *Node) AddMember(m Member, timeout time.Duration) error {
	id, addr := raft.ServerID(m.ID), raft.ServerAddress(m.Address)
	if m.Voter {
		return translate(n.raft.AddVoter(id, addr, 0, timeout).Error())
	}
	return translate(n.raft.AddNonvoter(id, addr, 0, timeout).Error())
}

// RemoveMember takes the member with id out of the configuration; on the leader only.
func (n *Node) RemoveMember(id string, timeout time.Duration) error {
	return translate(n.raft.RemoveServer(raft.ServerID(id), 0, timeout).Error())
}
