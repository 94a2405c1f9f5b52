// A backup holds keys when a database of it has an opaque setting: its key reads every opaque
// ID of the database back to its counter value, so such a backup is a secret. BackupHoldsKeys
// tells so from a backup's bytes without decoding its records, BackupKeyDatabases names the
// databases (idctl backup says "this backup holds the keys of databases X and Y: it is a
// secret"), and Backup.HoldsKeys tells so from a parsed backup.

package fsm

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/series"
)

// WriteBackup writes the current state to w in the snapshot format (a backup file is a
// snapshot), the series journals last. The records and a view of the journals are captured
// under the read lock and written outside it, the journals an entry at a time. For a
// consistent backup of the cluster, call it on the leader after a read barrier. The cluster's
// issue rates are recorded when rates has a time (IssueRates{}: none), for a restore's margin
// by rates.
func (f *FSM) WriteBackup(w io.Writer, rates IssueRates) error {
	if err := f.FlushSeries(); err != nil {
		return err
	}
	f.mu.RLock()
	snap := &snapshot{records: withRates(f.st.records(true), rates), index: f.applied}
	err := f.captureJournal(snap, (*series.Store).Capture)
	f.mu.RUnlock()
	if err != nil {
		return err
	}
	defer snap.Release()
	// Sealed as a raft snapshot is, over the records it holds (no secret, no keys): ReadBackup
	// checks the file against it.
	if err := snap.seal(); err != nil {
		return err
	}
	return snap.write(w)
}

// captureJournal adds to snap a view of the series journals that capture takes, when the FSM
// has a store. Call it under the read lock, so the view matches the records.
func (f *FSM) captureJournal(snap *snapshot, capture func(*series.Store) (*series.Capture, error)) error {
	if f.journal.store == nil {
		return nil
	}
	c, err := capture(f.journal.store)
	if err != nil {
		return fmt.Errorf("capture the series journal: %w", err)
	}
	snap.journal = c
	snap.records = append(snap.records, snapshotRecord{stream: journalStream{c}})
	return nil
}

// WriteDatabaseBackup writes one database's counters and series to w in the snapshot format:
// its identities, HiLo maxima, claims and series journals, nothing of the cluster (nodes,
// tags, settings, request answers), with the cluster's issue rates as WriteBackup records them.
func (f *FSM) WriteDatabaseBackup(w io.Writer, database string, rates IssueRates) error {
	if err := f.FlushSeries(); err != nil {
		return err
	}
	f.mu.RLock()
	d, err := f.st.db(database)
	snap := &snapshot{}
	if err == nil {
		snap.records = f.st.foldRecords() // first, as in a snapshot: the keys below are folded by it
		name := DatabaseName(database)
		if name != DefaultDatabase {
			snap.records = append(snap.records, snapshotRecord{typ: databaseRecord, msg: &raftv1.DatabaseRecord{Name: name}})
		}
		snap.records = withRates(append(snap.records, d.records(recordName(name))...), rates)
		err = f.captureJournal(snap, func(s *series.Store) (*series.Capture, error) { return s.CaptureDatabase(name) })
	}
	f.mu.RUnlock()
	if err != nil {
		return err
	}
	defer snap.Release()
	return snap.write(w)
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
	// Series are the backup's fiscal series, sorted by database, then lower-case name.
	Series []SeriesBackup
	// Workers are the backup's numeric-ID workers, sorted by database, then worker.
	Workers []*raftv1.WorkerRecord
	// Opaque are the opaque settings of the backup's databases, with their keys, sorted by
	// database: a backup that has any is a secret (HoldsKeys).
	Opaque []*raftv1.MakeOpaque
	// Rates are when the backup was taken and its cluster's issue rates; none (zero) in a
	// backup of an older build.
	Rates IssueRates
	// Index and StateDigest are what the backup says of the state it holds, which ReadBackup
	// checked: the applied index and the state digest; zero and nil in a backup of an older
	// build or of one database.
	Index       uint64
	StateDigest []byte
	// lastRanges are the sizes of the HiLo tags' last ranges, as HiLo: a margin by rates skips
	// at least that much of a tag.
	lastRanges []int64
	// opaqueIdentities are the positions in Identities of the counters of collections that
	// were opaque in the backup's cluster, as its fold compared them, ascending.
	opaqueIdentities []int
}

// HoldsKeys reports whether the backup holds an opaque key (see BackupHoldsKeys).
func (b *Backup) HoldsKeys() bool {
	return len(b.Opaque) > 0
}

// OpaqueCommands are the MakeOpaque commands that put the backup's opaque settings and keys
// back, restore set: one a database. Propose them before RaiseFloorCommands, so a database
// whose key differs refuses the restore before any floor moved, and so a collection's check
// against plain IDs (a counter at 10^12 - 1 or more) meets this cluster's own counter, not the
// backup's raised into it. A repeated restore finds the collections opaque and checks nothing.
func (b *Backup) OpaqueCommands() []*raftv1.MakeOpaque {
	out := make([]*raftv1.MakeOpaque, len(b.Opaque))
	for i, o := range b.Opaque {
		out[i] = &raftv1.MakeOpaque{Database: o.GetDatabase(), Collections: o.GetCollections(), Numeric: o.GetNumeric(), Key: o.GetKey(), Restore: true}
	}
	return out
}

// BackupHoldsKeys reports whether the backup (or snapshot) read from r holds an opaque key. It
// reads the records' framing only, and stops at the first key.
func BackupHoldsKeys(r io.Reader) (bool, error) {
	held := false
	err := scanBackupKeys(r, func(string) bool {
		held = true
		return false
	})
	return held, err
}

// SeriesBackup is a series as a backup holds it: its definition and head, and its journal.
type SeriesBackup struct {
	Definition *raftv1.SeriesDefinition
	Entries    []*raftv1.SeriesEntry // in seq order
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

// MaxBackupBytes bounds the backup a restore takes: it is held in memory whole.
const MaxBackupBytes = 1 << 30

// ReadBackup reads a backup (snapshot) file, its series journals whole. A backup that carries
// a state digest must match it (ErrSnapshotDigestMismatch); one an older build wrote carries
// none.
func ReadBackup(r io.Reader) (*Backup, error) {
	b := &Backup{}
	st, seal, err := readSnapshot(r, b.backupReaders())
	if err != nil {
		return nil, err
	}
	b.Index, b.StateDigest = seal.index, seal.digest
	for _, name := range sortedKeys(st.databases) {
		d := st.databases[name]
		for _, k := range sortedKeys(d.identities) {
			if d.opaqueHas(k) {
				b.opaqueIdentities = append(b.opaqueIdentities, len(b.Identities))
			}
			b.Identities = append(b.Identities, Identity{Database: name, Name: d.identityName(k), Value: d.identities[k]})
		}
		for _, k := range sortedKeys(d.hilo) {
			h := d.hilo[k]
			b.HiLo = append(b.HiLo, HiLoMax{Database: name, Tag: k, Max: h.max})
			b.lastRanges = append(b.lastRanges, max(h.max-h.lastLow+1, 0))
		}
		for _, k := range sortedKeys(d.claims) {
			c := d.claims[k]
			b.Claims = append(b.Claims, Claim{Database: name, ID: c.id, Owner: c.owner})
		}
		if d.workers != nil {
			b.Workers = append(b.Workers, d.workers.capture(recordName(name)).messages()...)
		}
		if o := d.opaqueRecord(recordName(name)); o != nil {
			b.Opaque = append(b.Opaque, o)
		}
	}
	b.Tags = append(b.Tags, sortedKeys(st.nodes)...)
	b.Tags = append(b.Tags, sortedKeys(st.retired)...)
	slices.Sort(b.Tags)
	b.Tags = slices.Compact(b.Tags)
	return b, nil
}

// withRates records rates in the clock record of records (one is added when there is none,
// as in a database's backup). A restore reads them (ReadBackup); a state read from the backup
// keeps only the clock.
func withRates(records []snapshotRecord, rates IssueRates) []snapshotRecord {
	if !rates.Recorded() {
		return records
	}
	rec := &raftv1.BackupRates{TakenAtMs: rates.TakenAt.UnixMilli(), IdentitiesPerSecond: rates.IdentitiesPerSecond, HiloPerSecond: rates.HiLoPerSecond}
	for i, r := range records {
		if r.typ == clockRecord {
			records[i].msg = &raftv1.ClockRecord{NowMs: r.msg.(*raftv1.ClockRecord).GetNowMs(), Backup: rec}
			return records
		}
	}
	return append(records, snapshotRecord{typ: clockRecord, msg: &raftv1.ClockRecord{Backup: rec}})
}

// backupReaders collect a backup's rates into b.Rates and its series records into b.Series.
// The cluster checks the series when it applies them (series.Tx.Restore); here only their
// order.
func (b *Backup) backupReaders() map[recordType]func(*state, []byte) error {
	return map[recordType]func(*state, []byte) error{
		clockRecord: restored(func(_ *state, r *raftv1.ClockRecord) {
			if t := r.GetBackup(); t != nil {
				b.Rates = IssueRates{TakenAt: time.UnixMilli(t.GetTakenAtMs()), IdentitiesPerSecond: t.GetIdentitiesPerSecond(), HiLoPerSecond: t.GetHiloPerSecond()}
			}
		}),
		seriesJournalRecord: func(*state, []byte) error { return nil },
		seriesDefinitionRecord: into(func(d *raftv1.SeriesDefinition) error {
			b.Series = append(b.Series, SeriesBackup{Definition: d})
			return nil
		}),
		seriesEntryRecord: into(func(e *raftv1.SeriesEntry) error {
			if len(b.Series) == 0 {
				return errors.New("a series entry before its definition")
			}
			last := &b.Series[len(b.Series)-1]
			last.Entries = append(last.Entries, e)
			return nil
		}),
	}
}

// RestoreSeriesCommands splits the backup's series into RestoreSeries commands, each within
// the bounds of one (series.MaxRestoreEntries, series.MaxRestoreBytes). A series with no
// entries is one command, which creates it.
func (b *Backup) RestoreSeriesCommands() []*raftv1.RestoreSeries {
	var out []*raftv1.RestoreSeries
	for _, s := range b.Series {
		// Each entry costs its size and its field's framing (a tag and a length, < 8 bytes).
		budget := series.MaxRestoreBytes - proto.Size(&raftv1.RestoreSeries{Definition: s.Definition}) - 8
		cur := &raftv1.RestoreSeries{Definition: s.Definition}
		size := 0
		for _, e := range s.Entries {
			n := proto.Size(e) + 8
			if len(cur.Entries) == series.MaxRestoreEntries || (len(cur.Entries) > 0 && size+n > budget) {
				out = append(out, cur)
				cur, size = &raftv1.RestoreSeries{Definition: s.Definition}, 0
			}
			cur.Entries = append(cur.Entries, e)
			size += n
		}
		out = append(out, cur)
	}
	return out
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
	// Workers first: a layout this cluster does not share, or workers that minted plain
	// numeric IDs coming into a database whose numeric IDs are opaque here, refuses the restore
	// before any counter moved. Each command names the databases of its workers whose numeric
	// IDs the backup's cluster kept opaque (the workers are sorted by database).
	numeric := b.opaqueNumeric()
	for _, w := range b.Workers {
		next()
		cur.Workers = append(cur.Workers, w)
		if db := w.GetDatabase(); numeric[DatabaseName(db)] {
			if names := cur.OpaqueNumericDatabases; len(names) == 0 || names[len(names)-1] != db {
				cur.OpaqueNumericDatabases = append(cur.OpaqueNumericDatabases, db)
			}
		}
	}
	for _, tag := range b.Tags {
		next()
		cur.RetiredTags = append(cur.RetiredTags, tag)
	}
	// Each command names the positions of its counters whose collections were opaque in the
	// backup's cluster: any other, at 10^12 - 1 or more, is refused in a collection opaque here.
	wasOpaque := b.opaqueIdentitySet()
	for i, id := range b.Identities {
		next()
		if wasOpaque[i] {
			cur.OpaqueIdentities = append(cur.OpaqueIdentities, uint32(len(cur.Identities)))
		}
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
