#!/usr/bin/env bash
# bench/regions.sh — what each strategy costs a client in each region of a cluster spread over
# three regions, and how long a failover takes at each round trip between its nodes.
#
# Everything runs in-process on loopback (test/regions): real nodes (node.Start: Raft over TCP,
# gRPC, fsync on), with Toxiproxy between every pair of nodes and between the clients of each
# region and every node (test/helpers/wan): 1 ms round trips inside a region, and between the
# regions a–b 30 ms, b–c 70 ms, a–c 90 ms, each ±10%. Three measurements:
#   1. latency: five nodes 2 + 2 + 1 (A, B in a; C, D in b; E in c), --raft-rtt 90ms, with the
#      leader in a (--preferred-region a) and then in c; from the Go client of an application in
#      each region (client.WithRegion: what any node answers to a node of its region,
#      identities and series to the leader), CALLS calls of each strategy one after another.
#      Prints p50 / p99 in milliseconds (BenchmarkLatencyByRegion).
#   2. failover: three nodes in three regions the same round trip apart (LAN, 30, 70, 90 ms),
#      --raft-rtt set to it; five times each, the leader stops and a survivor is asked for an
#      identity until it answers (BenchmarkFailoverByRoundTrip).
#   3. steady (only with STEADY set, and alone): five nodes 2 + 2 + 1 over three regions 90 ms
#      apart, --raft-rtt 90ms, 64 callers taking identities through every node for STEADY;
#      prints the leader changes the nodes saw, which must be 0 (BenchmarkLeaderHoldsAt90msRoundTrips).
#
#   flock /tmp/idnode-bench.lock bench/regions.sh
#   CALLS=50 ONLY=latency bench/regions.sh
#   STEADY=10m bench/regions.sh
#
# Settings (environment):
#   CALLS   calls per strategy, region and leader placement, 20–2000 (default 200: about 6 min
#           for the latency table, most of it the identities and series from far regions)
#   ONLY    "latency" or "failover" runs that measurement alone (default both)
#   STEADY  a Go duration of 1m–60m: runs the steady measurement for that long instead
set -euo pipefail

CALLS=${CALLS:-200}
ONLY=${ONLY:-}
STEADY=${STEADY:-}

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BENCH=regions
# shellcheck source=bench/lib.sh
source bench/lib.sh

[[ $CALLS =~ ^[0-9]+$ ]] && ((CALLS >= 20 && CALLS <= 2000)) || die "CALLS must be 20–2000, got '$CALLS'"
[[ -z $ONLY || $ONLY == latency || $ONLY == failover ]] || die "ONLY must be latency, failover or empty, got '$ONLY'"
if [[ -n $STEADY ]]; then
	[[ $STEADY =~ ^[0-9]+m$ ]] && ((${STEADY%m} >= 1 && ${STEADY%m} <= 60)) || die "STEADY must be whole minutes, 1m–60m, got '$STEADY'"
fi

# bench_run NAME TIMEOUT_MIN ARGS...: runs the benchmark NAME of test/regions with ARGS, printing
# the command first, and samples the machine's load every 5 s while it runs (others); the
# output goes to $OUT. A failed run shows the output's end and stops.
OUT=$(mktemp -t idnode-regions.XXXXXX)
trap 'rm -f "$OUT"' EXIT
bench_run() {
	local name=$1 minutes=$2
	shift 2
	local cmd=(go test -count=1 ./test/regions -run '^$' -bench "^Benchmark$name\$" -timeout "${minutes}m" "$@")
	echo "command: ${cmd[*]}"
	others
	log "$name (load average $(cut -d' ' -f1-3 /proc/loadavg))"
	"${cmd[@]}" >"$OUT" 2>&1 &
	local pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		others
		sleep 5
	done
	wait "$pid" || {
		tail -n 40 "$OUT" >&2
		die "$name failed"
	}
}

# metric UNIT: awk code that sets v to the value reported with UNIT on the current line.
metric() { echo "v = \"\"; for (i = 3; i < NF; i++) if (\$(i + 1) == \"$1\") v = \$i"; }

latency() {
	bench_run LatencyByRegion 45 -benchtime "${CALLS}x"
	awk "
		/^BenchmarkLatencyByRegion\\// {
			split(\$1, part, \"/\"); sub(/-[0-9]+\$/, \"\", part[4])
			$(metric p50-ms); p50 = v; $(metric p99-ms); p99 = v
			cell[part[2], part[3], part[4]] = sprintf(\"%.1f / %.1f\", p50, p99)
			if (!(part[3] in seen)) { seen[part[3]] = 1; order[++n] = part[3] }
		}
		END {
			split(\"leader-in-a leader-in-c\", placements, \" \")
			title[\"leader-in-a\"] = \"the leader in a (preferred)\"; title[\"leader-in-c\"] = \"the leader in c (elsewhere)\"
			for (p = 1; p <= 2; p++) {
				printf \"\\n%s, p50 / p99 in ms, $CALLS calls each:\\n\\n\", title[placements[p]]
				print \"| strategy | from a | from b | from c |\"
				print \"|---|---|---|---|\"
				for (i = 1; i <= n; i++)
					printf \"| %s | %s | %s | %s |\\n\", order[i], cell[placements[p], order[i], \"from-a\"],
						cell[placements[p], order[i], \"from-b\"], cell[placements[p], order[i], \"from-c\"]
			}
		}" "$OUT"
}

failover() {
	bench_run FailoverByRoundTrip 30 -benchtime 1x
	echo
	echo "| round trip (and --raft-rtt) | failover min | median | max |"
	echo "|---|---|---|---|"
	awk "
		/^BenchmarkFailoverByRoundTrip\\// {
			split(\$1, part, \"/\"); sub(/-[0-9]+\$/, \"\", part[2]); sub(/^rtt-/, \"\", part[2])
			$(metric min-ms); lo = v; $(metric median-ms); med = v; $(metric max-ms); hi = v
			printf \"| %s | %.2f s | %.2f s | %.2f s |\\n\", part[2], lo / 1000, med / 1000, hi / 1000
		}" "$OUT"
}

steady() {
	bench_run LeaderHoldsAt90msRoundTrips $((${STEADY%m} + 10)) -benchtime 1x -steady-for "$STEADY"
	awk "
		/^BenchmarkLeaderHoldsAt90msRoundTrips/ {
			$(metric leader-changes); changes = v; $(metric identities/s); rate = v
			printf \"steady: $STEADY of identities from 64 callers at 90 ms round trips: %d leader changes, %.0f identities/s\\n\", changes, rate
		}
		/steady_test.go.*identities, leader/ { sub(/^ *steady_test.go:[0-9]+: /, \"\"); print \"steady: \" \$0 }" "$OUT"
}

machine_table
echo
if [[ -n $STEADY ]]; then
	steady
else
	[[ $ONLY == failover ]] || latency
	echo
	[[ $ONLY == latency ]] || failover
fi
echo
others_line
