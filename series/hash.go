package series

import (
	"crypto/sha256"
	"encoding/binary"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// hashVersion starts every entry's canonical bytes, so a later encoding cannot be mistaken
// for this one.
const hashVersion = "idnode-series-v1\n"

// entryHash is SHA-256(prev_hash || canonical(e)): the chain link DESIGN.md documents for
// auditors. It never hashes protobuf bytes, whose encoding is not canonical across versions.
func entryHash(e *raftv1.SeriesEntry) []byte {
	h := sha256.New()
	h.Write(e.GetPrevHash())
	h.Write(canonical(e))
	return h.Sum(nil)
}

// canonical is the entry without its hash, in the fixed order of DESIGN.md: strings and bytes
// as uvarint length then the bytes, numbers as 8 bytes big-endian.
func canonical(e *raftv1.SeriesEntry) []byte {
	b := make([]byte, 0, 256)
	b = append(b, hashVersion...)
	b = appendBytes(b, e.GetDatabase())
	b = appendBytes(b, e.GetSeries())
	b = binary.BigEndian.AppendUint64(b, e.GetSeq())
	b = binary.BigEndian.AppendUint64(b, uint64(e.GetKind()))
	b = appendBytes(b, e.GetPeriod())
	b = binary.BigEndian.AppendUint64(b, uint64(e.GetNumber()))
	b = appendBytes(b, e.GetId())
	b = binary.BigEndian.AppendUint64(b, uint64(e.GetTimeMs()))
	b = appendBytes(b, e.GetRequestId())
	b = appendBytes(b, e.GetDocumentHash())
	b = binary.BigEndian.AppendUint64(b, uint64(len(e.GetFields())))
	for _, f := range e.GetFields() {
		b = appendBytes(b, f.GetKey())
		b = appendBytes(b, f.GetValue())
	}
	b = appendBytes(b, e.GetActor())
	b = appendBytes(b, e.GetReason())
	b = appendBytes(b, e.GetCorrecting())
	return b
}

func appendBytes[T string | []byte](b []byte, s T) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
