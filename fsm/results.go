package fsm

// IdentityRange is the answer to one increment: the values first..last except Skipped, which
// are claimed (ascending; usually none).
type IdentityRange struct {
	First, Last int64
	Skipped     []int64
	Err         error
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

// Identity is one identity counter as listed.
type Identity struct {
	Database string // canonical: DefaultDatabase, not ""
	Name     string
	Value    int64
}
