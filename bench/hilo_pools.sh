#!/usr/bin/env bash
# bench/hilo_pools.sh — NextHiLo ranges granted from a node's own pool (idnode's default)
# vs through Raft (--hilo-pools=false), in the same run, to show what the pools save.
#
# It builds idnode and idbench, starts two 3-node clusters on loopback in a temp dir, fresh data
# dirs, fsync on (the default): "raft" with --hilo-pools=false, where every range is a Raft entry
# on the leader (a follower forwards the call), and "pool", where each node grants ranges from
# its own pool (an fsync of <data-dir>/hilo-pools per batch of grants) and tops the pool up
# through Raft in the background. Both stay up for the whole run, so their runs alternate back
# to back under the same conditions: for each round and each number of callers, the two sides one
# after the other (the order swaps every round). Each run is
#
#   idbench --strategy hilo-range --range-size $RANGE_SIZE --concurrency N --duration $DURATION
#
# with the callers spread round-robin over the cluster's three nodes: raw NextHiLo calls, each
# asking for RANGE_SIZE numbers (last_batch_size without last_range_at, which the range policy
# grants as is), so both sides grant the same numbers per call. A warm-up of $WARMUP with the
# same callers comes first and is not counted: on the pool side a node's first range of a tag
# waits for a Raft round (the first pool), and the refills find their rate.
#
# It prints markdown on stdout (the machine, and one table row per run, with the ranges the
# nodes granted from their pools and the pool refills and Raft entries during the run, summed
# over the three nodes from their /metrics); progress on stderr. Every process it starts and its
# temp dir go away on exit, Ctrl-C included.
#
#   bench/hilo_pools.sh                                # ~3.5 minutes
#   ROUNDS=1 CALLERS=64 DURATION=5s bench/hilo_pools.sh
#
# Settings (environment):
#   DURATION     length of each measured run, whole seconds 1s–60s (default 10s)
#   WARMUP       uncounted load before each run, whole seconds 1s–30s (default 3s)
#   CALLERS      concurrent callers, one run per side each (default "3 16 64": 3 is one per node)
#   RANGE_SIZE   numbers per range, 32–1048576 (default 32)
#   ROUNDS       times the whole set of runs is repeated, 1–5 (default 2)
#   PROFILE_DIR  if set: a CPU profile of every node during every measured run is written there
#                (<side>-<callers>c-r<round>-<node>.pprof), and its goroutines halfway through
#                (….goroutines.txt, debug=1: who waits where); the nodes serve /debug/pprof anyway
#   PORT_BASE    loopback ports PORT_BASE..+52: raft cluster gRPC +0..2, Raft +10..12, metrics
#                +20..22; pool cluster +30..32, +40..42, +50..52 (default 32500)
set -euo pipefail

DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-3s}
CALLERS=${CALLERS:-"3 16 64"}
RANGE_SIZE=${RANGE_SIZE:-32}
ROUNDS=${ROUNDS:-2}
PROFILE_DIR=${PROFILE_DIR:-}
PORT_BASE=${PORT_BASE:-32500}
HEALTH_TIMEOUT=60 # seconds for a cluster to serve

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

BENCH=hilo_pools
# shellcheck source=bench/lib.sh
source bench/lib.sh

[[ $DURATION =~ ^([0-9]+)s$ ]] && ((BASH_REMATCH[1] >= 1 && BASH_REMATCH[1] <= 60)) || die "DURATION must be whole seconds 1s–60s, got '$DURATION'"
SECS=${DURATION%s}
[[ $WARMUP =~ ^([0-9]+)s$ ]] && ((BASH_REMATCH[1] >= 1 && BASH_REMATCH[1] <= 30)) || die "WARMUP must be whole seconds 1s–30s, got '$WARMUP'"
WARM_SECS=${WARMUP%s}
for c in $CALLERS; do
	[[ $c =~ ^[0-9]+$ ]] && ((c >= 1 && c <= 1024)) || die "CALLERS must be numbers 1–1024, got '$c'"
done
[[ $RANGE_SIZE =~ ^[0-9]+$ ]] && ((RANGE_SIZE >= 32 && RANGE_SIZE <= 1048576)) || die "RANGE_SIZE must be 32–1048576, got '$RANGE_SIZE'"
[[ $ROUNDS =~ ^[0-9]+$ ]] && ((ROUNDS >= 1 && ROUNDS <= 5)) || die "ROUNDS must be 1–5, got '$ROUNDS'"
[[ $PORT_BASE =~ ^[0-9]+$ ]] && ((PORT_BASE >= 1024 && PORT_BASE <= 65000)) || die "PORT_BASE must be 1024–65000"
for tool in curl jq; do command -v $tool >/dev/null || die "needs $tool"; done
if [[ -n $PROFILE_DIR ]]; then
	mkdir -p "$PROFILE_DIR"
	PROFILE_DIR=$(cd "$PROFILE_DIR" && pwd)
fi

SIDES=(raft pool)
TAGS=(A B C)
declare -A GRPC RAFT METRICS NODES
for s in 0 1; do
	side=${SIDES[$s]}
	for i in 0 1 2; do
		GRPC[$side$i]=127.0.0.1:$((PORT_BASE + 30 * s + i))
		RAFT[$side$i]=127.0.0.1:$((PORT_BASE + 30 * s + 10 + i))
		METRICS[$side$i]=127.0.0.1:$((PORT_BASE + 30 * s + 20 + i))
		NODES[$side]+="${NODES[$side]:+,}${GRPC[$side$i]}"
	done
done
for addr in "${GRPC[@]}" "${RAFT[@]}" "${METRICS[@]}"; do
	port_free "${addr##*:}" || die "port $addr is in use; pick another PORT_BASE"
done

# --- everything we start is tracked in PIDS and stopped on exit --------------------------------
cluster_init 10

# --- the two clusters: static peers, fsync on (the default), fresh data dirs ----------------
for side in "${SIDES[@]}"; do
	peers=""
	for i in 0 1 2; do peers+="${peers:+,}${TAGS[$i]}=${RAFT[$side$i]}"; done
	extra=()
	[[ $side == raft ]] && extra=(--hilo-pools=false)
	for i in 0 1 2; do
		"$IDNODE" --tag "${TAGS[$i]}" --data-dir "$TMP/$side-${TAGS[$i]}" --grpc-addr "${GRPC[$side$i]}" \
			--peers "$peers" --metrics-addr "${METRICS[$side$i]}" --pprof --log-level warn "${extra[@]}" \
			>"$TMP/$side-${TAGS[$i]}.log" 2>&1 &
		PIDS+=($!)
	done
done

log "waiting (at most ${HEALTH_TIMEOUT}s) for both clusters to serve"
deadline=$((SECONDS + HEALTH_TIMEOUT))
while :; do
	for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null || die "a node (pid $pid) exited during start-up"; done
	ok=1
	for addr in "${GRPC[@]}"; do "$IDNODE" health --addr "$addr" --timeout 2s >/dev/null 2>&1 || ok=0; done
	((ok)) && break
	((SECONDS < deadline)) || die "clusters not serving after ${HEALTH_TIMEOUT}s"
	sleep 0.5
done
log "both clusters serving"

# --- metrics, summed over a cluster's nodes ----------------------------------------------------
# scrape SIDE: "ranges pool_ranges refills raft_entries" over the three nodes.
#   ranges        NextHiLo answers the nodes gave their callers (idnode_hilo_range_size_count)
#   pool_ranges   of those, granted from a pool (idnode_hilo_pool_ranges_total)
#   refills       reservations through Raft into the pools (idnode_hilo_pool_refills_total)
#   raft_entries  commands the leader proposed (idnode_raft_apply_duration_seconds_count)
scrape() {
	local i
	for i in 0 1 2; do
		curl -fsS --max-time 5 "http://${METRICS[$1$i]}/metrics" || die "cannot read /metrics of $1 node ${TAGS[$i]}"
	done | awk '
		$1 == "idnode_hilo_range_size_count" { r += $2 }
		$1 ~ /^idnode_hilo_pool_ranges_total(\{|$)/ { p += $2 }
		$1 ~ /^idnode_hilo_pool_refills_total(\{|$)/ { f += $2 }
		$1 == "idnode_raft_apply_duration_seconds_count" { e += $2 }
		END { printf "%d %d %d %d\n", r, p, f, e }'
}

# load SIDE CALLERS SECONDS: one idbench run at SIDE, its JSON result on stdout.
load() {
	local out rc=0
	out=$(timeout $(($3 + 60)) "$IDBENCH" --nodes "${NODES[$1]}" --strategy hilo-range --range-size "$RANGE_SIZE" \
		--concurrency "$2" --duration "$3s" --prefix bench --json --progress=false) || rc=$?
	[[ -n $out ]] || die "idbench at $1 with $2 callers failed (exit $rc), no result"
	echo "$out"
}

# --- machine ------------------------------------------------------------------------------------
CPU=$(awk -F': *' '/^model name/ && !seen++ { print $2 }' /proc/cpuinfo)
MEM=$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ $COMMIT != unknown ]] && [[ -n $(git -C "$ROOT" status --porcelain 2>/dev/null) ]]; then COMMIT+=" + uncommitted changes"; fi
others
echo "| machine | |"
echo "|---|---|"
echo "| date | $(date -u '+%Y-%m-%d %H:%M UTC') |"
echo "| CPU | $CPU, $(nproc) cores (nproc) |"
echo "| memory | $MEM |"
echo "| kernel | $(uname -sr) |"
echo "| Go | $(go version | cut -d' ' -f3-) |"
echo "| idnode | commit $COMMIT |"
echo "| load average at start | $(cut -d' ' -f1-3 /proc/loadavg) |"
echo
echo "| round | side | callers | calls/s | IDs/s | p50 ms | p99 ms | p99.9 ms | max ms | errors | ranges from pools | pool refills | Raft entries |"
echo "|--:|---|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|"

for ((round = 1; round <= ROUNDS; round++)); do
	order=(raft pool)
	((round % 2 == 0)) && order=(pool raft)
	for c in $CALLERS; do
		for side in "${order[@]}"; do
			log "round $round, $side, $c callers: warm-up $WARMUP"
			warm=$(load "$side" "$c" "$WARM_SECS")
			log "  warm-up: $(jq -r '"\(.ops_per_sec | floor) calls/s, \(.errors) errors"' <<<"$warm")"
			m=$(scrape "$side")
			read -r r0 p0 f0 e0 <<<"$m"
			profs=()
			if [[ -n $PROFILE_DIR ]]; then
				for i in 0 1 2; do
					curl -fsS --max-time $((SECS + 30)) -o "$PROFILE_DIR/$side-${c}c-r$round-${TAGS[$i]}.pprof" \
						"http://${METRICS[$side$i]}/debug/pprof/profile?seconds=$((SECS > 2 ? SECS - 2 : 1))" &
					profs+=($!)
					# and where every goroutine is, halfway through (who waits for what)
					(sleep $((SECS / 2)) && curl -fsS --max-time 10 -o "$PROFILE_DIR/$side-${c}c-r$round-${TAGS[$i]}.goroutines.txt" \
						"http://${METRICS[$side$i]}/debug/pprof/goroutine?debug=1") &
					profs+=($!)
				done
			fi
			log "round $round, $side, $c callers: $DURATION"
			out=$(load "$side" "$c" "$SECS")
			for pid in "${profs[@]}"; do wait "$pid" || log "  a CPU profile failed"; done
			m=$(scrape "$side")
			read -r r1 p1 f1 e1 <<<"$m"
			others
			# ranges: answers the nodes counted during the run (in-flight ones at the edges aside).
			jq -r --arg round "$round" --arg side "$side" --arg pool "$((p1 - p0))/$((r1 - r0))" \
				--arg refills "$((f1 - f0))" --arg entries "$((e1 - e0))" '
				def ms: if . >= 100 then round elif . >= 10 then (. * 10 | round) / 10 else (. * 100 | round) / 100 end;
				def codes: if .errors == 0 then "0" else "\(.errors) (" + ([.errors_by_code | to_entries[] | "\(.key) \(.value)"] | join(", ")) + ")" end;
				"| \($round) | \($side) | \(.concurrency) | \(.ops_per_sec | floor) | \(.ids_per_sec | floor) | \(.latency_ms.p50 | ms) | \(.latency_ms.p99 | ms) | \(.latency_ms.p99_9 | ms) | \(.latency_ms.max | ms) | \(codes) | \($pool) | \($refills) | \($entries) |"' <<<"$out"
			log "  $(jq -r '"\(.ops_per_sec | floor) calls/s, p99 \(.latency_ms.p99) ms, \(.errors) errors"' <<<"$out")"
		done
	done
done
echo
echo "Other work while it ran: at most $MAX_CONTAINERS docker containers up, highest 1-minute load average $MAX_LOAD (sampled after each run; $(nproc) cores)."
log "done"
