#!/usr/bin/env bash
# bench/high_water.sh — what the data dir's high-water mark costs (--high-water-interval, issue
# 24): fsyncs per second of the mark and of the Raft log, and identities per second, on one
# node under identity load, for each interval in INTERVALS.
#
#	INTERVALS="0 1s 100ms" CALLERS=16 DURATION=10s bench/high_water.sh   # = the defaults
#
# Per interval: a fresh data dir; DURATION of load with strace counting fsync/fdatasync by file
# (strace slows the node: its identities/s are not the figure), then DURATION of load without
# it for identities/s. One line per interval on stdout.
set -euo pipefail
BENCH=high_water
source "$(dirname "$0")/lib.sh"
INTERVALS=${INTERVALS:-"0 1s 100ms"}
CALLERS=${CALLERS:-16}
DURATION=${DURATION:-10s}
command -v strace >/dev/null || die "needs strace"
bench_init
secs_of() { awk -v d="$1" 'BEGIN { sub(/s$/, "", d); print d + 0 }'; }
load() { "$IDBENCH" --nodes "$GRPC" --strategy identity --concurrency "$CALLERS" --duration "$DURATION" --json --progress=false; }
printf '| interval | mark fsyncs/s | raft.db fsyncs/s | other fsyncs/s | identities/s |\n|---|---|---|---|---|\n'
for interval in $INTERVALS; do
	data=$TMP/data-$interval
	NODE_FLAGS=(--high-water-interval "$interval")
	start "$data" "$TMP/node-$interval.log"
	wait_for SERVING "$START_TIMEOUT" serving
	load >/dev/null # warm up: the first entries, the node's registration
	strace -f -qq -y -e trace=fsync,fdatasync -p "$NODE" -o "$TMP/strace-$interval" &
	tracer=$!
	sleep 1 # strace attaches to every thread
	load >/dev/null
	kill -INT "$tracer"
	wait "$tracer" || true
	s=$(secs_of "$DURATION")
	mark=$(grep -c -e 'manifest\.json' -e "<$data>" "$TMP/strace-$interval" || true)
	raftdb=$(grep -c 'raft\.db' "$TMP/strace-$interval" || true)
	all=$(grep -c -e 'fsync(' -e 'fdatasync(' "$TMP/strace-$interval" || true)
	ids=$(load | jq -r '.ids_per_sec | floor')
	stop
	awk -v i="$interval" -v m="$mark" -v r="$raftdb" -v a="$all" -v s="$s" -v ids="$ids" \
		'BEGIN { printf "| %s | %.1f | %.0f | %.1f | %s |\n", i, m / s, r / s, (a - m - r) / s, ids }'
done
