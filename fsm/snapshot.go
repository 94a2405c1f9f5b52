package fsm

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/hashicorp/raft"
	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/series"
)

// A snapshot is a magic header, then records: one type byte, a uvarint length, the protobuf.
// Records come in a fixed order with sorted keys, so two replicas with the same state write
// the same bytes.
const snapshotMagic = "idnode-fsm-snapshot-v1\n"

type recordType byte

const (
	identityRecord   recordType = 1
	hiloRecord       recordType = 2
	nodeRecord       recordType = 3
	retiredTagRecord recordType = 4
	requestRecord    recordType = 5
	clockRecord      recordType = 6
	settingsRecord   recordType = 7
	databaseRecord   recordType = 8
	keyRecord        recordType = 9
	claimRecord      recordType = 10
	// The series journals (series_snapshot.go) come last: the journal record, then each
	// series' definition followed by its entries.
	seriesJournalRecord    recordType = 30
	seriesDefinitionRecord recordType = 31
	seriesEntryRecord      recordType = 32
	workerRecord           recordType = 40
	// opaqueSettingRecord is a database's opaque setting and key: a MakeOpaque, restore unset.
	opaqueSettingRecord recordType = 70
	// fenceRecord is a member fenced for a diverged state (fence.go).
	fenceRecord recordType = 81
	// foldRecord comes first when there is one: the records after it are keyed by its fold.
	foldRecord recordType = 50
)

// newRestorers is the table of snapshot records: one function each that puts a record back.
// Each snapshot read makes its own, so the records that come by the million (counters, tags,
// claims) can decode into one message reused for all of them.
func newRestorers() map[recordType]func(st *state, data []byte) error {
	var worker raftv1.WorkerRecord // reused, as restoredInto's
	return map[recordType]func(st *state, data []byte) error{
		workerRecord: func(st *state, data []byte) error {
			if err := proto.Unmarshal(data, &worker); err != nil {
				return err
			}
			return workerLeases{st}.restoreWorker(&worker)
		},
		opaqueSettingRecord: decoded((*state).restoreOpaque),
		identityRecord: restoredInto(func(st *state, r *raftv1.IdentityRecord) {
			st.dbForFloors(r.GetDatabase()).setIdentity(st.key(r.GetName()), r.GetName(), r.GetValue())
		}),
		hiloRecord: restoredInto(func(st *state, r *raftv1.HiLoRecord) {
			h := &hiloState{max: r.GetMax(), lastLow: r.GetLastLow(), floor: r.GetFloor(), grants: grantsOf(r)}
			for _, p := range r.GetPools() {
				if h.pools == nil {
					h.pools = make(map[string]int64)
				}
				h.pools[p.GetMemberId()] = p.GetReserved()
			}
			d := st.dbForFloors(r.GetDatabase())
			d.hilo[foldKey(r.GetTag())] = h
			d.largestHiLo.note(foldKey(r.GetTag()), h.max)
		}),
		claimRecord: restoredInto(func(st *state, r *raftv1.ClaimRecord) {
			// The claim is indexed by prefix once the whole snapshot is read (indexClaims),
			// because the separator comes later in it.
			st.dbForFloors(r.GetDatabase()).putClaim(st.key(r.GetId()), claim{id: r.GetId(), owner: r.GetOwner()})
		}),
		keyRecord: restored(func(st *state, r *raftv1.KeyRecord) {
			st.keys[r.GetId()] = &Key{ID: r.GetId(), Database: DatabaseName(r.GetDatabase()), Role: r.GetRole(), SecretSHA256: r.GetSecretSha256()}
		}),
		databaseRecord: restored(func(st *state, r *raftv1.DatabaseRecord) {
			d := st.dbForFloors(r.GetName())
			d.deleted, d.maxIdentities, d.maxCallsPerSecond, d.maxClaims = r.GetDeleted(), r.GetMaxIdentities(), r.GetMaxCallsPerSecond(), r.GetMaxClaims()
		}),
		nodeRecord: restored(func(st *state, r *raftv1.NodeRecord) {
			st.nodes[r.GetTag()] = Node{Tag: r.GetTag(), ID: r.GetId(), RaftAddress: r.GetRaftAddress(), GRPCAddress: r.GetGrpcAddress(), Incarnation: r.GetIncarnation()}
			if res := restoredReservations(r); res.Etag > 0 || res.Pools != nil || res.Seal != nil {
				st.reserved[r.GetTag()] = res
			}
			if v := r.GetSupportedVersion(); v > 0 {
				st.versions[r.GetTag()] = NodeVersion{Version: v, Build: r.GetBuild()}
			}
		}),
		retiredTagRecord: restored(func(st *state, r *raftv1.RetiredTagRecord) {
			st.retired[r.GetTag()] = true
		}),
		fenceRecord: restored(func(st *state, r *raftv1.ReplicaFence) {
			st.fences[r.GetId()] = r
		}),
		requestRecord: restored(func(st *state, r *raftv1.RequestRecord) {
			st.requests.byID[requestKey(r.GetDatabase(), r.GetRequestId())] = r
			st.requests.queue = append(st.requests.queue, r)
		}),
		clockRecord: restored(func(st *state, r *raftv1.ClockRecord) {
			st.requests.nowMs = r.GetNowMs()
		}),
		foldRecord: func(st *state, data []byte) error {
			var f raftv1.Fold
			if err := proto.Unmarshal(data, &f); err != nil {
				return err
			}
			return st.applyFoldRecord(&f)
		},
		settingsRecord: restored(func(st *state, r *raftv1.SettingsRecord) {
			st.separator = r.GetSeparator()
			st.clusterSecret = r.GetClusterSecret()
			st.clusterVersion, st.versionUsed = r.GetClusterVersion(), r.GetVersionUsed()
		}),
	}
}

// decoded decodes each record into a new message and hands it to put, which may keep it.
func decoded[M any, PM interface {
	*M
	proto.Message
}](put func(*state, PM) error) func(*state, []byte) error {
	return func(st *state, data []byte) error {
		m := PM(new(M))
		if err := proto.Unmarshal(data, m); err != nil {
			return err
		}
		return put(st, m)
	}
}

// restored works like decoded, for records that put writes into the state and that cannot
// fail.
func restored[M any, PM interface {
	*M
	proto.Message
}](put func(*state, PM)) func(*state, []byte) error {
	return decoded(func(st *state, m PM) error {
		put(st, m)
		return nil
	})
}

// restoredInto decodes every record into the same message (Unmarshal resets it and copies
// strings and bytes out of data), for puts that copy the fields out.
func restoredInto[M any, PM interface {
	*M
	proto.Message
}](put func(*state, PM)) func(*state, []byte) error {
	m := PM(new(M))
	return func(st *state, data []byte) error {
		if err := proto.Unmarshal(data, m); err != nil {
			return err
		}
		put(st, m)
		return nil
	}
}

// snapshotRecord is one record to write, or a stream of records of one type (the counters,
// tags or claims of one database: see snapshot_streams.go).
type snapshotRecord struct {
	typ    recordType
	msg    proto.Message
	stream recordStream
}

// records lists the state as snapshot records, in the order they are written. The records
// of a backup leave the cluster secret out.
func (st *state) records(backup bool) []snapshotRecord {
	out := st.foldRecords()
	names := sortedKeys(st.databases)
	for _, name := range names {
		if name != DefaultDatabase {
			d := st.databases[name]
			out = append(out, snapshotRecord{typ: databaseRecord, msg: &raftv1.DatabaseRecord{
				Name: name, Deleted: d.deleted, MaxIdentities: d.maxIdentities, MaxCallsPerSecond: d.maxCallsPerSecond, MaxClaims: d.maxClaims,
			}})
		}
	}
	// The default database's records name none, so a state with only the default writes the
	// same bytes as before databases.
	for _, name := range names {
		out = append(out, st.databases[name].records(recordName(name))...)
	}
	for _, k := range sortedKeys(st.nodes) {
		n := st.nodes[k]
		rec := &raftv1.NodeRecord{Tag: n.Tag, Id: n.ID, RaftAddress: n.RaftAddress, GrpcAddress: n.GRPCAddress, Incarnation: n.Incarnation}
		reservationsRecord(rec, st.reserved[k])
		if nv, ok := st.versions[k]; ok {
			rec.SupportedVersion, rec.Build = nv.Version, nv.Build
		}
		out = append(out, snapshotRecord{typ: nodeRecord, msg: rec})
	}
	for _, k := range sortedKeys(st.retired) {
		out = append(out, snapshotRecord{typ: retiredTagRecord, msg: &raftv1.RetiredTagRecord{Tag: k}})
	}
	// A backup is not a set of credentials to the cluster it came from, and a fence names a
	// member of this cluster, not of the one the backup goes to.
	if !backup {
		out = append(out, st.fenceRecords()...)
		for _, id := range sortedKeys(st.keys) {
			k := st.keys[id]
			out = append(out, snapshotRecord{typ: keyRecord, msg: &raftv1.KeyRecord{Id: k.ID, Database: recordName(k.Database), Role: k.Role, SecretSha256: k.SecretSHA256}})
		}
	}
	settings := &raftv1.SettingsRecord{Separator: st.separator, ClusterVersion: st.clusterVersion, VersionUsed: st.versionUsed}
	if !backup {
		settings.ClusterSecret = st.clusterSecret
	}
	if settings.GetSeparator() != "" || len(settings.GetClusterSecret()) > 0 || st.clusterVersion > 0 || st.versionUsed > 0 {
		out = append(out, snapshotRecord{typ: settingsRecord, msg: settings})
	}
	out = append(out, snapshotRecord{typ: clockRecord, msg: &raftv1.ClockRecord{NowMs: st.requests.nowMs}})
	for _, r := range st.requests.live() {
		out = append(out, snapshotRecord{typ: requestRecord, msg: r})
	}
	return out
}

// records lists the database's counters, tags, claims, workers and opaque setting as snapshot
// records naming it rec.
func (d *database) records(rec string) []snapshotRecord {
	var out []snapshotRecord
	if len(d.identities) > 0 {
		out = append(out, snapshotRecord{typ: identityRecord, stream: d.captureIdentities(rec)})
	}
	if len(d.hilo) > 0 {
		out = append(out, snapshotRecord{typ: hiloRecord, stream: captureHiLo(d.hilo, rec)})
	}
	if len(d.claims) > 0 {
		out = append(out, snapshotRecord{typ: claimRecord, stream: captureClaims(d.claims, rec)})
	}
	if d.workers != nil {
		out = append(out, snapshotRecord{typ: workerRecord, stream: d.workers.capture(rec)})
	}
	if r := d.opaqueRecord(rec); r != nil {
		out = append(out, snapshotRecord{typ: opaqueSettingRecord, msg: r})
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Snapshot implements raft.FSM. It captures the records under the lock (the messages are
// fresh copies or never mutated after recording) and writes them outside it.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) {
	if err := f.FlushSeries(); err != nil {
		return nil, err
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.halted {
		return nil, ErrHalted
	}
	snap := &snapshot{records: f.st.records(false), index: f.applied, sealed: true}
	if err := f.captureJournal(snap, (*series.Store).Capture); err != nil {
		return nil, err
	}
	return snap, nil
}

type snapshot struct {
	records []snapshotRecord
	// journal is the series journal as of the snapshot, held until Persist ends or Release.
	journal     *series.Capture
	releaseOnce sync.Once
	// index is the applied index the records were captured at. A raft snapshot is sealed:
	// Persist writes the digest of its state and index in its clock record (digest.go); a
	// backup is not.
	index  uint64
	sealed bool
}

var _ raft.FSMSnapshot = (*snapshot)(nil)

func (s *snapshot) Persist(sink raft.SnapshotSink) error {
	// The journal's view is let go once written: raft.RecoverCluster persists a snapshot and
	// never releases it, and a view held keeps series.db open after the node closes.
	defer s.Release()
	if s.sealed {
		if err := s.seal(); err != nil {
			return errors.Join(err, sink.Cancel())
		}
	}
	if err := s.write(sink); err != nil {
		return errors.Join(err, sink.Cancel())
	}
	return sink.Close()
}

// write writes the snapshot in its framed form.
func (s *snapshot) write(w io.Writer) error {
	rw := recordWriter{w: bufio.NewWriter(w)}
	if _, err := rw.w.WriteString(snapshotMagic); err != nil {
		return err
	}
	for _, r := range s.records {
		if r.stream != nil {
			if err := r.stream.write(&rw); err != nil {
				return err
			}
			continue
		}
		if err := rw.record(r.typ, r.msg); err != nil {
			return err
		}
	}
	return rw.w.Flush()
}

// recordWriter frames records: the type byte, the uvarint length, the protobuf. Its buffers
// are reused from record to record.
type recordWriter struct {
	w   *bufio.Writer
	hdr [1 + binary.MaxVarintLen64]byte
	buf []byte
	// parts, when set, checksums each kind of record too (digestparts.go).
	parts *partSums
}

func (rw *recordWriter) record(typ recordType, msg proto.Message) error {
	var err error
	rw.buf, err = proto.MarshalOptions{Deterministic: true}.MarshalAppend(rw.buf[:0], msg)
	if err != nil {
		return fmt.Errorf("encode snapshot record %d: %w", typ, err)
	}
	rw.hdr[0] = byte(typ)
	n := binary.PutUvarint(rw.hdr[1:], uint64(len(rw.buf)))
	if _, err := rw.w.Write(rw.hdr[:1+n]); err != nil {
		return err
	}
	if rw.parts != nil {
		rw.parts.add(typ, rw.hdr[:1+n], rw.buf)
	}
	_, err = rw.w.Write(rw.buf)
	return err
}

func (s *snapshot) Release() {
	s.releaseOnce.Do(func() {
		if s.journal != nil {
			s.journal.Release()
		}
	})
}

// maxRecordSize guards against a corrupt length turning into a huge allocation.
const maxRecordSize = 16 << 20

// Restore implements raft.FSM: it replaces the whole state with the snapshot's.
func (f *FSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	store, err := f.Series()
	if err != nil {
		return err
	}
	var restoring *series.Restorer
	if store != nil {
		restoring = store.Restore()
	}
	st, seal, err := readSnapshot(rc, journalRestorers(restoring))
	if restoring != nil {
		if err == nil {
			err = restoring.Finish()
		} else {
			restoring.Abort()
		}
	}
	if err != nil {
		return err
	}
	if seal.digest == nil {
		f.logger().Info("restored a snapshot that carries no state digest (written by an older idnode): its state was not checked")
	}
	f.mu.Lock()
	st.journal = f.journal
	st.marks = f.marks
	f.st = st
	f.applied = seal.index
	f.mu.Unlock()
	return nil
}

// readSnapshot reads a snapshot into a new state, and its series part through journal (nil:
// skipped). A snapshot that carries a state digest is checked against the state read; it
// answers what the snapshot carried (nothing for an older build's snapshot or a backup).
func readSnapshot(r io.Reader, journal map[recordType]func(*state, []byte) error) (*state, sealed, error) {
	var seal sealed
	br := bufio.NewReader(r)
	magic := make([]byte, len(snapshotMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != snapshotMagic {
		return nil, seal, fmt.Errorf("not an idnode FSM snapshot (bad header)")
	}
	st := newState()
	restorers := newRestorers()
	if journal == nil {
		journal = journalRestorers(nil)
	}
	// The clock record is the state's clock whoever else reads it: a backup's reader takes the
	// rates it carries as well, and the state it restores keeps its clock.
	restoreClock := restorers[clockRecord]
	alsoClock := journal[clockRecord]
	for typ, restore := range journal {
		restorers[typ] = restore
	}
	restorers[clockRecord] = func(st *state, data []byte) error {
		var c raftv1.ClockRecord
		if err := proto.Unmarshal(data, &c); err != nil {
			return err
		}
		if len(c.GetStateDigest()) > 0 {
			seal = sealed{index: c.GetAppliedIndex(), digest: c.GetStateDigest()}
		}
		if err := restoreClock(st, data); err != nil {
			return err
		}
		if alsoClock != nil {
			return alsoClock(st, data)
		}
		return nil
	}
	var data []byte // reused: every restorer copies what it keeps
	for {
		typ, err := br.ReadByte()
		if err == io.EOF {
			claimBook{st}.indexClaims()
			if err := seal.check(st); err != nil {
				return nil, seal, err
			}
			return st, seal, nil
		}
		if err != nil {
			return nil, seal, fmt.Errorf("read snapshot: %w", err)
		}
		size, err := binary.ReadUvarint(br)
		if err != nil || size > maxRecordSize {
			return nil, seal, fmt.Errorf("snapshot record %d: bad length", typ)
		}
		data = slices.Grow(data[:0], int(size))[:size]
		if _, err := io.ReadFull(br, data); err != nil {
			return nil, seal, fmt.Errorf("snapshot record %d truncated: %w", typ, err)
		}
		restore, ok := restorers[recordType(typ)]
		if !ok {
			return nil, seal, fmt.Errorf("snapshot has unknown record type %d: written by a newer idnode", typ)
		}
		if err := restore(st, data); err != nil {
			return nil, seal, fmt.Errorf("snapshot record %d: %w", typ, err)
		}
	}
}
