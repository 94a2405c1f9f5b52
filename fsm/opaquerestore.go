package fsm

import (
	"fmt"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// A database's numeric IDs are plain or opaque, never both: a plain numeric ID's 13-symbol
// Crockford form has the shape of an opaque form, so the two could be equal. MakeOpaque keeps
// the rule in one cluster (numeric is refused once the database has leased a worker); a
// restore meets it from both sides, and each side's command refuses it as it applies, whatever
// the order of the entries:
//   - workers of a database whose numeric IDs the backup's cluster kept plain, coming into a
//     database whose numeric IDs are opaque here (RaiseFloor, checkWorkerFloors): their holders
//     minted plain IDs there, and could go on minting them here;
//   - a backup whose numeric IDs are opaque, coming into a database that has leased workers
//     here (MakeOpaque with restore).
//
// An identity collection turns opaque only while its counter is below OpaquePlainLimit, so
// every plain ID it gave has fewer than 13 digits. A restore keeps that from both sides too:
//   - a collection opaque in the backup, plain here with its counter at the limit or above
//     (MakeOpaque with restore, newOpaqueCollections);
//   - a counter at the limit or above of a collection the backup's cluster kept plain, so it
//     may have given plain IDs of 13 digits, coming into a collection opaque here (RaiseFloor,
//     checkIdentityFloors).
//
// CheckOpaqueRestore runs all four checks before a restore proposes anything, so a backup of
// several databases moves nothing before one of them is refused.

// plainCounterRefused is the refusal of collection of database turning opaque, whose identity
// counter is at v, at or above OpaquePlainLimit.
func plainCounterRefused(collection, database string, v int64) error {
	return fmt.Errorf("%w: collection %q of database %q has its identity counter at %d; from %d on, a plain ID could have the 13 symbols of an opaque form",
		ErrOpaqueWouldCollide, collection, database, v, int64(OpaquePlainLimit))
}

// plainIdentityRefused is the refusal of a backup's counter v of collection of database, which
// the backup's cluster kept plain, in a collection that is opaque here.
func plainIdentityRefused(collection, database string, v int64) error {
	return fmt.Errorf("%w: collection %q of database %q is opaque here, and the backup's cluster kept it plain up to %d: from %d on, its plain IDs could have the 13 symbols of this cluster's forms",
		ErrOpaqueWouldCollide, collection, database, v, int64(OpaquePlainLimit))
}

// plainCounterMeetsForms reports whether a backup's counter v of the collection keyed key (as
// this state folds it), plain in the backup's cluster, would meet opaque forms in d (nil: the
// cluster lacks the database).
func (d *database) plainCounterMeetsForms(key string, v int64) bool {
	return v >= OpaquePlainLimit && d.opaqueHas(key)
}

// checkIdentityFloors checks a restore's identity counters before any is applied: a counter
// at OpaquePlainLimit or above whose collection is opaque here is refused unless the backup's
// cluster kept that collection opaque too (wasOpaque holds its positions in recs).
func (st *state) checkIdentityFloors(recs []*raftv1.IdentityRecord, wasOpaque []uint32) error {
	opaqueThere := make(map[uint32]bool, len(wasOpaque))
	for _, i := range wasOpaque {
		if int64(i) >= int64(len(recs)) {
			return fmt.Errorf("%w: opaque identity %d of a command of %d identities", ErrInvalidOpaque, i, len(recs))
		}
		opaqueThere[i] = true
	}
	for i, rec := range recs {
		name := DatabaseName(rec.GetDatabase())
		if !opaqueThere[uint32(i)] && st.databases[name].plainCounterMeetsForms(st.key(rec.GetName()), rec.GetValue()) {
			return plainIdentityRefused(rec.GetName(), name, rec.GetValue())
		}
	}
	return nil
}

// plainWorkersRefused is the refusal of a backup's workers of database name, whose numeric IDs
// were plain in the backup's cluster, in a database whose numeric IDs are opaque here.
func plainWorkersRefused(name string) error {
	return fmt.Errorf("%w: database %q has opaque numeric IDs here, and the backup holds workers of its plain numeric IDs: those the backup's cluster minted could equal this cluster's forms",
		ErrOpaqueWouldCollide, name)
}

// leasedNumericRefused is the refusal of numeric IDs turning opaque in database name, which
// has leased workers; restore says the opaque setting is a backup's.
func leasedNumericRefused(name string, restore bool) error {
	if restore {
		return fmt.Errorf("%w: the backup's numeric IDs of database %q are opaque, and that database here has leased numeric-ID workers, whose plain IDs could equal the backup's forms",
			ErrOpaqueWouldCollide, name)
	}
	return fmt.Errorf("%w: database %q has leased numeric-ID workers, whose plain IDs may equal opaque forms: its numeric IDs cannot turn opaque",
		ErrOpaqueWouldCollide, name)
}

// opaqueNumeric are the backup's databases whose numeric IDs are opaque, by name.
func (b *Backup) opaqueNumeric() map[string]bool {
	out := map[string]bool{}
	for _, o := range b.Opaque {
		if o.GetNumeric() {
			out[DatabaseName(o.GetDatabase())] = true
		}
	}
	return out
}

// opaqueIdentitySet are the positions in b.Identities of collections opaque in the backup.
func (b *Backup) opaqueIdentitySet() map[int]bool {
	out := make(map[int]bool, len(b.opaqueIdentities))
	for _, i := range b.opaqueIdentities {
		out[i] = true
	}
	return out
}

// CheckOpaqueRestore reports what the restore of b would meet, as its commands apply, of the
// rules that keep plain IDs and opaque forms apart (see above): a database's numeric IDs are
// plain or opaque, never both, and a collection is opaque only if no plain ID it gave has 13
// digits. It reads the state as it is now; the commands check again as they apply (the
// authority).
func (f *FSM) CheckOpaqueRestore(b *Backup) error {
	f.mu.RLock()
	defer f.mu.RUnlock()
	st := f.st
	numeric := b.opaqueNumeric()
	for _, w := range b.Workers {
		name := DatabaseName(w.GetDatabase())
		if st.databases[name].opaqueNumeric() && !numeric[name] {
			return plainWorkersRefused(name)
		}
	}
	for _, o := range b.Opaque {
		name := DatabaseName(o.GetDatabase())
		d := st.databases[name]
		if err := d.checkNumericTurn(name, o.GetNumeric(), true); err != nil {
			return err
		}
		if _, err := st.newOpaqueCollections(d, name, o.GetCollections()); err != nil {
			return err
		}
	}
	wasOpaque := b.opaqueIdentitySet()
	for i, id := range b.Identities {
		name := DatabaseName(id.Database)
		if !wasOpaque[i] && st.databases[name].plainCounterMeetsForms(st.key(id.Name), id.Value) {
			return plainIdentityRefused(id.Name, name, id.Value)
		}
	}
	return nil
}
