#!/usr/bin/env bash
# bench/memory_run.sh — a node's memory under sustained load (it must stay flat, not grow
# with time): one fresh node on loopback with --memory-limit, CALLERS idbench callers taking
# identities round NAMES counters for DURATION, through the Go client by default (as an
# application does: every identity call carries a request_id, so the node's request-id table
# is part of what is measured), and every SAMPLE the node's resident set
# (VmRSS), its heap (go_memstats_heap_alloc_bytes, not forced: what the collector lets stand)
# and the identities it handed out in that interval (idnode_ids_issued_total). Without the
# limit the same load once plateaued at 400–450 MB with a live heap of ~60 MB: GOGC=400's
# headroom. The node's start-up is bench/lib.sh's.
#
# It prints markdown (the machine, the samples, idbench's summary) on stdout; progress on
# stderr. Every process it starts and its temp dir go away on exit, Ctrl-C included.
#
#   bench/memory_run.sh                                   # 10 minutes at 256MiB
#   DURATION=60s MEMORY_LIMIT=none bench/memory_run.sh    # a minute, no limit
#
# Settings (environment):
#   DURATION      length of the load, whole seconds or minutes 10s–10m (default 10m)
#   MEMORY_LIMIT  the node's --memory-limit, e.g. 256MiB, or none (default 256MiB)
#   CALLERS       idbench callers (default 64)
#   NAMES         identity counters the calls go round (default 1000)
#   VIA           go-client (request ids) or round-robin (raw calls, none) (default go-client)
#   SAMPLE        seconds between samples, 5–60 (default 30)
#   PORT_BASE     loopback ports PORT_BASE..+2: gRPC, Raft, metrics (default 32420)
set -euo pipefail

DURATION=${DURATION:-10m}
MEMORY_LIMIT=${MEMORY_LIMIT:-256MiB}
CALLERS=${CALLERS:-64}
NAMES=${NAMES:-1000}
VIA=${VIA:-go-client}
SAMPLE=${SAMPLE:-30}
PORT_BASE=${PORT_BASE:-32420}

BENCH=memory_run
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case $DURATION in
*m) LOAD_S=$((${DURATION%m} * 60)) ;;
*s) LOAD_S=${DURATION%s} ;;
*) die "DURATION must be like 10m or 90s, got '$DURATION'" ;;
esac
[[ $LOAD_S =~ ^[0-9]+$ ]] && ((LOAD_S >= 10 && LOAD_S <= 600)) || die "DURATION must be 10s–10m, got '$DURATION'"
[[ $CALLERS =~ ^[0-9]+$ ]] && ((CALLERS >= 1 && CALLERS <= 1024)) || die "CALLERS must be 1–1024, got '$CALLERS'"
[[ $NAMES =~ ^[0-9]+$ ]] && ((NAMES >= 1 && NAMES <= 1000000)) || die "NAMES must be 1–1000000, got '$NAMES'"
[[ $VIA == go-client || $VIA == round-robin ]] || die "VIA must be go-client or round-robin, got '$VIA'"
[[ $SAMPLE =~ ^[0-9]+$ ]] && ((SAMPLE >= 5 && SAMPLE <= 60)) || die "SAMPLE must be 5–60 seconds, got '$SAMPLE'"
NODE_FLAGS=()
[[ $MEMORY_LIMIT == none ]] || NODE_FLAGS=(--memory-limit "$MEMORY_LIMIT")

bench_init

# issued: the identities the node has handed out so far.
issued() {
	curl -fsS --max-time 10 "http://$METRICS/metrics" |
		awk '$1 ~ /^idnode_ids_issued_total\{/ && $1 ~ /strategy="identity"/ { n += $2 } END { printf "%d\n", n }'
}
heap_alloc() {
	curl -fsS --max-time 10 "http://$METRICS/metrics" | awk '$1 == "go_memstats_heap_alloc_bytes" { printf "%d\n", $2 }'
}

machine_table
start "$TMP/data" "$TMP/node.log"
wait_for "SERVING" "$START_TIMEOUT" serving
log "node up (--memory-limit $MEMORY_LIMIT); creating $NAMES counters"
"$IDBENCH" --nodes "$GRPC" --strategy identity --via "$VIA" --names "$NAMES" --ops "$NAMES" --concurrency "$CALLERS" \
	--prefix mem --json --progress=false >"$TMP/fill.json" || die "creating the counters failed: $(cat "$TMP/fill.json")"

log "load: $CALLERS callers ($VIA) round $NAMES counters for $DURATION, a sample every ${SAMPLE}s"
"$IDBENCH" --nodes "$GRPC" --strategy identity --via "$VIA" --names "$NAMES" --duration "$DURATION" --concurrency "$CALLERS" \
	--prefix mem --json --progress=false >"$TMP/load.json" 2>"$TMP/load.err" &
LOAD=$!

echo
echo "| time | RSS | heap (not forced) | identities/s in the interval |"
echo "|--:|--:|--:|--:|"
t0=$SECONDS last=$(issued) last_t=$(now) peak=0
while kill -0 "$LOAD" 2>/dev/null && ((SECONDS - t0 < LOAD_S + 30)); do
	sleep "$SAMPLE"
	alive || die "the node exited under load"
	kill -0 "$LOAD" 2>/dev/null || break
	n=$(issued) t=$(now) rss=$(status_kb "$NODE" VmRSS)
	((rss > peak)) && peak=$rss
	rate=$(awk -v n=$((n - last)) -v us=$((t - last_t)) 'BEGIN { printf "%d", n / (us / 1e6) }')
	printf '| %ds | %s | %s | %s |\n' $((SECONDS - t0)) "$(mb $((rss * 1024)))" "$(mb "$(heap_alloc)")" "$rate"
	log "$((SECONDS - t0))s: RSS $(mb $((rss * 1024))), $rate identities/s"
	last=$n last_t=$t
	others
done
wait "$LOAD" || die "idbench failed: $(tail -n 5 "$TMP/load.err")"
echo
jq -r '"idbench: \(.ops) identities in \(.duration_s | floor) s, \(.ops_per_sec | floor)/s, p50 \(.latency_ms.p50) ms, p99 \(.latency_ms.p99) ms, p99.9 \(.latency_ms.p99_9) ms, max \(.latency_ms.max) ms, errors \(.errors) \(.errors_by_code)"' "$TMP/load.json"
echo "Peak RSS sampled: $(mb $((peak * 1024))); VmHWM of the node: $(mb $(($(status_kb "$NODE" VmHWM) * 1024)))."
echo
others_line
