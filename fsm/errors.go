package fsm

import "errors"

// Errors returned by Apply (through raft's ApplyFuture.Response). Each is deterministic: every
// replica applying the same log returns the same error for the same entry.
var (
	// ErrUnknownCommand means the entry's type byte is one this build does not know: the log
	// was written by a newer idnode. Upgrade this node before it applies more of the log.
	ErrUnknownCommand = errors.New("unknown raft command type: upgrade this node to the cluster's idnode version")

	// ErrHalted means the FSM stopped applying the log: it met a command type it does not know
	// (this node runs an older idnode than the cluster: upgrade it) or could not write a series
	// journal (fix its disk). Then restart it; the log still holds every entry.
	ErrHalted = errors.New("this node's state machine halted and applies no more of the log")

	// ErrJournalWrite means the series journal (series.db) could not be written: the FSM halts
	// rather than answer from a journal that lacks entries the log holds.
	ErrJournalWrite = errors.New("the series journal (series.db) cannot be written: fix the disk and restart the node")

	// ErrNoJournal means this FSM was built without a series store (a test's).
	ErrNoJournal = errors.New("this node keeps no series journal")

	// ErrSnapshotDigestMismatch means a snapshot's state does not hash to the digest it
	// carries: the snapshot was damaged, or the replica that wrote it (or this build's
	// restore) diverged. It is refused; the node must be given a good snapshot.
	ErrSnapshotDigestMismatch = errors.New("the snapshot's state does not match the state digest it carries")

	// ErrMalformedCommand means an entry could not be decoded.
	ErrMalformedCommand = errors.New("malformed raft command")

	// ErrCounterOverflow means a reservation would pass the largest int64 value.
	ErrCounterOverflow = errors.New("counter would overflow int64")

	// ErrInvalidCount means a reservation asked for fewer than one value.
	ErrInvalidCount = errors.New("count must be at least 1")

	// ErrNegativeValue means a seed, HiLo bound or last_max was negative.
	ErrNegativeValue = errors.New("value must not be negative")

	// ErrRequestIDReused means a request_id already answered a different request; use a fresh
	// request_id for every new request and reuse it only for retries of the same one.
	ErrRequestIDReused = errors.New("request_id was already used for a different request")

	// ErrLastMaxOutOfRange means a NextHiLo's last_max is above both the tag's Max and
	// MaxLastMax: no range this cluster granted ends there, and honouring it would move the
	// tag towards the end of int64 for every later caller.
	ErrLastMaxOutOfRange = errors.New("last_max is above every range this cluster granted for the tag and above the bound for a last_max from elsewhere")

	// ErrRangeReturned means a retried HiLo request's range was partly given back since, so
	// replaying it could hand the same numbers out twice; ask for a new range instead.
	ErrRangeReturned = errors.New("the HiLo range of this request_id was returned; request a new range")

	// ErrTagInUse means another node holds the tag.
	ErrTagInUse = errors.New("node tag is in use by another node")

	// ErrTagRetired means the tag belonged to a removed node. Reusing it would restart that
	// tag's etag at 1 and repeat its server-side IDs, so it is never handed out again.
	ErrTagRetired = errors.New("node tag belonged to a removed node and is retired for ever")

	// ErrSeparatorDiffers means a node is configured with another identity parts separator
	// than the cluster's: its IDs would not match the other nodes'. Start it with the
	// cluster's --separator.
	ErrSeparatorDiffers = errors.New("this node's --separator differs from the cluster's")

	// ErrDatabaseNotFound means the call names a database that does not exist (or was
	// deleted): create it first (ClusterService/CreateDatabase, idctl db create).
	ErrDatabaseNotFound = errors.New("no such database")

	// ErrDatabaseExists means CreateDatabase names a database that exists.
	ErrDatabaseExists = errors.New("the database exists")

	// ErrDatabaseNotEmpty means DeleteDatabase names a database that still has counters; force
	// deletes it anyway (its counters stay as floors).
	ErrDatabaseNotEmpty = errors.New("the database has counters: delete it with force")

	// ErrInvalidKey means a proposed API key has no id, a bad hash or an unknown role.
	ErrInvalidKey = errors.New("invalid API key")

	// ErrKeyExists means an API key id is taken (ids are random: retry).
	ErrKeyExists = errors.New("an API key with this id exists")

	// ErrKeyNotFound means DeleteKey names no key (see ClusterService/ListKeys).
	ErrKeyNotFound = errors.New("no such API key")

	// ErrAlreadyClaimed means a claimed ID is someone else's (ClaimConflict says whose).
	ErrAlreadyClaimed = errors.New("the ID is taken")

	// ErrNotOwner means a Release that named an owner met an ID another owner claimed.
	ErrNotOwner = errors.New("the ID is claimed by another owner")

	// ErrNotRegistered means a HiLo pool was asked for a node the cluster does not list (it was
	// removed): its pools are retired, and it gets no more.
	ErrNotRegistered = errors.New("the node is not registered in the cluster")

	// ErrBadReservation means a LocalReservations command carries a number no counter reaches
	// (an etag above math.MaxInt64, a negative pool mark), a pool without a tag, or a seal that
	// is not one digest.
	ErrBadReservation = errors.New("a local reservation is out of range")

	// ErrLimitReached means a database's limit (set at its creation) refuses the call.
	ErrLimitReached = errors.New("the database's limit is reached")

	// ErrDefaultDatabase means DeleteDatabase names the default database, which always exists.
	ErrDefaultDatabase = errors.New("the default database cannot be deleted")

	// ErrInvalidSecret means a proposed cluster secret is shorter than 16 bytes.
	ErrInvalidSecret = errors.New("a cluster secret needs at least 16 bytes")

	// ErrAddressInUse means another registered node has the raft or gRPC address; give the
	// new node addresses of its own.
	ErrAddressInUse = errors.New("address is in use by another node")

	// ErrNodeIDInUse means a node with the same raft ID is registered under another tag.
	ErrNodeIDInUse = errors.New("a node with this raft id is registered under another tag")

	// ErrTagReincarnated means a node came back under its tag with a new, empty data dir. Its
	// etag would restart at 1 and repeat server-side IDs, so it may not use the tag again.
	ErrTagReincarnated = errors.New("this tag belongs to an earlier data dir of this node; its etag would restart at 1 and repeat server-side IDs: " +
		"remove the node from the cluster and join it again so it gets a new tag")

	// ErrRestoreTagInUse means a backup being restored names a tag that a node of this cluster
	// holds. That node's etag did not continue the old node's, so its server-side IDs would
	// repeat the old cluster's: restore into a cluster whose nodes have other tags.
	ErrRestoreTagInUse = errors.New("a node tag of the backup belongs to a node of this cluster; its server-side IDs would repeat the old cluster's: " +
		"restore into a cluster whose nodes use other tags")

	// ErrFoldCollision means moving the state to another fold would make two identity
	// counters, or two claims, one (FoldCollision names them): the state keeps comparing as
	// it did. Release one of the claims, or stop using one of the names, and the leader's next
	// attempt moves it.
	ErrFoldCollision = errors.New("moving to NFKC_Casefold comparison would merge two keys")

	// ErrUnknownFold means a fold version this build does not know, or a move back to an
	// older one: upgrade the node.
	ErrUnknownFold = errors.New("unknown fold version: upgrade this node to the cluster's idnode version")

	// ErrNoFreeTag means every assignable tag is taken or retired; give the node a tag.
	ErrNoFreeTag = errors.New("no free node tag left to assign; give the node a tag explicitly")

	// ErrInvalidWorkerLease means a worker lease call carries a number out of its range (the
	// message names the field): lease_ms outside 1 s..1 h, worker_bits outside 1..22, a worker
	// outside the database's layout, or a holder label over 128 bytes.
	ErrInvalidWorkerLease = errors.New("invalid worker lease request")

	// ErrWorkerBitsDiffer means an AcquireWorker names other worker_bits than the database's
	// layout, fixed by its first lease: two layouts would read the same worker ID in different
	// bits and mint the same IDs. Configure the client with the database's worker bits.
	ErrWorkerBitsDiffer = errors.New("worker_bits differ from the database's layout")

	// ErrWorkersExhausted means every worker ID of the database's layout is leased and none
	// has lapsed: retry once the earliest lease lapses (the message says when), or use a
	// layout with more worker bits in another database.
	ErrWorkersExhausted = errors.New("every worker ID of the layout is leased")

	// ErrWorkerLeaseLost means a renewal or release names a lease that is not the worker's
	// current one: it lapsed and another holder has the worker (fencing), or it was never
	// granted. Stop minting with the worker at once and acquire a new one.
	ErrWorkerLeaseLost = errors.New("the worker lease is not held any more: acquire a new worker")

	// ErrInvalidVersion means a command named a cluster version below 1.
	ErrInvalidVersion = errors.New("invalid cluster version")

	// ErrVersionUnsupported means some node's build does not support the cluster version
	// asked for (the message names those nodes): upgrade them, then finalise.
	ErrVersionUnsupported = errors.New("nodes run builds older than the cluster version")

	// ErrDowngradeTooLate means a downgrade asked for a version below one whose commands the
	// log already holds: a build of the lower version would halt on them.
	ErrDowngradeTooLate = errors.New("the cluster version can no longer be lowered")

	// ErrInvalidOpaque means a MakeOpaque command carries a key that is not 32 bytes or a
	// collection name that cannot be opaque (the message says which and why).
	ErrInvalidOpaque = errors.New("invalid opaque setting")

	// ErrOpaqueKeyDiffers means a backup's restore carries another opaque key than the one the
	// database holds (the message names the database and both keys' fingerprints): the two
	// keys are two permutations, under which a new value could take an old value's form.
	// Restore into a cluster whose database has no key or the backup's.
	ErrOpaqueKeyDiffers = errors.New("the backup's opaque key differs from the database's")

	// ErrOpaqueWouldCollide means a collection (or a database's numeric IDs) cannot turn
	// opaque because a plain ID it may have given has the 13 symbols of a form: an identity
	// counter at or above 10^12 - 1 (the message names the collection and its value), or a
	// database that has leased numeric-ID workers. A restore that would bring workers of plain
	// numeric IDs into a database whose numeric IDs are opaque is refused with it too.
	ErrOpaqueWouldCollide = errors.New("plain IDs already given could equal opaque forms")

	// ErrOpaqueClientLease means an AcquireWorker in a database whose numeric IDs are opaque
	// names a holder that is not a registered node's own minter (NodeHolderPrefix and its
	// tag): a client would mint plain numeric IDs without the key, and a plain one may equal a
	// form. Generate with numeric gives the database's numeric IDs.
	ErrOpaqueClientLease = errors.New("a client cannot lease a worker in a database with opaque numeric IDs")
)
