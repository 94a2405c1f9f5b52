package server

import (
	"slices"

	"github.com/idnode/idnode/cluster"
)

// Membership as this node sees it of itself.
//
// A new node joins as a non-voter and asks to become a voter once it serves (cmd/idnode); if
// that fails and removing it again fails too, the node is left a member that does not vote.
// Restarted with the same flags it would run so for ever without a word: instead it says so
// at start and in Status, and idctl finishes (node promote) or undoes (node remove) the join.

// joinHeader marks a node's answer to a health probe when its join did not finish.
const joinHeader = "idnode-join"

// joinUnfinishedValue is joinHeader's value.
const joinUnfinishedValue = "unfinished"

// selfMembership is this node's membership as it sees it in the Raft configuration it knows.
// It needs of the node only its ID and members, and whether it was started with --join
// (Config.Joined).
type selfMembership struct {
	node   selfNode
	joined bool
}

// selfNode is what selfMembership needs of the node (Cluster).
type selfNode interface {
	ID() string
	Members() []cluster.Member
}

// joinUnfinished reports whether this node joined with --join and is still a non-voter.
func (m selfMembership) joinUnfinished() bool {
	self, ok := m.member()
	return m.joined && ok && !self.Voter
}

// member is this node in the Raft configuration it knows, if it is in it.
func (m selfMembership) member() (cluster.Member, bool) {
	for _, member := range m.node.Members() {
		if member.ID == m.node.ID() {
			return member, true
		}
	}
	return cluster.Member{}, false
}

// warnUnfinishedJoin says at start what an unfinished join means and how to end it.
func (s *Server) warnUnfinishedJoin() {
	if s.self.joinUnfinished() {
		s.log.Warn("this node's join did not finish: it is a member but not a voter, so it serves and does not vote. "+
			"Finish the join with idctl node promote "+s.cfg.Tag+", or undo it with idctl node remove "+s.cfg.Tag+" (then stop this node and empty its data dir)",
			"tag", s.cfg.Tag, "id", s.node.ID())
	}
}

// removed reports whether this node has learnt that it was removed: its Raft
// configuration, read from its own log, no longer lists it (the configuration entry is the
// last one a leader sends a member it removes). RemoveNode retires the node's HiLo pools, so a
// removed node that keeps running must not grant from them. Cheap enough for every grant:
// raft keeps its newest configuration in an atomic value.
func (m selfMembership) removed() bool {
	members := m.node.Members()
	return len(members) > 0 && !slices.ContainsFunc(members, func(member cluster.Member) bool { return member.ID == m.node.ID() })
}
