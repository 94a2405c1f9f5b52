package series

import (
	"encoding/hex"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// vectorEntry is the worked example of DESIGN.md: an auditor's script must find vectorHash.
func vectorEntry() *raftv1.SeriesEntry {
	return &raftv1.SeriesEntry{
		Database: "default", Series: "INV", Seq: 2, Kind: issued, Period: "2026", Number: 2,
		Id: "INV-2026-000002", TimeMs: 1767225600000, RequestId: "req-2", DocumentHash: []byte{0xde, 0xad},
		Fields:   []*raftv1.SeriesField{{Key: "amount", Value: "12.50"}, {Key: "customer", Value: "ACME"}},
		Actor:    "key-1",
		PrevHash: make([]byte, 32),
	}
}

const vectorHash = "12aab368401cb01cc7c611cefe7b23821fdcbb9010b5344ecefa7f3d1412b3bd"

func TestHashVector(t *testing.T) {
	if got := hex.EncodeToString(entryHash(vectorEntry())); got != vectorHash {
		t.Fatalf("hash %s, want %s (DESIGN.md's example)", got, vectorHash)
	}
}
