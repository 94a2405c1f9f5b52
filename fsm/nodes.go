package fsm

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/idnode/idnode/docid"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// applyRegisterNode registers a node or refreshes the addresses of one already registered with
// the same id. The first registration that names a separator makes it the cluster's; one that
// names another is refused. A tag is refused when another node uses it, when a removed node
// ever used it, or when an earlier incarnation (data dir) of this node holds it. A node that
// sends no tag is assigned one. A node that sends no id gets docid.MemberID(tag, incarnation),
// or the tag when the registration carries no incarnation.
func (st *state) applyRegisterNode(r *raftv1.RegisterNode) any {
	sep := r.GetSeparator()
	if sep != "" && st.separator != "" && sep != st.separator {
		return fmt.Errorf("%w: the cluster's is %q, this node's %q", ErrSeparatorDiffers, st.separator, sep)
	}
	tag, id := r.GetTag(), r.GetId()
	if tag != "" {
		if err := docid.ValidateNodeTag(tag); err != nil {
			return err
		}
	}
	if n, ok := st.nodeByID(id); ok {
		if tag != "" && tag != n.Tag {
			return ErrNodeIDInUse
		}
		tag = n.Tag
	}
	incarnation := r.GetIncarnation()
	if have := max(r.GetNodeVersion(), 1); incarnation != "" && have < st.finalised() {
		return fmt.Errorf("%w: the cluster is finalised at version %d and this node's build supports version %d; start it with a build of version %d or newer",
			ErrVersionUnsupported, st.finalised(), have, st.finalised())
	}
	if tag == "" && id == "" {
		// A joining node retrying after the answer to its first try was lost: it is the node
		// registered with its incarnation, not a new one to be given the next tag (the first
		// would be left a member that never answers, holding this node's addresses).
		if n, ok := st.nodeByIncarnation(incarnation); ok {
			tag = n.Tag
		}
	}
	if tag == "" {
		if tag = st.nextFreeTag(); tag == "" {
			return ErrNoFreeTag
		}
	}
	if st.retired[tag] {
		return ErrTagRetired
	}
	if id == "" {
		id = tag
		if incarnation != "" {
			id = docid.MemberID(tag, incarnation)
		}
	}
	raftAddr, grpcAddr := r.GetRaftAddress(), r.GetGrpcAddress()
	if old, ok := st.nodes[tag]; ok {
		if old.ID != id {
			return fmt.Errorf("%w: node %s (raft id %s) holds it; choose another tag, or let the cluster assign one", ErrTagInUse, tag, old.ID)
		}
		switch {
		case old.Incarnation == "": // registered by an operator; the node claims it
		case incarnation == "":
			// Only the node itself (which knows its incarnation) may move its addresses: an
			// operator's add for a live tag would repoint the live node.
			if (raftAddr != "" && raftAddr != old.RaftAddress) || (grpcAddr != "" && grpcAddr != old.GRPCAddress) {
				return fmt.Errorf("%w: node %s is registered at raft %s, gRPC %s, and only the node itself may move them; choose another tag for a new node",
					ErrTagInUse, tag, old.RaftAddress, old.GRPCAddress)
			}
			incarnation = old.Incarnation
		case incarnation != old.Incarnation:
			return ErrTagReincarnated
		}
		// A registration that does not know an address (a leader reserving a static peer's
		// tag) must not erase the one the node registered itself.
		raftAddr, grpcAddr = cmp.Or(raftAddr, old.RaftAddress), cmp.Or(grpcAddr, old.GRPCAddress)
	}
	if err := st.addressHeld(tag, raftAddr, grpcAddr); err != nil {
		return err
	}
	n := Node{Tag: tag, ID: id, RaftAddress: raftAddr, GRPCAddress: grpcAddr, Incarnation: incarnation}
	if len(st.nodes) == 0 && len(st.retired) == 0 && st.clusterVersion == 0 {
		// The cluster's first registration: a new cluster starts at its founder's version.
		st.clusterVersion = r.GetFoundingVersion()
	}
	st.nodes[tag] = n
	if st.separator == "" {
		st.separator = sep
	}
	return n
}

// addressHeld refuses an address another node is registered with: two members at one
// address would each be taken for the other. Tags are visited sorted, so every replica names
// the same holder.
func (m *members) addressHeld(tag, raftAddr, grpcAddr string) error {
	for _, other := range slices.Sorted(maps.Keys(m.nodes)) {
		n := m.nodes[other]
		switch {
		case other == tag:
		case raftAddr != "" && n.RaftAddress == raftAddr:
			return fmt.Errorf("%w: node %s has raft address %s; give the new node an address of its own", ErrAddressInUse, other, raftAddr)
		case grpcAddr != "" && n.GRPCAddress == grpcAddr:
			return fmt.Errorf("%w: node %s has gRPC address %s; give the new node an address of its own", ErrAddressInUse, other, grpcAddr)
		}
	}
	return nil
}

// nodeByID finds the node with raft id id (of several, the first by tag: firstNode).
func (m *members) nodeByID(id string) (Node, bool) {
	if id == "" {
		return Node{}, false
	}
	return m.firstNode(func(n Node) bool { return n.ID == id })
}

// nodeByIncarnation finds the node registered with incarnation, a random UUID per data dir
// (of several, the first by tag: firstNode).
func (m *members) nodeByIncarnation(incarnation string) (Node, bool) {
	if incarnation == "" {
		return Node{}, false
	}
	return m.firstNode(func(n Node) bool { return n.Incarnation == incarnation })
}

// firstNode is the node with the smallest tag that match accepts. Raft ids and incarnations
// are meant to be unique, but a log can hold two nodes that share one (a data dir copied to
// make a second node keeps its incarnation; an id may be registered for one tag before the
// node of the tag it names registers), and every replica must pick the same node, whatever
// order its map visits them in.
func (m *members) firstNode(match func(Node) bool) (Node, bool) {
	var first Node
	found := false
	for tag, n := range m.nodes {
		if match(n) && (!found || tag < first.Tag) {
			first, found = n, true
		}
	}
	return first, found
}

// applyRemoveNode retires the tag for ever and drops the node if it is registered. It is
// idempotent; whether the node exists is the proposer's question, which also knows the raft
// configuration (a static peer may be a member before it ever registered).
func (st *state) applyRemoveNode(r *raftv1.RemoveNode) any {
	n, ok := st.nodes[r.GetTag()]
	if !ok {
		n = Node{Tag: r.GetTag()}
	}
	delete(st.nodes, n.Tag)
	delete(st.reserved, n.Tag)
	delete(st.versions, n.Tag)
	// The fence goes with the member: the data dir that joins in its place is another member.
	delete(st.fences, n.ID)
	st.retired[n.Tag] = true
	hiloTags{st}.retirePools(n.ID)
	return n
}

// nextFreeTag walks A … Z, ZA … ZZ, ZZA … ZZZZ (the order tags are assigned in) and returns the
// first tag neither in use nor retired, or "" when all are gone.
func (m *members) nextFreeTag() string {
	for length := 1; length <= maxTagLength; length++ {
		prefix := strings.Repeat("Z", length-1)
		for c := 'A'; c <= 'Z'; c++ {
			tag := prefix + string(c)
			if _, used := m.nodes[tag]; !used && !m.retired[tag] {
				return tag
			}
		}
	}
	return ""
}

// maxTagLength is the longest node tag: 1–4 upper-case letters.
const maxTagLength = 4
