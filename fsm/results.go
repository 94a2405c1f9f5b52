package fsm

import "github.com/idnode/idnode/docid"

// IdentityRange is the answer to one increment: the block of values it reserved, or why
// none. The batcher hands it on as it is (identity.Result), and callers get the block.
type IdentityRange struct {
	docid.IdentityBlock
	Err error
}

// IdentityBatchResult answers an IdentityBatch, one range per increment, in order.
type IdentityBatchResult struct {
	Ranges []IdentityRange
}

// HiLoRange is a reserved HiLo range, low..high inclusive. GrantID is its identity, which a
// return must present (empty from the commands before grants had one).
type HiLoRange struct {
	Low, High int64
	GrantID   string
}

// HiLoReturned answers a HiLoReturnGrant: whether the numbers went back.
type HiLoReturned bool

// Node is a registered cluster member.
type Node struct {
	Tag         string
	ID          string
	RaftAddress string
	GRPCAddress string
	Incarnation string // random per data dir; see RegisterNode in raft.proto
}

// Reservations is how far a node's local counters may have reached (LocalReservations in
// raft.proto): an older copy of its etag or HiLo pools file starts above these.
type Reservations struct {
	// Etag is the highest etag watermark the node published.
	Etag uint64
	// Pools is, per pool, the highest number the node may have granted from it. It is
	// replaced, never changed in place: answers already given share it.
	Pools map[PoolKey]int64
	// Seal is the digest of the node's pools file at its last clean stop, nil once a start
	// cleared it.
	Seal []byte
	// SealMatched, in an answer, says the command's unseal was the Seal it cleared.
	SealMatched bool
}

// PoolKey names a HiLo pool: a database (canonical, DatabaseName) and a folded tag.
type PoolKey struct {
	Database, Tag string
}

// Identity is one identity counter as listed.
type Identity struct {
	Database string // canonical: DefaultDatabase, not ""
	Name     string
	Value    int64
}
