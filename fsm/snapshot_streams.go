package fsm

import (
	"slices"
	"strings"

	"github.com/idnode/idnode/internal/hilogrant"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// A snapshot captures a database's identity counters, HiLo tags and claims as flat copies of
// their maps, and sorts them and turns them into records only when it is written. FSM.Snapshot
// runs in raft's FSM goroutine, which applies nothing meanwhile: sorting 10⁶ keys there and
// allocating a message for each stalled every write to the cluster for seconds and left
// ~300 bytes of garbage per entry until the snapshot was written (docs/BENCHMARKS.md, "State
// growth" and "Claims"). A copy is one small struct per entry; Persist, in the background,
// sorts it and writes every record through one reused message and buffer, so the bytes are
// the same as a message per entry gives.

// recordStream is the records of one type of one database, captured and not yet written.
type recordStream interface {
	// write writes the records in the order of their folded keys. It sorts in place: a
	// snapshot is written once.
	write(rw *recordWriter) error
}

// identityRecords are one database's identity counters.
type identityRecords struct {
	database string // as the records name it
	entries  []identityEntry
}

type identityEntry struct {
	key, name string
	value     int64
}

func (d *database) captureIdentities(rec string) *identityRecords {
	ir := &identityRecords{database: rec, entries: make([]identityEntry, 0, len(d.identities))}
	for k, v := range d.identities {
		ir.entries = append(ir.entries, identityEntry{key: k, name: d.identityName(k), value: v})
	}
	return ir
}

func (ir *identityRecords) write(rw *recordWriter) error {
	slices.SortFunc(ir.entries, func(a, b identityEntry) int { return strings.Compare(a.key, b.key) })
	msg := &raftv1.IdentityRecord{Database: ir.database}
	for _, e := range ir.entries {
		msg.Name, msg.Value = e.name, e.value
		if err := rw.record(identityRecord, msg); err != nil {
			return err
		}
	}
	return nil
}

// hiloRecords are one database's HiLo tags.
type hiloRecords struct {
	database string
	entries  []hiloEntry
}

type hiloEntry struct {
	key                 string
	max, lastLow, floor int64
	grants              hilogrant.Stack
	// pools is copied at capture: a later reservation changes the tag's map in place. Most
	// tags have none (HiLo pools are off by default).
	pools []*raftv1.HiLoPoolRecord
}

func captureHiLo(tags map[string]*hiloState, rec string) *hiloRecords {
	hr := &hiloRecords{database: rec, entries: make([]hiloEntry, 0, len(tags))}
	for k, h := range tags {
		e := hiloEntry{key: k, max: h.max, lastLow: h.lastLow, floor: h.floor, grants: h.grants}
		if len(h.pools) > 0 {
			for _, id := range sortedKeys(h.pools) {
				e.pools = append(e.pools, &raftv1.HiLoPoolRecord{MemberId: id, Reserved: h.pools[id]})
			}
		}
		hr.entries = append(hr.entries, e)
	}
	return hr
}

func (hr *hiloRecords) write(rw *recordWriter) error {
	slices.SortFunc(hr.entries, func(a, b hiloEntry) int { return strings.Compare(a.key, b.key) })
	msg := &raftv1.HiLoRecord{Database: hr.database}
	for _, e := range hr.entries {
		msg.Tag, msg.Max, msg.LastLow, msg.Floor, msg.Pools = e.key, e.max, e.lastLow, e.floor, e.pools
		msg.GrantId, msg.GrantLow = e.grants.Newest.ID, e.grants.Newest.Low
		msg.BelowGrantId, msg.BelowLow = e.grants.Below.ID, e.grants.Below.Low
		if err := rw.record(hiloRecord, msg); err != nil {
			return err
		}
	}
	return nil
}

// claimRecords are one database's claims.
type claimRecords struct {
	database string
	entries  []claimEntry
}

type claimEntry struct {
	key string // folded: the order of the records
	claim
}

func captureClaims(claims map[string]claim, rec string) *claimRecords {
	cr := &claimRecords{database: rec, entries: make([]claimEntry, 0, len(claims))}
	for k, c := range claims {
		cr.entries = append(cr.entries, claimEntry{key: k, claim: c})
	}
	return cr
}

func (cr *claimRecords) write(rw *recordWriter) error {
	slices.SortFunc(cr.entries, func(a, b claimEntry) int { return strings.Compare(a.key, b.key) })
	msg := &raftv1.ClaimRecord{Database: cr.database}
	for _, e := range cr.entries {
		msg.Id, msg.Owner = e.id, e.owner
		if err := rw.record(claimRecord, msg); err != nil {
			return err
		}
	}
	return nil
}
