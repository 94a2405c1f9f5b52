package fsm

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// CurrentVersion is the cluster version this build supports: the commands it knows and the
// node-to-node calls it relies on. Version 1 is every build from before cluster versions
// (commands up to 50); version 2 adds ReleaseOwner; version 3 adds no command, and retires the
// internal Leader service, because every member relays a call to the leader by the call's own
// name (server/relay.go); version 4 (restoringVersion) adds no command either; version 5 adds
// MakeOpaque (opaque collections); version 6 adds DigestMark (DigestMarkVersion); version 7
// adds FenceReplica (FenceVersion); version 8 adds no command, but a Release's request_id
// (ReleaseRequestVersion). A build supports every version up to its own.
const CurrentVersion uint32 = 8

// restoringVersion is the cluster version from which a series that a backup's restore put back
// in part refuses issues and voids until the rest is back (series/restoring.go). An older build
// would let them through, so a mixed cluster would answer them differently on each node: the
// FSM shuts such a series only once this version is finalised, when every member runs a build
// that does the same, and a series it shut counts as this version used, so no downgrade brings
// a build that would issue into it.
const restoringVersion uint32 = 4

// commandVersion is the cluster version that brought each command newer than version 1. The
// leader proposes one only once its version is finalised (server/apply.go): an older build
// would halt on it. An Ignorable command needs no row, since an older build skips it.
var commandVersion = map[CommandType]uint32{
	ReleaseOwnerCommand: 2,
	MakeOpaqueCommand:   5,
	FenceReplicaCommand: FenceVersion,
}

// VersionOf is the cluster version command t needs.
func VersionOf(t CommandType) uint32 {
	if v, ok := commandVersion[t]; ok {
		return v
	}
	return 1
}

// NodeVersion is what a node said its build supports (raftv1.NodeVersion). A node that said
// nothing runs a build from before cluster versions: version 1.
type NodeVersion struct {
	Version uint32
	Build   string
}

// ClusterVersion is the cluster's version as the log set it.
type ClusterVersion struct {
	// Finalised is the version the operator finalised (or the cluster was born at): the
	// commands the leader may propose.
	Finalised uint32
	// Used is the newest version whose commands the log has applied; no downgrade below it.
	Used uint32
	// Nodes is what each registered node supports, by tag.
	Nodes map[string]NodeVersion
}

// applyNodeVersion records what a registered node's build supports, as the node itself says.
func (m *members) applyNodeVersion(r *raftv1.NodeVersion) any {
	n, ok := m.nodes[r.GetTag()]
	if !ok || n.ID != r.GetId() {
		return fmt.Errorf("%w: no node %s with id %s", ErrNotRegistered, r.GetTag(), r.GetId())
	}
	if r.GetVersion() < 1 {
		return fmt.Errorf("%w: 0", ErrInvalidVersion)
	}
	m.versions[n.Tag] = NodeVersion{Version: r.GetVersion(), Build: r.GetBuild()}
	return nil
}

// applySetClusterVersion finalises a version every registered node supports, or lowers the
// cluster's to one no applied command needs.
func (m *members) applySetClusterVersion(r *raftv1.SetClusterVersion) any {
	v := r.GetVersion()
	if v < 1 {
		return fmt.Errorf("%w: 0", ErrInvalidVersion)
	}
	if v < m.versionUsed {
		return fmt.Errorf("%w: the log holds commands of version %d, which a build of version %d would halt on; keep this version and its builds",
			ErrDowngradeTooLate, m.versionUsed, v)
	}
	if older := m.nodesBelow(v); len(older) > 0 {
		return fmt.Errorf("%w: %s; upgrade them first", ErrVersionUnsupported, strings.Join(older, ", "))
	}
	m.clusterVersion = v
	return nil
}

// nodesBelow lists, sorted, the registered nodes whose build does not support version v, each
// as "tag (version n)".
func (m *members) nodesBelow(v uint32) []string {
	var out []string
	for _, tag := range slices.Sorted(maps.Keys(m.nodes)) {
		if have := m.nodeVersion(tag).Version; have < v {
			out = append(out, fmt.Sprintf("%s (version %d)", tag, have))
		}
	}
	return out
}

// nodeVersion is what the node with tag supports: version 1 when it said nothing.
func (m *members) nodeVersion(tag string) NodeVersion {
	if nv, ok := m.versions[tag]; ok {
		return nv
	}
	return NodeVersion{Version: 1}
}

// finalised is the cluster version in force: 1 until one was set.
func (m *members) finalised() uint32 {
	return max(m.clusterVersion, 1)
}

// FinalisedVersion returns the cluster version in force. It reads one number, not the whole
// registry as ClusterVersion does, because the leader asks for it before every proposal.
func (f *FSM) FinalisedVersion() uint32 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.st.finalised()
}

// ClusterVersion reports the cluster's version and what every registered node supports.
func (f *FSM) ClusterVersion() ClusterVersion {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := ClusterVersion{Finalised: f.st.finalised(), Used: max(f.st.versionUsed, 1), Nodes: make(map[string]NodeVersion, len(f.st.nodes))}
	for tag := range f.st.nodes {
		out.Nodes[tag] = f.st.nodeVersion(tag)
	}
	return out
}

// CommandName is the name of command t's message, for an operator: "ReleaseOwner".
func CommandName(t CommandType) string {
	if c, ok := commands[t]; ok {
		return string(c.message.Name())
	}
	return fmt.Sprintf("command %d", t)
}
