package series

import (
	"encoding/binary"
	"fmt"
	"strings"

	"go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// series.db holds two top-level buckets:
//
//	meta     "applied" → raft index of the last series command applied (8 bytes big-endian)
//	series   one bucket per series, keyed database 0x00 lower-case name (so sorted by both):
//	           "def"      → SeriesDefinition (deterministic protobuf), the series' head
//	           entries    seq (8 bytes big-endian) → SeriesEntry (deterministic protobuf)
//	           requests   request_id → seq of the entry it made
//	           numbers    period 0x00 number (8 bytes big-endian) → seq of its issue, seq of its
//	                      void (8 bytes big-endian each, 0 for none)
var (
	bucketMeta     = []byte("meta")
	bucketSeries   = []byte("series")
	bucketEntries  = []byte("entries")
	bucketRequests = []byte("requests")
	bucketNumbers  = []byte("numbers")
	keyApplied     = []byte("applied")
	keyDef         = []byte("def")
)

// defaultDatabase is what an empty database name means (fsm.DefaultDatabase; this package
// sits below fsm and cannot import it).
const defaultDatabase = "default"

// databaseName is the canonical database name the store keys and records by.
func databaseName(db string) string {
	if db == "" {
		return defaultDatabase
	}
	return strings.ToLower(db)
}

// seriesKey names a series' bucket.
func seriesKey(db, name string) []byte {
	return []byte(databaseName(db) + "\x00" + strings.ToLower(name))
}

// databasePrefix is the start of every series key of a database.
func databasePrefix(db string) []byte { return []byte(databaseName(db) + "\x00") }

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

func numberKey(period string, n int64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte(period), 0), uint64(n))
}

// numberUse is a number's row of the numbers bucket.
type numberUse struct{ issued, voided uint64 }

func (u numberUse) bytes() []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, u.issued), u.voided)
}

func decodeNumberUse(v []byte) (numberUse, error) {
	if len(v) != 16 {
		return numberUse{}, fmt.Errorf("%w: a number's row is %d bytes, not 16", ErrCorrupt, len(v))
	}
	return numberUse{binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:])}, nil
}

func decodeSeq(v []byte) (uint64, error) {
	if len(v) != 8 {
		return 0, fmt.Errorf("%w: a seq is %d bytes, not 8", ErrCorrupt, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

var marshal = proto.MarshalOptions{Deterministic: true}

func decodeDefinition(v []byte) (*raftv1.SeriesDefinition, error) {
	d := new(raftv1.SeriesDefinition)
	if err := proto.Unmarshal(v, d); err != nil {
		return nil, fmt.Errorf("%w: a definition does not decode: %v", ErrCorrupt, err)
	}
	return d, nil
}

func decodeEntry(v []byte) (*raftv1.SeriesEntry, error) {
	e := new(raftv1.SeriesEntry)
	if err := proto.Unmarshal(v, e); err != nil {
		return nil, fmt.Errorf("%w: an entry does not decode: %v", ErrCorrupt, err)
	}
	return e, nil
}

// seriesBucket is a series' bucket, or ErrNoSeries.
func seriesBucket(tx *bbolt.Tx, db, name string) (*bbolt.Bucket, error) {
	b := tx.Bucket(bucketSeries).Bucket(seriesKey(db, name))
	if b == nil {
		return nil, fmt.Errorf("%w: %q in database %q", ErrNoSeries, name, databaseName(db))
	}
	return b, nil
}

// readDefinition is the definition in a series' bucket.
func readDefinition(b *bbolt.Bucket) (*raftv1.SeriesDefinition, error) {
	return decodeDefinition(b.Get(keyDef))
}

// entryAt is the entry at seq, or nil.
func entryAt(b *bbolt.Bucket, seq uint64) (*raftv1.SeriesEntry, error) {
	v := b.Bucket(bucketEntries).Get(seqKey(seq))
	if v == nil {
		return nil, nil
	}
	return decodeEntry(v)
}

func readApplied(tx *bbolt.Tx) uint64 {
	v := tx.Bucket(bucketMeta).Get(keyApplied)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}
