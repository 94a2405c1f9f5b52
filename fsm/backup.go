package fsm

import (
	"io"
	"slices"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// WriteBackup writes the current state to w in the snapshot format (a backup file is a
// snapshot). The records are captured under the read lock and written outside it. For a
// consistent backup of the cluster, call it on the leader after a read barrier.
func (f *FSM) WriteBackup(w io.Writer) error {
	f.mu.RLock()
	recs := f.st.records(true)
	f.mu.RUnlock()
	return (&snapshot{records: recs}).write(w)
}

// WriteDatabaseBackup writes one database's counters to w in the snapshot format: its
// identities, HiLo maxima and claims, nothing of the cluster (nodes, tags, settings, request answers).
func (f *FSM) WriteDatabaseBackup(w io.Writer, database string) error {
	f.mu.RLock()
	d, err := f.st.db(database)
	var recs []snapshotRecord
	if err == nil {
		recs = f.st.foldRecords() // first, as in a snapshot: the keys below are folded by it
		name := DatabaseName(database)
		if name != DefaultDatabase {
			recs = append(recs, snapshotRecord{typ: databaseRecord, msg: &raftv1.DatabaseRecord{Name: name}})
		}
		recs = append(recs, d.records(recordName(name))...)
	}
	f.mu.RUnlock()
	if err != nil {
		return err
	}
	return (&snapshot{records: recs}).write(w)
}

// Backup is what a restore takes from a backup file: the floors that the new cluster must not
// go below and the tags it must never use. Answers to request ids and the log clock are not
// restored: a retry of an old request gets new values (a gap, never a duplicate).
type Backup struct {
	Identities []Identity // sorted by database, then folded name
	HiLo       []HiLoMax  // sorted by database, then folded tag
	// Tags are every node tag the backup's cluster used, registered or retired, sorted.
	Tags []string
	// Claims are the backup's claimed IDs, sorted by database, then folded ID.
	Claims []Claim
}

// Claim is a claimed semantic ID.
type Claim struct {
	Database string // canonical: DefaultDatabase, not ""
	ID       string // as the claim spelled it
	Owner    string
}

// HiLoMax is the highest number ever reserved for a HiLo tag of a database.
type HiLoMax struct {
	Database string // canonical: DefaultDatabase, not ""
	Tag      string
	Max      int64
}

// ReadBackup reads a backup (snapshot) file.
func ReadBackup(r io.Reader) (*Backup, error) {
	st, err := readSnapshot(r, nil)
	if err != nil {
		return nil, err
	}
	b := &Backup{}
	for _, name := range sortedKeys(st.databases) {
		d := st.databases[name]
		for _, k := range sortedKeys(d.identities) {
			b.Identities = append(b.Identities, Identity{Database: name, Name: d.identityName(k), Value: d.identities[k]})
		}
		for _, k := range sortedKeys(d.hilo) {
			b.HiLo = append(b.HiLo, HiLoMax{Database: name, Tag: k, Max: d.hilo[k].max})
		}
		for _, k := range sortedKeys(d.claims) {
			c := d.claims[k]
			b.Claims = append(b.Claims, Claim{Database: name, ID: c.id, Owner: c.owner})
		}
	}
	b.Tags = append(b.Tags, sortedKeys(st.nodes)...)
	b.Tags = append(b.Tags, sortedKeys(st.retired)...)
	slices.Sort(b.Tags)
	b.Tags = slices.Compact(b.Tags)
	return b, nil
}

// RaiseFloorCommands splits the backup into RaiseFloor commands of at most perCommand records
// each, so no log entry grows without bound. The tags come first: if the cluster refuses one,
// it does so before any counter was raised.
func (b *Backup) RaiseFloorCommands(perCommand int) []*raftv1.RaiseFloor {
	perCommand = max(perCommand, 1)
	var out []*raftv1.RaiseFloor
	cur := &raftv1.RaiseFloor{}
	n := 0
	next := func() {
		n++
		if n > perCommand {
			out = append(out, cur)
			cur, n = &raftv1.RaiseFloor{}, 1
		}
	}
	for _, tag := range b.Tags {
		next()
		cur.RetiredTags = append(cur.RetiredTags, tag)
	}
	for _, id := range b.Identities {
		next()
		cur.Identities = append(cur.Identities, &raftv1.IdentityRecord{Database: recordName(DatabaseName(id.Database)), Name: id.Name, Value: id.Value})
	}
	for _, h := range b.HiLo {
		next()
		cur.Hilo = append(cur.Hilo, &raftv1.HiLoRecord{Database: recordName(DatabaseName(h.Database)), Tag: h.Tag, Max: h.Max})
	}
	for _, c := range b.Claims {
		next()
		cur.Claims = append(cur.Claims, &raftv1.ClaimRecord{Database: recordName(DatabaseName(c.Database)), Id: c.ID, Owner: c.Owner})
	}
	if n > 0 {
		out = append(out, cur)
	}
	return out
}
