package fsm

import (
	"github.com/idnode/idnode/internal/hilogrant"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// state is everything the FSM replicates. It is only touched under FSM.mu.
type state struct {
	databases map[string]*database // by DatabaseName; DefaultDatabase always
	keys      map[string]*Key      // API keys by id
	members
	requests *requestTable
	// separator is the cluster's identity parts separator, set by the first node that
	// registers with one (a cluster-wide setting, so all nodes' IDs read alike); "" until then.
	separator string
	// fold is how identity names and claimed IDs are compared (fold.go): foldLower until a
	// SetFold entry moves the state on.
	fold int32
	// journal is the FSM's series store (series.go), shared by every state it holds.
	journal *journal
	// marks is the FSM's latest digest marks (digestmark.go), shared by every state it holds.
	marks *digestMarks
}

// members is the cluster's record of its nodes: who is registered under which tag, the tags
// that may never be used again, what each node published of its counters and said of its
// build, the cluster version, and the secret the nodes share.
type members struct {
	nodes map[string]Node // by tag
	// reserved is what each registered node published of its local counters, by tag
	// (reservations.go); a snapshot writes it in the node's record.
	reserved map[string]Reservations
	// versions is what each registered node said its build supports, by tag
	// (clusterversion.go); a snapshot writes it in the node's record.
	versions map[string]NodeVersion
	// clusterVersion is the finalised cluster version (0 until one is set, which means
	// version 1). versionUsed is the newest version of any command the log applied.
	clusterVersion, versionUsed uint32
	retired                     map[string]bool // tags of removed nodes
	// fences is the members fenced for a diverged state, by Raft ID (fence.go).
	fences map[string]*raftv1.ReplicaFence
	// clusterSecret authenticates node-to-node calls (package forward); nil until the first
	// leader proposes one.
	clusterSecret []byte
}

type hiloState struct {
	max     int64 // highest number ever reserved
	lastLow int64 // low end of the newest reservation
	// pools is how many numbers each registered node's pool got so far, by member ID
	// (pools.go); nil until one did.
	pools map[string]int64
	// floor is the highest Max a seed or a restore raised the tag to: numbers up to it were
	// handed out elsewhere (another store, another cluster), so a pool holding some, reserved
	// before the raise, must not grant them (pools.go).
	floor int64
	// grants is what ReturnHiLo can still give back (package hilogrant): the newest grant,
	// which ends at max, and the one just below it.
	grants hilogrant.Stack
}

func newState() *state {
	return &state{
		databases: map[string]*database{DefaultDatabase: newDatabase()},
		keys:      make(map[string]*Key),
		members: members{
			nodes:    make(map[string]Node),
			reserved: make(map[string]Reservations),
			versions: make(map[string]NodeVersion),
			retired:  make(map[string]bool),
			fences:   make(map[string]*raftv1.ReplicaFence),
		},
		requests: newRequestTable(),
	}
}
