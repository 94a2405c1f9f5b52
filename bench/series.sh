#!/usr/bin/env bash
# bench/series.sh — what a fiscal series costs: numbers issued per second and their
# latency on a 3-node cluster, beside identities in the same run, each at the same callers.
#
# It builds idnode and idbench, starts three nodes on loopback (static peers, fsync on), and
# runs, one after the other, each for $DURATION with $CALLERS callers spread round-robin over
# the three nodes (followers relay to the leader):
#   - identities: Generate{id: "bench|"}, one ID per call, by the route $VIA;
#   - one hot series: Issue{series: "hot"}, one number per call, each with its own request id;
#   - $SERIES series: the same, the calls spread over hot-0 … hot-<SERIES-1>;
#   - one series and identities at once, $CALLERS callers each (two idbench processes).
# idbench prints each run's line (calls/s, latency percentiles, errors); the script prints them
# as they come, then stops the nodes and removes its temp dir.
#
#   bench/series.sh                          # ~1 minute
#   CALLERS=256 DURATION=20s bench/series.sh
#
# Settings (environment):
#   DURATION   length of each run, whole seconds 1s–60s (default 10s)
#   CALLERS    concurrent callers (default 64)
#   SERIES     series of the third run (default 16)
#   VIA        the identities' route, idbench --via: round-robin (raw gRPC, what a client in
#              another language does) or go-client (folded, to the leader) (default round-robin)
#   PORT_BASE  loopback ports: gRPC +0..2, Raft +10..12 (default 32500)
set -euo pipefail

DURATION=${DURATION:-10s}
CALLERS=${CALLERS:-64}
SERIES=${SERIES:-16}
VIA=${VIA:-round-robin}
PORT_BASE=${PORT_BASE:-32500}
BENCH=series
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

[[ $DURATION =~ ^([0-9]+)s$ ]] && ((BASH_REMATCH[1] >= 1 && BASH_REMATCH[1] <= 60)) || die "DURATION must be 1s–60s, got '$DURATION'"
[[ $CALLERS =~ ^[0-9]+$ ]] && ((CALLERS >= 1 && CALLERS <= 1024)) || die "CALLERS must be 1–1024, got '$CALLERS'"
[[ $VIA == round-robin || $VIA == go-client ]] || die "VIA must be round-robin or go-client, got '$VIA'"
[[ $SERIES =~ ^[0-9]+$ ]] && ((SERIES >= 1 && SERIES <= 1000)) || die "SERIES must be 1–1000 (a database's limit), got '$SERIES'"

cluster_init 15

cluster_start

echo "$(date -u '+%Y-%m-%d %H:%M') UTC, commit $(git rev-parse --short HEAD), load average $(cut -d' ' -f1-3 /proc/loadavg), $CALLERS callers, $DURATION each, identities $VIA"
run() { "$IDBENCH" --nodes "$NODES" --concurrency "$CALLERS" --duration "$DURATION" --prefix "$@"; }
run bench --strategy identity --via "$VIA"
run hot --strategy series
run hot --strategy series --names "$SERIES"
log "one series and identities at once, $CALLERS callers each"
run beside --strategy series >"$TMP/beside-series.txt" 2>&1 &
beside=$!
run bench --strategy identity --via "$VIA"
wait "$beside" || { cat "$TMP/beside-series.txt" >&2; die "the series run beside identities failed"; }
cat "$TMP/beside-series.txt"
