#!/usr/bin/env bash
# bench/failover.sh — how long identities stop when the leader is killed, and whether the Raft
# timing that makes the stop short starts elections on a healthy cluster under load.
#
# Two measurements, both on loopback, with real idnode binaries and fsync on (the default):
#   1. failover, RUNS times: the e2e test TestClusterLeaderKill9Failover (test/e2e/cluster): a
#      fresh 3-node cluster, 4 callers making identities, the leader killed with SIGKILL, then
#      a probe asks the survivors in turn (250 ms attempts, 10 ms apart, one request_id) for an
#      identity. The time is from the kill to the first identity a survivor answers. Prints
#      each run's time, the median and the maximum.
#   2. false alarms: a fresh 3-node cluster, 64 callers making identities round-robin over the
#      three nodes (idbench) for ROUNDS × 10 s. Prints the Raft term of each node before and
#      after, the elections in between (the term rises once per election started, won or not),
#      and raft's "entering candidate state" lines in the node logs (a node whose heartbeat
#      timeout fired, pre-votes that failed included).
#
#   flock /tmp/idnode-e2e.lock flock /tmp/idnode-bench.lock bench/failover.sh
#   RUNS=10 ROUNDS=3 ONLY=failover bench/failover.sh
#
# Settings (environment):
#   RUNS       failover runs, 1–30 (default 10; each starts and stops its own cluster, ~10 s)
#   ROUNDS     10 s rounds of the 64-caller load, 1–12 (default 3)
#   CALLERS    callers of the load (default 64)
#   ONLY       "failover" or "elections" runs that measurement alone (default both)
#   PORT_BASE  first of the loopback ports of the load's cluster: gRPC +0..2, Raft +10..12
#              (default 32500); the e2e test picks free ports itself
set -euo pipefail

RUNS=${RUNS:-10}
ROUNDS=${ROUNDS:-3}
CALLERS=${CALLERS:-64}
ONLY=${ONLY:-}
PORT_BASE=${PORT_BASE:-32500}
HEALTH_TIMEOUT=60 # seconds for the load's cluster to serve

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BENCH=failover
# shellcheck source=bench/lib.sh
source bench/lib.sh

[[ $RUNS =~ ^[0-9]+$ ]] && ((RUNS >= 1 && RUNS <= 30)) || die "RUNS must be 1–30, got '$RUNS'"
[[ $ROUNDS =~ ^[0-9]+$ ]] && ((ROUNDS >= 1 && ROUNDS <= 12)) || die "ROUNDS must be 1–12, got '$ROUNDS'"
[[ $CALLERS =~ ^[0-9]+$ ]] && ((CALLERS >= 1 && CALLERS <= 1024)) || die "CALLERS must be 1–1024, got '$CALLERS'"
[[ -z $ONLY || $ONLY == failover || $ONLY == elections ]] || die "ONLY must be failover, elections or empty, got '$ONLY'"
[[ $PORT_BASE =~ ^[0-9]+$ ]] && ((PORT_BASE >= 1024 && PORT_BASE <= 65000)) || die "PORT_BASE must be 1024–65000"
command -v jq >/dev/null || die "needs jq"

load() { cut -d' ' -f1-3 /proc/loadavg; }

# --- 1. failover ---------------------------------------------------------------------------------
failover() {
	local out ms
	log "$RUNS kill -9 runs of TestClusterLeaderKill9Failover (load average $(load))"
	out=$(timeout $((RUNS * 60 + 300)) go test -count="$RUNS" -timeout $((RUNS * 60 + 240))s \
		-run '^TestClusterLeaderKill9Failover$' ./test/e2e/cluster/ -v 2>&1) || {
		printf '%s\n' "$out" | tail -n 40 >&2
		die "the failover test failed"
	}
	ms=$(printf '%s\n' "$out" | sed -n 's/.*failover: .* after \([0-9]*\) ms .*/\1/p')
	(($(wc -l <<<"$ms") == RUNS)) || die "expected $RUNS failover lines, got: $ms"
	printf '%s\n' "$out" | grep 'failover: ' | sed 's/^ *[a-z_]*\.go:[0-9]*: //' >&2
	sort -n <<<"$ms" | awk -v load="$(load)" '
		{ v[NR] = $1 }
		END {
			med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "failover: %d runs, ms sorted: ", NR
			for (i = 1; i <= NR; i++) printf "%s%s", v[i], i < NR ? " " : "\n"
			printf "failover: median %d ms, max %d ms (load average %s)\n", med, v[NR], load
		}'
	# One election per failover is term+1; more are elections that failed on the way (split votes).
	printf '%s\n' "$out" | sed -n 's/.*failover: term \([0-9]*\) before the kill, \([0-9]*\) after.*/\1 \2/p' |
		awk '{ n[$2 - $1]++ } END { printf "failover: elections per run:"; for (k in n) printf " %d in %d run(s);", k, n[k]; print "" }'
}

# --- 2. elections under load ---------------------------------------------------------------------
# terms: each node's own Raft term, as "A=3 B=3 C=3" (status asks every node for its own).
terms() {
	"$IDCTL" --addr "127.0.0.1:$PORT_BASE" status --json |
		jq -r '[.nodes[] | select(.answered) | "\(.tag)=\(.term)"] | sort | join(" ")'
}
max_term() { tr ' ' '\n' <<<"$1" | cut -d= -f2 | sort -n | tail -n 1; }

elections() {
	local i p before after candidates=0 out
	cluster_init 20
	go build -o "$TMP/bin/idctl" ./cmd/idctl
	IDCTL=$TMP/bin/idctl
	local peers="A=127.0.0.1:$((PORT_BASE + 10)),B=127.0.0.1:$((PORT_BASE + 11)),C=127.0.0.1:$((PORT_BASE + 12))"
	local tags=(A B C) nodes=""
	for i in 0 1 2; do
		for p in $((PORT_BASE + i)) $((PORT_BASE + 10 + i)); do port_free "$p" || die "port 127.0.0.1:$p is in use; pick another PORT_BASE"; done
	done
	for i in 0 1 2; do
		"$IDNODE" --tag "${tags[$i]}" --data-dir "$TMP/node-${tags[$i]}" --grpc-addr "127.0.0.1:$((PORT_BASE + i))" \
			--peers "$peers" --log-format json --log-level info >"$TMP/node-${tags[$i]}.log" 2>&1 &
		PIDS+=($!)
		nodes+="${nodes:+,}127.0.0.1:$((PORT_BASE + i))"
	done
	local deadline=$((SECONDS + HEALTH_TIMEOUT)) ok
	while :; do
		for p in "${PIDS[@]}"; do kill -0 "$p" 2>/dev/null || die "a node (pid $p) exited during start-up"; done
		ok=1
		for i in 0 1 2; do "$IDNODE" health --addr "127.0.0.1:$((PORT_BASE + i))" --timeout 2s >/dev/null 2>&1 || ok=0; done
		((ok)) && break
		((SECONDS < deadline)) || die "the cluster did not serve within ${HEALTH_TIMEOUT}s"
		sleep 0.2
	done
	before=$(terms)
	for i in 0 1 2; do
		candidates=$((candidates - $(log_count "$TMP/node-${tags[$i]}.log" "entering candidate state")))
	done
	log "elections: cluster serving, terms $before; $ROUNDS × 10 s of $CALLERS callers (load average $(load))"
	for i in $(seq "$ROUNDS"); do
		out=$(timeout 100 "$IDBENCH" --nodes "$nodes" --strategy identity --via round-robin --concurrency "$CALLERS" \
			--prefix "fo$i" --duration 10s --json --progress=false --label "round $i") || die "idbench round $i failed"
		printf '%s\n' "$out" | "$IDBENCH" table --brief - | sed "s/^/elections: round $i: /" >&2
		log "elections: after round $i: terms $(terms) (load average $(load))"
	done
	after=$(terms)
	for i in 0 1 2; do
		candidates=$((candidates + $(log_count "$TMP/node-${tags[$i]}.log" "entering candidate state")))
	done
	echo "elections: $ROUNDS × 10 s, $CALLERS callers: terms $before → $after: $(($(max_term "$after") - $(max_term "$before"))) elections, $candidates candidacies (load average $(load))"
}

[[ $ONLY == elections ]] || failover
[[ $ONLY == failover ]] || elections
