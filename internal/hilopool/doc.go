// Package hilopool is a node's HiLo pools: the local, durable store of them ([Store]), per
// database and tag the numbers the cluster reserved through Raft to this node's data dir and
// not yet granted to a client, and the policy of granting from them.
//
// It exists so that NextHiLo keeps working without a quorum. A range granted from
// the node's own pool costs no Raft round, and the node keeps granting while it is cut off
// from the majority, until the pool is used up. Uniqueness comes first: like the etag
// watermark in package etag, a pool's new state is durable on disk before a range is
// answered, so a node that crashes (kill -9, power cut) and restarts never grants a number
// twice. A pool that is lost (a removed node, a deleted file) is a gap in the tag's numbers,
// which HiLo allows, never a duplicate. An older copy of the file put back is a gap too: the
// node records each pool's progress in the cluster and, at start, drops what the record covers
// ([Store.DropThrough]; docs/DESIGN.md, "Older copies of a data dir").
//
// # Policy
//
// [Granter] grants a range from a pool, reserving through the cluster (a [Reserver]) when
// the pool cannot serve it, and tops pools up in the background to a size that outlasts a
// cut-off of a few minutes at the tag's measured traffic. [Answers] replays the answer of a
// request_id retried on the same node. [Marked] puts the store behind the cluster's record of
// how far each pool may have granted (a [Record]), checked at start and published before a
// grant goes above it. The package knows neither gRPC nor Raft: package server supplies the
// reservations, the record and the error table.
//
// # File format
//
// All pools live in one JSON document, replaced whole with [durablefile.WriteFile]:
//
//	{
//	  "version": 2,
//	  "pools": [
//	    {"database": "default", "tag": "users",
//	     "segments": [{"low": 1001, "high": 2000}, {"low": 5001, "high": 9000}],
//	     "last_grant": {"low": 901, "high": 1000, "id": "hilo-…"},
//	     "below_grant": {"low": 869, "high": 900, "id": "hilo-…"}}
//	  ],
//	  "crc32c": "1a2b3c4d"
//	}
//
// Pools are sorted by database then tag, a pool's segments by number, disjoint and never
// adjacent. "last_grant" is the newest range granted from the pool and "below_grant" the one
// right under it, when it was granted just before: the ranges whose unused tail
// [Store.Return] may take back, only from a caller that presents their "id" (the rule of
// package hilogrant). Version 1 files, whose last grant has no id, are read: that grant can
// no longer be returned. "crc32c" is the CRC-32C (Castagnoli), as 8 lower-case hex
// digits, of the compact JSON encoding of "pools": an edited digit could lower a segment into
// numbers already granted, so a file whose content does not match is refused, like one that
// does not parse. The way out is to remove the file (its numbers become gaps).
package hilopool
