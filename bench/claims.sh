#!/usr/bin/env bash
# bench/claims.sh — what claims cost one idnode node (claims must cost a bounded
# amount of memory and time each): for each size
# N, a fresh single node on loopback is filled with N claims by `idbench --strategy claim`
# (1000 IDs per Claim, "users/<caller>-<seq>", no owner), and the script records
#
#   - the resident set (/proc/PID/status VmRSS) before and after, and the live heap after a
#     forced GC (GET /debug/pprof/heap?gc=1, then go_memstats_heap_alloc_bytes on /metrics);
#   - a Raft snapshot: the log is padded past SnapshotThreshold with single identities (an
#     entry each, state unchanged but for one counter), raft takes the snapshot on its own
#     timer, and its time is read from raft's "starting snapshot" / "snapshot complete" log
#     lines, its size from snapshots/*/state.bin, the peak resident set while it ran from VmHWM
#     (reset first through /proc/PID/clear_refs);
#   - a restart: SIGTERM, then the node again on the same data dir, timed to SERVING (gRPC
#     health, `idnode health`) and to the first answered GetClaims of a claimed ID
#     (`idctl claims users/<caller>-0`), and the resident set after it.
#
# Then, unless IDENTITY=0: `users|` identities at 16 callers on a fresh node, before and after
# 10^5 claims of identity-shaped `users/<n>` IDs (which every identity of users then looks up),
# and `orders|` (no claims on that prefix) after.
#
# It prints markdown (the machine, one table row per N, the identity lines) on stdout; progress
# goes to stderr. Every process it starts and its temp dir go away on exit, Ctrl-C included.
# The node's start-up, snapshot and restart are bench/lib.sh's, shared with bench/state_growth.sh.
#
#   bench/claims.sh                                 # ~6 minutes on 2 cores
#   SIZES=100000 IDENTITY=0 bench/claims.sh          # one size, no identity lines
#
# Settings (environment):
#   SIZES              claims per run, multiples of 1000, at most 2000000 (default "100000 1000000")
#   CALLERS            idbench callers filling the claims (default 8)
#   IDENTITY           1: also the identity lines (default 1)
#   IDENTITY_DURATION  length of each identity run, whole seconds 1s–30s (default 10s)
#   PORT_BASE          loopback ports PORT_BASE..+2: gRPC, Raft, metrics (default 32400)
set -euo pipefail

SIZES=${SIZES:-"100000 1000000"}
CALLERS=${CALLERS:-8}
IDENTITY=${IDENTITY:-1}
IDENTITY_DURATION=${IDENTITY_DURATION:-10s}

BENCH=claims
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

for n in $SIZES; do
	[[ $n =~ ^[0-9]+$ ]] && ((n >= 1000 && n <= 2000000 && n % 1000 == 0)) || die "SIZES must be multiples of 1000 up to 2000000, got '$n'"
done
[[ $CALLERS =~ ^[0-9]+$ ]] && ((CALLERS >= 1 && CALLERS <= 64)) || die "CALLERS must be 1–64, got '$CALLERS'"
[[ $IDENTITY == 0 || $IDENTITY == 1 ]] || die "IDENTITY must be 0 or 1"
[[ $IDENTITY_DURATION =~ ^([0-9]+)s$ ]] && ((BASH_REMATCH[1] >= 1 && BASH_REMATCH[1] <= 30)) || die "IDENTITY_DURATION must be 1s–30s"
IDENTITY_SECS=${IDENTITY_DURATION%s}
bench_init

# claimed ID: GetClaims answers with ID among the claims.
claimed() { "$IDCTL" --addr "$GRPC" claims "$1" --json 2>/dev/null | jq -e --arg id "$1" 'any(.[]; .id == $id)'; }

machine_table
echo
echo "| claims | fill | RSS empty → filled | live heap after GC (per claim) | snapshot bytes (per claim) | snapshot written | RSS peak while snapshotting | stop | restart → SERVING (snapshot restore) | → first GetClaims | RSS after restart | raft.db |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"

for N in $SIZES; do
	DATA=$TMP/data-$N
	log "N=$N: fresh node"
	start "$DATA" "$TMP/node-$N.log"
	wait_for "SERVING" "$START_TIMEOUT" serving
	rss0=$(status_kb "$NODE" VmRSS) heap0=$(heap)

	log "N=$N: filling $N claims ($((N / 1000)) Claim calls of 1000, $CALLERS callers)"
	fill=$(timeout 660 "$IDBENCH" --nodes "$GRPC" --strategy claim --count 1000 --concurrency "$CALLERS" \
		--ops $((N / 1000)) --prefix users --timeout 30s --json --progress=false) || die "idbench claim failed: $fill"
	ids=$(jq -r .ids <<<"$fill") errs=$(jq -r .errors <<<"$fill") fill_s=$(jq -r .duration_s <<<"$fill")
	((ids == N && errs == 0)) || die "the fill claimed $ids IDs with $errs errors, want $N and none: $fill"
	# The ID a restart is probed with: the first ID of a caller that made a call.
	firsts=()
	for ((c = 0; c < CALLERS; c++)); do firsts+=("users/$c-0"); done
	probe=$("$IDCTL" --addr "$GRPC" claims "${firsts[@]}" --json | jq -r '.[0].id // empty')
	[[ -n $probe ]] || die "none of ${firsts[*]} is claimed after the fill"
	rss1=$(status_kb "$NODE" VmRSS) heap1=$(heap)
	others
	log "N=$N: filled in ${fill_s}s; RSS ${rss0} → ${rss1} kB, live heap $heap0 → $heap1 bytes"

	snapshot "$DATA" "$TMP/node-$N.log"
	others
	log "N=$N: snapshot $SNAP_BYTES bytes in $SNAP_MS ms; restarting"
	restart "$DATA" "$TMP/restart-$N.log" claimed "$probe"
	log "N=$N: SERVING after $(secs "$T_SERVING")s, GetClaims after $(secs "$T_PROBE")s; snapshot restored in $RESTORE_MS ms"
	others
	stop_s=$STOP_S
	stop
	rm -rf "$DATA"

	per_claim=$(((heap1 - heap0) / N))
	printf '| %s | %ss (%s claims/s) | %s → %s | %s (%d B) | %s (%.1f B) | %.2fs | %s | %ss | %ss (%.2fs) | %ss | %s | %s |\n' \
		"$N" "$(printf %.1f "$fill_s")" "$(jq -r '.ids_per_sec | floor' <<<"$fill")" \
		"$(mb $((rss0 * 1024)))" "$(mb $((rss1 * 1024)))" "$(mb "$heap1")" "$per_claim" \
		"$(mb "$SNAP_BYTES")" "$(awk -v b="$SNAP_BYTES" -v n="$N" 'BEGIN { print b / n }')" \
		"$(awk -v ms="$SNAP_MS" 'BEGIN { print ms / 1000 }')" "$SNAP_PEAK" \
		"$stop_s" "$(secs "$T_SERVING")" "$(awk -v ms="$RESTORE_MS" 'BEGIN { print ms / 1000 }')" "$(secs "$T_PROBE")" "$(mb $((RSS_AFTER * 1024)))" "$(mb "$RAFTDB_BYTES")"
done

if ((IDENTITY)); then
	DATA=$TMP/data-identity
	log "identities: fresh node; users| at 16 callers for $IDENTITY_DURATION, before and after 100000 claims of users/<n>"
	start "$DATA" "$TMP/node-identity.log"
	wait_for "SERVING" "$START_TIMEOUT" serving
	ident() { # LABEL PREFIX: one identity run, one markdown line (a | in LABEL is escaped: \|)
		local out
		out=$(timeout $((IDENTITY_SECS + 60)) "$IDBENCH" --nodes "$GRPC" --strategy identity --concurrency 16 \
			--duration "$IDENTITY_DURATION" --prefix "$2" --json --progress=false) || die "identity run failed: $out"
		jq -r --arg l "$1" 'def ms: . * 100 | round / 100;
			"| \($l) | \(.ids_per_sec | floor) | \(.latency_ms.p50 | ms) | \(.latency_ms.p99 | ms) | \(.errors) |"' <<<"$out"
		others
	}
	echo
	echo "| identities, 16 callers, $IDENTITY_DURATION | IDs/s | p50 ms | p99 ms | errors |"
	echo "|---|--:|--:|--:|--:|"
	ident '`users\|`, no claims' users
	fill=$(timeout 300 "$IDBENCH" --nodes "$GRPC" --strategy claim --claim-ids numbers --count 1000 --concurrency "$CALLERS" \
		--ops 100 --prefix users --timeout 30s --json --progress=false) || die "idbench claim failed: $fill"
	[[ $(jq -r '.ids == 100000 and .errors == 0' <<<"$fill") == true ]] || die "the numbers fill went wrong: $fill"
	ident '`users\|`, 100,000 claims `users/<n>` (n ≥ 10¹²)' users
	ident '`orders\|`, same node, no claims on the prefix' orders
	others
	stop
fi
echo
others_line
log "done"
