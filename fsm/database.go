package fsm

import (
	"fmt"
	"math"

	"github.com/idnode/idnode/docid"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// DefaultDatabase always exists and cannot be deleted; an empty database name means it, so
// calls and log entries from before databases keep their meaning.
const DefaultDatabase = "default"

// database is one application's counters: identities and HiLo maxima.
type database struct {
	identities map[string]int64 // counter values by state.key(name)
	// spellings are the first callers' spellings of the counters whose names were not already
	// folded ("Users" for the counter "users"), for listing. Most names are lower case; a
	// spelling beside every value would make each counter's map slot 40 bytes instead of 24
	// (docs/BENCHMARKS.md, "State growth").
	spellings map[string]string
	hilo      map[string]*hiloState // by foldKey(tag)
	claims    map[string]claim      // by state.key(id)
	// claimedNumbers holds the numbers of the claims in the identity format ("prefix/N") by
	// folded prefix, so an identity skips the claims in its span by walking them
	// (claimednumbers.go); a prefix with none has no entry.
	claimedNumbers map[string]*claimedNumbers
	// formClaims holds, by folded identity prefix, the last parts of the claims that have the
	// shape of an opaque form, and formNumbers, by opaque collection, the values those forms
	// stand for, which its counter skips (opaqueclaims.go). Both are nil until needed.
	formClaims  map[string]map[string]bool
	formNumbers map[string]*claimedNumbers
	// deleted databases refuse every call but keep their counters as floors: created again,
	// they go on after the values they handed out before.
	deleted bool
	// The limits are set when the database is created, 0 meaning none: how many identity
	// counters it may have, and how many calls a second each node takes for it (the server
	// enforces that one, not the FSM).
	maxIdentities     int64
	maxCallsPerSecond float64
	maxClaims         int64 // 0: DefaultMaxClaims
	// workers are the worker leases of numeric IDs (workers.go); nil until the first.
	workers *workerSet
	// opaque is the database's opaque setting (opaque.go); nil until it first turned opaque.
	opaque *opaqueState
	// largestIdentity and largestHiLo are the largest counter and HiLo Max (headroom.go).
	largestIdentity, largestHiLo counterMax
}

// newCounterAllowed refuses a new identity counter past the database's limit.
func (d *database) newCounterAllowed(name string) error {
	if d.maxIdentities > 0 && int64(len(d.identities)) >= d.maxIdentities {
		return fmt.Errorf("%w: the database has its %d identity counters; %q would be one more", ErrLimitReached, d.maxIdentities, name)
	}
	return nil
}

func newDatabase() *database {
	return &database{identities: make(map[string]int64), spellings: make(map[string]string), hilo: make(map[string]*hiloState),
		claims: make(map[string]claim), claimedNumbers: make(map[string]*claimedNumbers)}
}

func (d *database) empty() bool {
	return len(d.identities) == 0 && len(d.hilo) == 0 && len(d.claims) == 0 && d.workers == nil
}

// DatabaseName is the canonical form of a database name: folded, with "" meaning the default.
// Everything that keys by database (the FSM, API keys, call limits, metric labels) uses it.
func DatabaseName(name string) string {
	if name == "" {
		return DefaultDatabase
	}
	return foldKey(name)
}

// recordName is how a record names the database: "" for the default, as before databases.
func recordName(name string) string {
	if name == DefaultDatabase {
		return ""
	}
	return name
}

// db returns the database called name, or ErrDatabaseNotFound when there is none or it was
// deleted.
func (st *state) db(name string) (*database, error) {
	d := st.databases[DatabaseName(name)]
	if d == nil || d.deleted {
		return nil, fmt.Errorf("%w: %q (see ClusterService/ListDatabases)", ErrDatabaseNotFound, DatabaseName(name))
	}
	return d, nil
}

// dbForFloors returns the database called name and creates it if need be, as restoring a
// snapshot or a backup does.
func (st *state) dbForFloors(name string) *database {
	name = DatabaseName(name)
	d := st.databases[name]
	if d == nil {
		d = newDatabase()
		st.databases[name] = d
	}
	return d
}

// ValidateLimits checks a new database's limits, naming the field that breaks the rule: 0
// (none, or the default claim limit) or positive, and a finite number of calls. The server
// checks them before Raft, the FSM again (a replica does not trust its proposer).
func ValidateLimits(maxIdentities, maxClaims int64, maxCallsPerSecond float64) error {
	switch {
	case maxIdentities < 0:
		return fmt.Errorf("%w: max_identities must be 0 (no limit) or positive, got %d", ErrInvalidCount, maxIdentities)
	case maxClaims < 0:
		return fmt.Errorf("%w: max_claims must be 0 (the default, %d) or positive, got %d", ErrInvalidCount, DefaultMaxClaims, maxClaims)
	case !(maxCallsPerSecond >= 0) || math.IsInf(maxCallsPerSecond, 1):
		return fmt.Errorf("%w: max_calls_per_second must be 0 (no limit) or a positive number, got %v", ErrInvalidCount, maxCallsPerSecond)
	}
	return nil
}

func (st *state) applyCreateDatabase(c *raftv1.CreateDatabase) any {
	if err := docid.ValidateDatabaseName(c.GetName()); err != nil {
		return err
	}
	if err := ValidateLimits(c.GetMaxIdentities(), c.GetMaxClaims(), c.GetMaxCallsPerSecond()); err != nil {
		return err
	}
	name := DatabaseName(c.GetName())
	d := st.databases[name]
	switch {
	case d == nil:
		d = newDatabase()
		st.databases[name] = d
	case d.deleted:
		d.deleted = false
		st.deleteKeysOf(name) // left by a build that kept them when it deleted the database
	default:
		return fmt.Errorf("%w: %q", ErrDatabaseExists, name)
	}
	d.maxIdentities, d.maxCallsPerSecond, d.maxClaims = c.GetMaxIdentities(), c.GetMaxCallsPerSecond(), c.GetMaxClaims()
	return nil
}

func (st *state) applyDeleteDatabase(c *raftv1.DeleteDatabase) any {
	name := DatabaseName(c.GetName())
	if name == DefaultDatabase {
		return ErrDefaultDatabase
	}
	d, err := st.db(name)
	if err != nil {
		return err
	}
	if !d.empty() && !c.GetForce() {
		return fmt.Errorf("%w: %q has %d identities, %d HiLo tags, %d claims and %d workers", ErrDatabaseNotEmpty, name, len(d.identities), len(d.hilo), len(d.claims), d.workerCount())
	}
	d.deleted = true // its counters and opaque setting stay (opaque.go)
	st.deleteKeysOf(name)
	return nil
}
