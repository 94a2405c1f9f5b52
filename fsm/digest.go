package fsm

import (
	"bufio"
	"crypto/sha256"
	"fmt"

	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// The state digest names the replicated state at an applied index, so replicas can tell
// whether they hold the same (DESIGN.md, "State digest"). It is SHA-256 over the state's
// snapshot records as a snapshot writes them (sorted keys, deterministic protobuf), less the
// series journal, with the secrets replaced by their own SHA-256.

// DigestLen is the length of a state digest.
const DigestLen = sha256.Size

// digestDomain starts what is hashed, so a change to what the digest covers is a new domain
// and never an equal digest of other content.
const digestDomain = "idnode-state-digest-v1\n"

// Digest answers the index of the last entry applied and the digest of the state as of it.
// The records are captured under the read lock, as Snapshot captures them, and hashed outside
// it, so the pair is never torn and applies wait only for the capture.
func (f *FSM) Digest() (index uint64, digest []byte, err error) {
	f.mu.RLock()
	records, index := f.st.records(false), f.applied
	f.mu.RUnlock()
	digest, err = digestRecords(records)
	return index, digest, err
}

// digestRecords hashes records as write frames them, skipping the series journal (on disk,
// outside the state). It sorts the records' streams in place, as write does.
func digestRecords(records []snapshotRecord) ([]byte, error) {
	return hashRecords(records, recordWriter{})
}

// digestRecordParts is digestRecords with the checksum of each kind of record.
func digestRecordParts(records []snapshotRecord) ([]byte, DigestParts, error) {
	sums := &partSums{}
	digest, err := hashRecords(records, recordWriter{parts: sums})
	return digest, sums.parts(), err
}

func hashRecords(records []snapshotRecord, rw recordWriter) ([]byte, error) {
	h := sha256.New()
	rw.w = bufio.NewWriterSize(h, 32<<10)
	if _, err := rw.w.WriteString(digestDomain); err != nil {
		return nil, err
	}
	for _, r := range records {
		if r.stream != nil {
			if _, journal := r.stream.(journalStream); journal {
				continue
			}
			if err := r.stream.write(&rw); err != nil {
				return nil, fmt.Errorf("state digest: %w", err)
			}
			continue
		}
		if err := rw.record(r.typ, digestForm(r.msg)); err != nil {
			return nil, fmt.Errorf("state digest: %w", err)
		}
	}
	if err := rw.w.Flush(); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// digestForm is the record as the digest covers it: the cluster secret and a database's
// opaque key by their SHA-256, so a digest that is logged or compared across members carries
// no key material, and a clock record by its clock alone: the digest a snapshot adds to it and
// the rates a backup adds are about the state, not in it.
func digestForm(msg proto.Message) proto.Message {
	switch m := msg.(type) {
	case *raftv1.SettingsRecord:
		if len(m.GetClusterSecret()) > 0 {
			c := proto.CloneOf(m)
			c.ClusterSecret = sha256Of(m.GetClusterSecret())
			return c
		}
	case *raftv1.MakeOpaque:
		c := proto.CloneOf(m)
		c.Key = sha256Of(m.GetKey())
		return c
	case *raftv1.ClockRecord:
		return &raftv1.ClockRecord{NowMs: m.GetNowMs()}
	}
	return msg
}

func sha256Of(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}

// sealed is what a snapshot says of the state it holds: the applied index and the digest, or
// nothing (an older build's snapshot, a backup).
type sealed struct {
	index  uint64
	digest []byte
}

// seal puts the digest of the snapshot's records into its clock record, with the index.
func (s *snapshot) seal() error {
	digest, err := digestRecords(s.records)
	if err != nil {
		return err
	}
	for _, r := range s.records {
		if c, ok := r.msg.(*raftv1.ClockRecord); ok {
			c.StateDigest, c.AppliedIndex = digest, s.index
			return nil
		}
	}
	return fmt.Errorf("state digest: the snapshot has no clock record to carry it")
}

// check refuses a restored state whose digest is not the one its snapshot carries.
func (s sealed) check(st *state) error {
	if s.digest == nil {
		return nil
	}
	got, err := digestRecords(st.records(false))
	if err != nil {
		return err
	}
	if string(got) != string(s.digest) {
		return fmt.Errorf("%w: the snapshot at index %d carries digest %x, its restored state hashes to %x", ErrSnapshotDigestMismatch, s.index, s.digest, got)
	}
	return nil
}
