// Package etag is the node-local 64-bit counter behind server-side IDs (the request strategies are
// in docs/DESIGN.md): the request "users/" becomes "users/0000000000000000001-A", where the number
// is the node's etag and "A" its tag.
//
// # Guarantees
//
// Etags handed out by one node are always increasing and never repeat —
// across restarts, kill -9 and power loss — but they are not consecutive: a
// crash skips numbers. They are not coordinated with other nodes; the node
// tag makes the ID unique. The largest etag is [Max] (math.MaxInt64, 19
// decimal digits, so it always fits the 19-digit ID format and an int64);
// past it [Counter.Next] fails with [ErrExhausted] instead of wrapping.
//
// # The watermark
//
// Syncing the disk for every ID would cap a node at a few hundred or
// thousand IDs per second. Instead the counter persists a reserve-ahead
// watermark W meaning "this node may have handed out etags up to W", and it
// hands out a number only once a watermark at or above it is durable. On
// start it resumes at W+1. A crash therefore loses at most the unused part of
// the reservation (skipped numbers), never repeats one. One sync covers
// `reserve` numbers (default [DefaultReserve]), so the cost per ID is one
// atomic compare-and-swap; only the caller that crosses the watermark (and
// any caller that arrives while it is syncing above it) waits for the disk.
//
// A watermark is made durable by writing a temporary file next to the
// watermark file, fsyncing it, renaming it over the watermark file and
// fsyncing the directory. The rename is atomic, so after a crash the file
// holds either the old or the new watermark, complete; both are at least as
// high as every etag that was handed out.
//
// # An older copy of the file
//
// A file put back from an older copy (a VM snapshot, a backup) holds a lower
// watermark than the node reached. The counter alone cannot tell; the node
// can: [Counter.OnRaise] tells it each new watermark before its etags go out,
// and it records the watermark in the cluster; at start it asks for the
// record and calls [Counter.SkipThrough] when the record is higher, so an
// older file costs a gap (docs/DESIGN.md, "Older copies of a data dir").
//
// # File format
//
// The watermark file is one line of text:
//
//	idnode-etag v1 <watermark> <crc32c>\n
//
// for example "idnode-etag v1 200000 1a2b3c4d\n", where <watermark> is the
// canonical decimal watermark and <crc32c> is the CRC-32C (Castagnoli) of
// everything before the last space, as 8 lower-case hex digits. Text, so an
// operator can read it with cat during an incident; a magic word and version
// so a future format can be recognised; a checksum because a silently
// changed digit (bit rot, a stray editor) could lower the watermark and
// repeat IDs. A file that does not parse exactly is an error ([ErrCorrupt],
// [ErrVersion]); the counter never falls back to 0, because that would repeat
// IDs under the same node tag. The way out is a backup of the file or a new
// node (empty data directory, new tag).
//
// Next to the watermark file live "<file>.tmp" (the write in progress; a
// leftover one is harmless and overwritten) and "<file>.lock", which the
// open [Counter] holds an exclusive flock on (Unix), so two processes cannot
// hand out the same etags from one file ([ErrLocked]).
//
// A missing watermark file means a fresh counter: [Open] creates it with
// watermark 0 and the first etag is 1. Callers that know the node already
// existed (its tag is registered) must not let a lost file go unnoticed;
// that check belongs to whoever owns the data directory.
package etag
