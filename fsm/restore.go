package fsm

import (
	"fmt"

	"github.com/idnode/idnode/docid"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// RaiseFloorResult answers a RaiseFloor command: how many counters it raised and tags it
// retired (the rest were already at or above the backup's values).
type RaiseFloorResult struct {
	IdentitiesRaised int
	HiLoRaised       int
	TagsRetired      int
	ClaimsRestored   int
	WorkersRaised    int
}

// applyRaiseFloor raises identity counters and HiLo maxima to at least a backup's values and
// retires the backup's node tags. It never lowers anything, so applying it twice, or applying
// an older backup after a newer one, changes nothing. It is all or nothing: a bad record or a
// tag held by a registered node refuses the whole command before anything changes.
func (st *state) applyRaiseFloor(r *raftv1.RaiseFloor) any {
	for _, id := range r.GetIdentities() {
		if id.GetName() == "" || id.GetValue() < 0 {
			return fmt.Errorf("%w: identity %q = %d", ErrNegativeValue, id.GetName(), id.GetValue())
		}
		if err := docid.ValidateDatabaseRef(id.GetDatabase()); err != nil {
			return err
		}
	}
	for _, h := range r.GetHilo() {
		if h.GetTag() == "" || h.GetMax() < 0 {
			return fmt.Errorf("%w: hilo %q max %d", ErrNegativeValue, h.GetTag(), h.GetMax())
		}
		if err := docid.ValidateDatabaseRef(h.GetDatabase()); err != nil {
			return err
		}
	}
	for _, tag := range r.GetRetiredTags() {
		if err := docid.ValidateNodeTag(tag); err != nil {
			return err
		}
		if _, used := st.nodes[tag]; used {
			return fmt.Errorf("%w (tag %s)", ErrRestoreTagInUse, tag)
		}
	}
	for _, c := range r.GetClaims() {
		if c.GetId() == "" {
			return fmt.Errorf("%w: a restored claim has no ID", ErrInvalidCount)
		}
		if err := docid.ValidateDatabaseRef(c.GetDatabase()); err != nil {
			return err
		}
	}
	if err := (workerLeases{st}).checkWorkerFloors(r.GetWorkers(), r.GetOpaqueNumericDatabases()); err != nil {
		return err
	}
	if err := st.checkIdentityFloors(r.GetIdentities(), r.GetOpaqueIdentities()); err != nil {
		return err
	}
	var res RaiseFloorResult
	for _, rec := range r.GetWorkers() {
		if st.dbForFloors(rec.GetDatabase()).raiseWorker(rec) {
			res.WorkersRaised++
		}
	}
	for _, tag := range r.GetRetiredTags() {
		if !st.retired[tag] {
			st.retired[tag] = true
			res.TagsRetired++
		}
	}
	// A database of the backup that this cluster lacks is created with the floors.
	for _, id := range r.GetIdentities() {
		d, key := st.dbForFloors(id.GetDatabase()), st.key(id.GetName())
		current, exists := d.identities[key]
		if !exists || id.GetValue() > current {
			d.setIdentity(key, id.GetName(), id.GetValue())
		}
		if id.GetValue() > current {
			res.IdentitiesRaised++
		}
	}
	for _, rec := range r.GetHilo() {
		// A range of the old cluster cannot be returned here (see raise).
		d, key := st.dbForFloors(rec.GetDatabase()), foldKey(rec.GetTag())
		if d.hiloTag(key).raise(rec.GetMax()) {
			d.largestHiLo.note(key, rec.GetMax())
			res.HiLoRaised++
		}
	}
	// A claim comes back as it was, unless this cluster has one for the ID already (that one
	// keeps its owner). Identities this cluster handed out are not checked: a restore into a
	// cluster that served the same prefixes meets two histories either way.
	sep := st.separatorKey()
	for _, c := range r.GetClaims() {
		d, key := st.dbForFloors(c.GetDatabase()), st.key(c.GetId())
		if _, held := d.claims[key]; !held {
			d.addClaim(key, claim{id: c.GetId(), owner: c.GetOwner()}, sep)
			res.ClaimsRestored++
		}
	}
	return res
}
