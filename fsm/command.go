package fsm

import (
	"fmt"

	"google.golang.org/protobuf/proto"
)

// CommandType is the first byte of every log entry; the protobuf payload follows. A new
// command gets a new number; a number is never reused.
type CommandType uint8

// Ignorable is the type bit of a command that a build which does not know it may skip: one
// that changes nothing the older build answers from (Consul's IgnoreUnknownTypeFlag). A new
// command without it halts older nodes, which then need an upgrade (docs/upgrades.md, "Rolling upgrade").
const Ignorable CommandType = 0x80

const (
	IdentityBatchCommand CommandType = 1
	SeedIdentityCommand  CommandType = 2
	HiLoReserveCommand   CommandType = 3
	HiLoReturnCommand    CommandType = 4
	RegisterNodeCommand  CommandType = 5
	RemoveNodeCommand    CommandType = 6
	RaiseFloorCommand    CommandType = 7
	// SetClusterSecret changes nothing an older build answers from, and an older build does
	// not check the secret: it may skip it.
	SetClusterSecretCommand CommandType = 8 | Ignorable
	CreateDatabaseCommand   CommandType = 9
	DeleteDatabaseCommand   CommandType = 10
	CreateKeyCommand        CommandType = 11
	DeleteKeyCommand        CommandType = 12
	SeedHiLoCommand         CommandType = 13
	ClaimCommand            CommandType = 14
	ReleaseCommand          CommandType = 15
	HiLoPoolReserveCommand  CommandType = 16
	// ReleaseOwner releases every claim of an owner (cluster version 2, clusterversion.go).
	// Not Ignorable: an older build that skipped it would keep the claims.
	ReleaseOwnerCommand CommandType = 17
	// HiLoGrant is HiLoReserve with a grant identity and bounds on last_max (hilo.go); it
	// replaces HiLoReserve, which stays for the entries already in logs.
	HiLoGrantCommand CommandType = 20
	// HiLoReturnGrant is HiLoReturn that needs the grant's identity (hilo.go); it replaces
	// HiLoReturn, which stays for the entries already in logs.
	HiLoReturnGrantCommand CommandType = 21
	// SetFold moves how names and claimed IDs compare (fold.go). Not Ignorable: an older
	// build that skipped it would key the same names differently from the others.
	SetFoldCommand CommandType = 50
	// LocalReservations records how far a node's etag counter and HiLo pools may have reached.
	LocalReservationsCommand CommandType = 25
	// Fiscal series (series.go). Not Ignorable: an older build would leave its journal short.
	CreateSeriesCommand     CommandType = 30
	SeriesIssueBatchCommand CommandType = 31
	SeriesVoidCommand       CommandType = 32
	// RestoreSeries puts a chunk of a backup's series back (ClusterService/Restore).
	RestoreSeriesCommand CommandType = 33
	// The worker leases of numeric IDs (workers.go). Not Ignorable: an older build that
	// skipped them would hand a leased worker to another holder, or below its high-water.
	AcquireWorkerCommand CommandType = 40
	RenewWorkerCommand   CommandType = 41
	ReleaseWorkerCommand CommandType = 42
	// MakeOpaque turns collections of a database opaque (opaque.go; cluster version 5). Not
	// Ignorable: an older build that skipped it would hold no key and give plain IDs.
	MakeOpaqueCommand CommandType = 70
	// What a node's build supports, and the finalised cluster version (clusterversion.go).
	// Ignorable: an older build gates nothing on them, and skipping them changes none of its
	// answers.
	NodeVersionCommand       CommandType = 60 | Ignorable
	SetClusterVersionCommand CommandType = 61 | Ignorable
	// DigestMark has each replica take the digest of its state at the entry's index
	// (digestmark.go; cluster version 6). Ignorable: it changes no state, and an older build
	// that skips it only reports no digest.
	DigestMarkCommand CommandType = 80 | Ignorable
	// FenceReplica records a member whose digest differed from the majority's (fence.go;
	// cluster version 7). Not Ignorable: an older build that skipped it would let the member
	// serve.
	FenceReplicaCommand CommandType = 81
)

// Encode frames a command for raft.Apply. It refuses a message that is not the one the
// command table says t carries, so a proposer cannot pair a type byte with the wrong payload.
func Encode(t CommandType, m proto.Message) ([]byte, error) {
	c, ok := commands[t]
	if !ok {
		return nil, fmt.Errorf("%w (type %d)", ErrUnknownCommand, t)
	}
	if got := m.ProtoReflect().Descriptor().FullName(); got != c.message {
		return nil, fmt.Errorf("raft command %d carries %s, not %s", t, c.message, got)
	}
	buf := make([]byte, 1, 1+proto.Size(m))
	buf[0] = byte(t)
	buf, err := proto.MarshalOptions{Deterministic: true}.MarshalAppend(buf, m)
	if err != nil {
		return nil, fmt.Errorf("encode raft command %d: %w", t, err)
	}
	return buf, nil
}
