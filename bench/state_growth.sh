#!/usr/bin/env bash
# bench/state_growth.sh — how a node's costs grow with its state (each counter or tag must
# cost a bounded amount): for each size N and each kind (identity counters, then HiLo tags), a
# fresh single node on loopback gets N counters (or tags) named growth-0 … growth-<N-1> from
# `idbench --names N --ops N` (one Generate{"growth-<k>|"} or NextHiLo{"growth-<k>"} each,
# CALLERS callers), and the script records
#
#   - the resident set (VmRSS) before and after, and the live heap after a forced GC, per
#     counter or tag;
#   - identity (or NextHiLo) p50/p99 at LATENCY_CALLERS callers for LATENCY_DURATION, going
#     round the N existing counters (tags);
#   - a Raft snapshot: its size, raft's time to write it, the peak resident set meanwhile;
#   - a restart: SIGTERM, then the node again on the same data dir, timed to SERVING and to
#     the first identity of growth-0 (the first range of tag growth-0) above what the fill
#     handed out, and the resident set after it.
#
# The node's start-up, snapshot and restart are bench/lib.sh's, shared with bench/claims.sh.
# It prints markdown (the machine, one table row per kind and N) on stdout; progress goes to
# stderr. Every process it starts and its temp dir go away on exit, Ctrl-C included.
#
#   bench/state_growth.sh                          # 10³ … 10⁶ counters and tags
#   SIZES="1000 10000" TAGS=0 bench/state_growth.sh # a quick look, counters only
#
# Settings (environment):
#   SIZES             counters (and tags) per run, 1000 … 2000000 (default "1000 10000 100000 1000000")
#   TAGS              1: also a row of HiLo tags per size (default 1)
#   CALLERS           idbench callers creating them (default 64)
#   LATENCY_CALLERS   callers of the latency run (default 64)
#   LATENCY_DURATION  length of the latency run, whole seconds 1s–60s (default 10s)
#   PORT_BASE         loopback ports PORT_BASE..+2: gRPC, Raft, metrics (default 32410)
set -euo pipefail

SIZES=${SIZES:-"1000 10000 100000 1000000"}
TAGS=${TAGS:-1}
CALLERS=${CALLERS:-64}
LATENCY_CALLERS=${LATENCY_CALLERS:-64}
LATENCY_DURATION=${LATENCY_DURATION:-10s}
PORT_BASE=${PORT_BASE:-32410}

BENCH=state_growth
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

for n in $SIZES; do
	[[ $n =~ ^[0-9]+$ ]] && ((n >= 1000 && n <= 2000000)) || die "SIZES must be 1000–2000000, got '$n'"
done
[[ $TAGS == 0 || $TAGS == 1 ]] || die "TAGS must be 0 or 1"
for v in CALLERS LATENCY_CALLERS; do
	[[ ${!v} =~ ^[0-9]+$ ]] && ((${!v} >= 1 && ${!v} <= 256)) || die "$v must be 1–256, got '${!v}'"
done
[[ $LATENCY_DURATION =~ ^([0-9]+)s$ ]] && ((BASH_REMATCH[1] >= 1 && BASH_REMATCH[1] <= 60)) || die "LATENCY_DURATION must be 1s–60s"
LATENCY_SECS=${LATENCY_DURATION%s}
bench_init

# The probes after a restart: an answer above what the fill and the latency run handed out
# shows the restored state serving (growth-0 got 1, or the range 1–32, from the fill).
identity_probe() { "$IDCTL" --addr "$GRPC" next 'growth-0|' --json | jq -e '.ids[0] | split("/")[-1] | tonumber > 1'; }
tag_probe() { "$IDCTL" --addr "$GRPC" hilo next growth-0 --json | jq -e '(.low | tonumber) > 32'; }

# measure KIND N: one fresh node, N counters (KIND counters) or tags (KIND tags), one row.
measure() {
	local kind=$1 n=$2 strategy=identity probe=identity_probe data logf
	[[ $kind == tags ]] && strategy=hilo-range probe=tag_probe
	data=$TMP/data-$kind-$n logf=$TMP/node-$kind-$n.log
	log "$kind=$n: fresh node"
	start "$data" "$logf"
	wait_for "SERVING" "$START_TIMEOUT" serving
	local rss0 heap0
	rss0=$(status_kb "$NODE" VmRSS) heap0=$(heap)

	log "$kind=$n: creating them ($strategy, $CALLERS callers)"
	local fill ops errs
	fill=$(timeout 660 "$IDBENCH" --nodes "$GRPC" --strategy "$strategy" --names "$n" --ops "$n" --prefix growth \
		--concurrency "$CALLERS" --timeout 30s --json --progress=false) || die "idbench $strategy failed: $fill"
	ops=$(jq -r .ops <<<"$fill") errs=$(jq -r .errors <<<"$fill")
	((ops >= n && errs == 0)) || die "the fill made $ops calls with $errs errors, want $n and none: $fill"
	local rss1 heap1
	rss1=$(status_kb "$NODE" VmRSS) heap1=$(heap)
	others
	log "$kind=$n: created in $(jq -r .duration_s <<<"$fill")s; RSS $rss0 → $rss1 kB, live heap $heap0 → $heap1 bytes"

	log "$kind=$n: $LATENCY_CALLERS callers for $LATENCY_DURATION on the existing ones"
	local lat
	lat=$(timeout $((LATENCY_SECS + 60)) "$IDBENCH" --nodes "$GRPC" --strategy "$strategy" --names "$n" --prefix growth \
		--concurrency "$LATENCY_CALLERS" --duration "$LATENCY_DURATION" --json --progress=false) || die "latency run failed: $lat"
	others

	snapshot "$data" "$logf"
	others
	log "$kind=$n: snapshot $SNAP_BYTES bytes in $SNAP_MS ms; restarting"
	restart "$data" "$TMP/restart-$kind-$n.log" "$probe"
	log "$kind=$n: SERVING after $(secs "$T_SERVING")s, answering after $(secs "$T_PROBE")s; snapshot restored in $RESTORE_MS ms"
	others
	stop
	rm -rf "$data"

	printf '| %s | %s | %ss | %s → %s | %d B | %s (%d B) | %s | %s (%.1f B) | %.2fs | %s | %ss (%.2fs) | %ss | %s | %s |\n' \
		"$kind" "$n" "$(jq -r '.duration_s * 10 | round / 10' <<<"$fill")" \
		"$(mb $((rss0 * 1024)))" "$(mb $((rss1 * 1024)))" $(((rss1 - rss0) * 1024 / n)) \
		"$(mb "$heap1")" $(((heap1 - heap0) / n)) \
		"$(jq -r 'def ms: . * 100 | round / 100; "\(.ops_per_sec | floor)/s, \(.latency_ms.p50 | ms) / \(.latency_ms.p99 | ms) ms, \(.errors) errors"' <<<"$lat")" \
		"$(mb "$SNAP_BYTES")" "$(awk -v b="$SNAP_BYTES" -v n="$n" 'BEGIN { print b / n }')" \
		"$(awk -v ms="$SNAP_MS" 'BEGIN { print ms / 1000 }')" "$SNAP_PEAK" \
		"$(secs "$T_SERVING")" "$(awk -v ms="$RESTORE_MS" 'BEGIN { print ms / 1000 }')" "$(secs "$T_PROBE")" \
		"$(mb $((RSS_AFTER * 1024)))" "$(mb "$RAFTDB_BYTES")"
}

machine_table
echo
echo "| kind | N | create | RSS empty → filled | RSS per entry | live heap after GC (per entry) | calls/s, p50 / p99 at $LATENCY_CALLERS callers, errors | snapshot (per entry) | snapshot written | RSS peak while snapshotting | restart → SERVING (restore) | → first answer | RSS after restart | raft.db |"
echo "|---|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|"
for N in $SIZES; do
	measure counters "$N"
	((TAGS == 0)) || measure tags "$N"
done
echo
others_line
log "done"
