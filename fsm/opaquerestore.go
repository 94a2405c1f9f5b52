package fsm

import "fmt"

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
// CheckNumericRestore runs both checks before a restore proposes anything, so a backup of
// several databases moves nothing before one of them is refused.

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

// CheckNumericRestore reports what the restore of b would meet, as its commands apply, of the
// rule that a database's numeric IDs are plain or opaque, never both (see above). It reads the
// state as it is now; the commands check again as they apply (the authority).
func (f *FSM) CheckNumericRestore(b *Backup) error {
	f.mu.RLock()
	defer f.mu.RUnlock()
	numeric := b.opaqueNumeric()
	for _, w := range b.Workers {
		name := DatabaseName(w.GetDatabase())
		if d := f.st.databases[name]; d != nil && d.opaque != nil && d.opaque.numeric && !numeric[name] {
			return plainWorkersRefused(name)
		}
	}
	for _, o := range b.Opaque {
		name := DatabaseName(o.GetDatabase())
		if d := f.st.databases[name]; o.GetNumeric() && d != nil && d.workers != nil && (d.opaque == nil || !d.opaque.numeric) {
			return leasedNumericRefused(name, true)
		}
	}
	return nil
}
