package cluster

import "errors"

// Errors returned by Node. The gRPC layer maps all of them to UNAVAILABLE: each is safe to
// retry, on this node or another.
var (
	// ErrNotLeader means this node is not the leader; forward to the leader or retry there.
	ErrNotLeader = errors.New("this node is not the raft leader")

	// ErrLeadershipLost means leadership was lost while the command was in flight: it may or
	// may not have been committed. Retry with the same request_id to learn which.
	ErrLeadershipLost = errors.New("leadership lost while the command was in flight; its outcome is unknown")

	// ErrNoQuorum means the node could not confirm it still leads a majority in time.
	ErrNoQuorum = errors.New("no quorum: cannot reach a majority of the cluster")

	// ErrShutdown means the node is shutting down.
	ErrShutdown = errors.New("node is shutting down")
)
