package cluster

import "errors"

// Errors returned by Node. The gRPC layer maps all of them to UNAVAILABLE: each is safe to
// retry, on this node or another.
var (
	// ErrNotLeader means this node is not the leader; forward to the leader or retry there.
	ErrNotLeader = errors.New("this node is not the raft leader")

	// ErrHandingOver means this node is handing leadership over to another (TransferLeadership)
	// and proposed nothing: wait for the hand-over (AwaitHandOver), then take the call to the
	// new leader.
	ErrHandingOver = errors.New("this node is handing leadership over; the command was not proposed")

	// ErrLeadershipLost means leadership was lost while the command was in flight: it may or
	// may not have been committed. Retry with the same request_id to learn which.
	ErrLeadershipLost = errors.New("leadership lost while the command was in flight; its outcome is unknown")

	// ErrNoQuorum means the node could not confirm it still leads a majority in time.
	ErrNoQuorum = errors.New("no quorum: cannot reach a majority of the cluster")

	// ErrShutdown means the node is shutting down.
	ErrShutdown = errors.New("node is shutting down")

	// ErrStorageFull means this node could not write its Raft log because its disk is full
	// (a StorageError says which file). Nothing was committed through it; another node may
	// serve. It serves again by itself once space is freed.
	ErrStorageFull = errors.New("the disk under the raft log is full")

	// ErrStorageFailed means this node could not write its Raft log for another reason (an
	// I/O error, a read-only file system).
	ErrStorageFailed = errors.New("the raft log cannot be written")
)

// Errors that stop a node from starting. Neither is retried: each needs an operator.
var (
	// ErrClusterExists means this data dir is new but the cluster in --peers already formed
	// without it: the node lost its data dir (or was never part of that cluster). It must not
	// vote or count toward a quorum as its old self; it joins as a new member instead.
	ErrClusterExists = errors.New("this data dir is new, but the cluster already exists without it")

	// ErrWrongMember means the node at a member's Raft address answered with another member
	// ID (a different data dir). Its answer is not counted.
	ErrWrongMember = errors.New("a different node answers at this member's raft address")

	// ErrPeerMismatch means a node at an address in --peers is not the node the list names.
	ErrPeerMismatch = errors.New("--peers names a different node at this address")

	// ErrUnknownLogStore means Config.LogStore (--raft-log) names no store idnode has.
	ErrUnknownLogStore = errors.New("unknown raft log store")

	// ErrLogStoreMismatch means the data dir holds one kind of Raft log and the node was told
	// to use the other: opening that one would start from an empty log and hand IDs out again.
	ErrLogStoreMismatch = errors.New("the data dir holds a different kind of raft log than asked")
)

// Errors about a data dir's Raft stores. Each stops the node at start; datadir.WayBack says
// what the operator can do.
var (
	// ErrDamagedStore means the Raft log (raft.db or wal/) or the snapshots cannot be read as
	// they are.
	ErrDamagedStore = errors.New("the raft store is damaged")

	// ErrLogBehind means the Raft log ends before an index this node already held.
	ErrLogBehind = errors.New("the raft log ends before an index this node already held")
)
