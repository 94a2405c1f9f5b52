package fsm

import (
	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/opaque"
)

// IdentityRange is the answer to one increment: the block of values it reserved, or why
// none. The batcher hands it on as it is (identity.Result), and callers get the block.
type IdentityRange struct {
	docid.IdentityBlock
	// Forms is how the block's IDs are written when the increment's collection is opaque in
	// the state that applied it; nil when they are plain. The node writes the caller's IDs
	// with it, without reading the state again, where the setting may have moved since.
	Forms *IdentityForms
	Err   error
}

// IdentityForms is how an opaque collection's identity IDs are written (docs/opaque-ids.md):
// the codec the state keeps for the collection, and what it was made with, the database's
// key and the collection as the state folds it (the tweak). The leader hands the key and the
// tweak to a follower that relayed the increment, so the follower writes the forms the
// leader would without waiting for its own state to hold the setting.
type IdentityForms struct {
	Codec *opaque.Codec
	Key   []byte
	Tweak string
}

// String names the forms by their collection and never shows the key: an answer printed (the
// fuzz test compares replicas' answers as text) shows the decision alone.
func (f IdentityForms) String() string { return "forms of " + f.Tweak }

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
