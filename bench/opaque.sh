#!/usr/bin/env bash
# bench/opaque.sh — what an opaque identity costs beside a plain one: identities through the Go
# client at the same callers, on one cluster, the two kinds taking turns so that the noise of a
# shared machine falls on both.
#
# It builds idnode, idctl and idbench, starts three nodes on loopback (static peers, fsync on),
# turns the collection `opq` of the default database opaque (`idctl opaque make opq`) and checks
# that an identity of it is a 13-symbol form. Then, $ROUNDS times, it runs idbench for
# $DURATION on `plain|` and on `opq|`, in the order plain, opaque in odd rounds and opaque,
# plain in even ones (so neither kind always runs on the warmer, or the more loaded, cluster).
# Both kinds go the same way: `--via go-client --identity-call generate`, the Go client's
# client.Generate("<prefix>|"), one identity per call (the call an opaque collection answers;
# client.NextIdentity, whose calls fold together, is refused on it), so the only difference is the
# node writing each value as its form. It prints each run's IDs/s, latency and the CPU the
# three nodes used per ID (from /proc: it moves far less than IDs/s with what else the machine
# runs), the load average before each run, and at the end each kind's medians and the
# opaque/plain ratios of the medians and of each round.
#
#   bench/opaque.sh                               # 4 rounds of 10 s each way, ~2 minutes
#   ROUNDS=6 DURATION=20s bench/opaque.sh
#
# Settings (environment):
#   DURATION   length of each run, whole seconds 1s–60s (default 10s)
#   CALLERS    concurrent callers (default 64)
#   ROUNDS     rounds of one plain and one opaque run (1–10, default 4)
#   PORT_BASE  loopback ports: gRPC +0..2, Raft +10..12 (default 32700)
set -euo pipefail

DURATION=${DURATION:-10s}
CALLERS=${CALLERS:-64}
ROUNDS=${ROUNDS:-4}
PORT_BASE=${PORT_BASE:-32700}
BENCH=opaque
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

[[ $DURATION =~ ^([0-9]+)s$ ]] && ((BASH_REMATCH[1] >= 1 && BASH_REMATCH[1] <= 60)) || die "DURATION must be 1s–60s, got '$DURATION'"
[[ $CALLERS =~ ^[0-9]+$ ]] && ((CALLERS >= 1 && CALLERS <= 1024)) || die "CALLERS must be 1–1024, got '$CALLERS'"
[[ $ROUNDS =~ ^[0-9]+$ ]] && ((ROUNDS >= 1 && ROUNDS <= 10)) || die "ROUNDS must be 1–10, got '$ROUNDS'"
[[ $PORT_BASE =~ ^[0-9]+$ ]] && ((PORT_BASE >= 1024 && PORT_BASE <= 65000)) || die "PORT_BASE must be 1024–65000"
command -v jq >/dev/null || die "jq is needed to read idbench's results"

cluster_init 15
go build -o "$TMP/bin/idctl" ./cmd/idctl
IDCTL=$TMP/bin/idctl

cluster_start --http-addr ""

# Loopback without an admin token is admin (docs/SECURITY.md), so idctl needs no credential.
"$IDCTL" --addr "$NODES" opaque make opq >&2
form=$("$IDCTL" --addr "$NODES" next 'opq|')
[[ $form =~ ^opq/[0-9A-HJKMNP-TV-Z]{13}$ ]] || die "an identity of the opaque collection opq is '$form', not a 13-symbol form"
plain=$("$IDCTL" --addr "$NODES" next 'plain|')
[[ $plain =~ ^plain/[0-9]+$ ]] || die "an identity of the plain collection is '$plain', not a number"

echo "$(date -u '+%Y-%m-%d %H:%M') UTC, commit $(git rev-parse --short HEAD), $(nproc) cores, $CALLERS callers, $DURATION a run, $ROUNDS rounds; identities via go-client, client.Generate"
# nodes_cpu: the CPU seconds (utime+stime, /proc, clock ticks of 1/100 s) the three nodes have
# used so far. CPU per ID moves far less with the neighbours' load than IDs per second does.
nodes_cpu() {
	local pid t=0
	for pid in "${PIDS[@]}"; do t=$((t + $(awk '{ print $14 + $15 }' "/proc/$pid/stat"))); done
	echo "$t"
}
# run KIND PREFIX: one idbench run; prints its line and appends its IDs/s to $TMP/KIND and the
# nodes' CPU µs per ID to $TMP/KIND.cpu.
run() {
	local load out before after
	load=$(cut -d' ' -f1 /proc/loadavg)
	others
	before=$(nodes_cpu)
	out=$("$IDBENCH" --nodes "$NODES" --strategy identity --via go-client --identity-call generate \
		--concurrency "$CALLERS" --duration "$DURATION" --prefix "$2" --progress=false --json) || die "idbench on $2| failed: $out"
	after=$(nodes_cpu)
	jq -e '.errors == 0 and .ids > 0' <<<"$out" >/dev/null || die "idbench on $2| had errors: $out"
	jq -r --arg kind "$1" --arg load "$load" --argjson cpu $((after - before)) \
		'"  \($kind | . + "      " | .[:6]) \(.ids_per_sec | floor) IDs/s  p50 \(.latency_ms.p50 * 100 | round / 100) ms  p99 \(.latency_ms.p99 * 100 | round / 100) ms  nodes CPU \($cpu / 100) s, \($cpu * 10000 / .ids | round) µs/ID  (load average before: \($load))"' <<<"$out"
	jq -r '.ids_per_sec' <<<"$out" >>"$TMP/$1"
	jq -r --argjson cpu $((after - before)) '$cpu * 10000 / .ids' <<<"$out" >>"$TMP/$1.cpu"
}
for r in $(seq "$ROUNDS"); do
	echo "round $r"
	if ((r % 2)); then
		run plain plain
		run opaque opq
	else
		run opaque opq
		run plain plain
	fi
done

# The medians, and the ratio of each round (opaque/plain, the runs of one round side by side).
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
# summary WHAT FILE_SUFFIX FORMAT: the medians of each kind and the ratios.
summary() {
	local p o r
	p=$(median "$TMP/plain$2") o=$(median "$TMP/opaque$2")
	r=$(paste "$TMP/plain$2" "$TMP/opaque$2" | awk '{ printf "%s%.3f", (NR > 1 ? " " : ""), $2 / $1 }')
	awk -v what="$1" -v f="$3" -v p="$p" -v o="$o" -v r="$r" 'BEGIN {
		printf "median %s: plain " f ", opaque " f "; opaque/plain %.3f (%+.1f %%); per round: %s\n", what, p, o, o / p, (o / p - 1) * 100, r
	}'
}
summary "IDs/s" "" "%d"
summary "nodes' CPU µs per ID" ".cpu" "%.1f"
others_line
