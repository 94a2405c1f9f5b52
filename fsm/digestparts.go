package fsm

import (
	"hash/crc64"
	"slices"
	"strconv"
)

// Digest parts: beside its digest, a digest mark keeps a checksum of each kind of record the
// digest covers, so that when a member's digest differs from the majority's, the comparison
// can say in what: its identities, its HiLo tags, its request table. They locate a difference
// for whoever looks into it; the digest alone decides whether a replica diverged.

// partNames names each kind of record in DigestParts and in what the leader reports.
var partNames = map[recordType]string{
	identityRecord:         "identities",
	hiloRecord:             "hilo",
	nodeRecord:             "nodes",
	retiredTagRecord:       "retired-tags",
	requestRecord:          "requests",
	clockRecord:            "clock",
	settingsRecord:         "settings",
	databaseRecord:         "databases",
	keyRecord:              "keys",
	claimRecord:            "claims",
	seriesDefinitionRecord: "series",
	seriesEntryRecord:      "series-entries",
	workerRecord:           "workers",
	opaqueSettingRecord:    "opaque-settings",
	fenceRecord:            "fences",
	foldRecord:             "fold",
}

func partName(typ recordType) string {
	if name, ok := partNames[typ]; ok {
		return name
	}
	return "record-" + strconv.Itoa(int(typ))
}

// DigestParts is a checksum (CRC-64) of each kind of record a digest covers, by name.
type DigestParts map[string]uint64

// Differing names the parts whose checksums differ between p and q, a part only one of them
// has included, in order.
func (p DigestParts) Differing(q DigestParts) []string {
	var out []string
	for name, sum := range p {
		if other, ok := q[name]; !ok || other != sum {
			out = append(out, name)
		}
	}
	for name := range q {
		if _, ok := p[name]; !ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

var partTable = crc64.MakeTable(crc64.ECMA)

// partSums checksums each kind of record a recordWriter writes, by record type (a byte).
type partSums struct {
	sum  [256]uint64
	seen [256]bool
}

func (s *partSums) add(typ recordType, header, body []byte) {
	s.sum[typ] = crc64.Update(crc64.Update(s.sum[typ], partTable, header), partTable, body)
	s.seen[typ] = true
}

func (s *partSums) parts() DigestParts {
	out := DigestParts{}
	for typ, seen := range s.seen {
		if seen {
			out[partName(recordType(typ))] = s.sum[typ]
		}
	}
	return out
}
