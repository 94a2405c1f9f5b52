#!/usr/bin/env bash
# bench/ab.sh — two builds of idnode, taking turns on identical runs, with the CPU each process
# spent: the way to tell a change from the noise of a shared 2-core machine, where the same
# build moves 10–30% between minutes.
#
# Each run starts a fresh 3-node cluster on loopback (static peers, fsync on), waits for it,
# runs idbench against it, and prints idbench's summary, each process's CPU seconds
# (utime+stime from /proc) and the Raft entries the leader committed, then stops the cluster.
# Builds A and B take turns, A first, $ROUNDS times. Each build is a git commit (anything `git rev-parse`
# takes) or "." for the working tree, idnode and idbench alike, so a change to the Go client
# (which idbench's go-client route uses) is measured too.
#
#   bench/ab.sh c1eb037 .                        # 3 rounds, Go client, 64 callers, 10 s
#   VIA=round-robin ROUNDS=4 bench/ab.sh HEAD~1 HEAD
#   TRACE_B=0.01 bench/ab.sh . .                  # tracing off against 1% of calls traced
#
# Settings (environment):
#   VIA        idbench --via: go-client or round-robin (default go-client)
#   STRATEGY   idbench --strategy (default identity)
#   CALLERS    concurrent callers (default 64)
#   DURATION   length of each run, whole seconds 1–60 (default 10)
#   ROUNDS     turns of A then B (1–10, default 3)
#   PORT_BASE  loopback ports: gRPC +0..2, Raft +10..12, metrics +20..22, the Collector +30..32
#              (default 32600)
#   TRACE_A    the share of calls build A's nodes trace: off (the default: no OTLP endpoint,
#   TRACE_B    so no tracer at all), or a ratio 0–1, as OTEL_TRACES_SAMPLER=parentbased_traceidratio
#              with OTEL_TRACES_SAMPLER_ARG set to it. When either is on, an OpenTelemetry
#              Collector (test/e2e/tracing/otelcol, built here) receives the spans for the whole
#              run, as one would in production, and writes them to /dev/null: without a
#              receiver the exporter's retries would cost what they cost nowhere else. Its
#              CPU seconds are on each run's CPU line, and
#              the spans it received from the run's nodes, once they stopped, on a line of
#              their own: the nodes' batch span processors drop spans when their queue is
#              full (OTEL_BSP_MAX_QUEUE_SIZE, 2048 by default), rather than slow a call.
set -euo pipefail

VIA=${VIA:-go-client}
STRATEGY=${STRATEGY:-identity}
CALLERS=${CALLERS:-64}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-3}
PORT_BASE=${PORT_BASE:-32600}
TRACE_A=${TRACE_A:-off}
TRACE_B=${TRACE_B:-off}
BENCH=ab
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

(($# == 2)) || die "usage: bench/ab.sh BUILD_A BUILD_B (a commit, or . for the working tree)"
[[ $VIA == go-client || $VIA == round-robin ]] || die "VIA must be go-client or round-robin, got '$VIA'"
[[ $CALLERS =~ ^[0-9]+$ ]] && ((CALLERS >= 1 && CALLERS <= 1024)) || die "CALLERS must be 1–1024, got '$CALLERS'"
[[ $DURATION =~ ^[0-9]+$ ]] && ((DURATION >= 1 && DURATION <= 60)) || die "DURATION must be 1–60 seconds, got '$DURATION'"
[[ $ROUNDS =~ ^[0-9]+$ ]] && ((ROUNDS >= 1 && ROUNDS <= 10)) || die "ROUNDS must be 1–10, got '$ROUNDS'"
[[ $PORT_BASE =~ ^[0-9]+$ ]] && ((PORT_BASE >= 1024 && PORT_BASE <= 65000)) || die "PORT_BASE must be 1024–65000"
for trace in "$TRACE_A" "$TRACE_B"; do
	[[ $trace == off || $trace =~ ^(0(\.[0-9]+)?|1(\.0+)?)$ ]] || die "TRACE_A and TRACE_B must be off or a ratio 0–1, got '$trace'"
done
for p in 0 1 2 10 11 12 20 21 22 30 31 32; do port_free $((PORT_BASE + p)) || die "port $((PORT_BASE + p)) is in use; pick another PORT_BASE"; done

TMP=$(mktemp -d -t idnode-ab.XXXXXX)
PIDS=()
COLLECTOR_PID=
trap 'stop_pids "${PIDS[@]}" $COLLECTOR_PID; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

# build NAME REV: idnode and idbench of REV (or the working tree) into $TMP/NAME.
build() {
	local src=$PWD
	if [[ $2 != . ]]; then
		src=$TMP/src-$1
		mkdir -p "$src"
		git archive "$(git rev-parse --verify "$2^{commit}")" | tar -x -C "$src"
	fi
	go -C "$src" build -o "$TMP/$1/idnode" ./cmd/idnode
	go -C "$src/cmd/idbench" build -o "$TMP/$1/idbench" .
}
log "building A ($1) and B ($2)"
build A "$1"
build B "$2"

# The Collector, when a build traces: on loopback, encoding every span it receives as a
# production exporter would and writing it to /dev/null, so that a run at 100% fills no disk.
COLLECTOR_OTLP=127.0.0.1:$((PORT_BASE + 31))
if [[ $TRACE_A != off || $TRACE_B != off ]]; then
	log "building and starting the OpenTelemetry Collector (test/e2e/tracing/otelcol)"
	go -C test/e2e/tracing/otelcol build -o "$TMP/otelcol" .
	OTELCOL_OTLP_GRPC_ADDR=127.0.0.1:$((PORT_BASE + 30)) OTELCOL_OTLP_HTTP_ADDR=$COLLECTOR_OTLP OTELCOL_SPANS_FILE=/dev/null \
		OTELCOL_METRICS_LEVEL=basic OTELCOL_METRICS_PORT=$((PORT_BASE + 32)) "$TMP/otelcol" --config test/e2e/tracing/otelcol/otelcol.yaml >"$TMP/otelcol.log" 2>&1 &
	COLLECTOR_PID=$!
	deadline=$((SECONDS + 60))
	until curl -sf "http://127.0.0.1:$((PORT_BASE + 32))/metrics" >/dev/null && ! port_free $((PORT_BASE + 31)); do
		kill -0 "$COLLECTOR_PID" 2>/dev/null || die "the Collector exited: $(tail -n 5 "$TMP/otelcol.log")"
		((SECONDS < deadline)) || die "the Collector does not answer after 60 s"
		sleep 0.2
	done
fi

# spans_received: the spans the Collector has taken in since it started.
spans_received() {
	curl -sf "http://127.0.0.1:$((PORT_BASE + 32))/metrics" | awk '/^otelcol_receiver_accepted_spans/ { n += $2 } END { printf "%d", n }'
}
SPANS_SEEN=0

# tracing_env TRACE: the environment of a node that traces that share of its calls (none when off).
tracing_env() {
	[[ $1 == off ]] && return
	echo "OTEL_EXPORTER_OTLP_ENDPOINT=http://$COLLECTOR_OTLP OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG=$1"
}

cpu() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$1/stat"; } # utime+stime, clock ticks of 1/100 s
metric() { curl -sf "http://127.0.0.1:$((PORT_BASE + 20 + $1))/metrics" | grep -E "$2"; }
commit_index() { metric "$1" '^idnode_raft_commit_index ' | awk '{ print $2 }'; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# one NAME: one run of build NAME on a fresh cluster.
one() {
	local bin=$TMP/$1 tags=(A B C) peers="" nodes="" addrs=() i trace env
	trace=TRACE_$1
	read -ra env <<<"$(tracing_env "${!trace}")"
	for i in 0 1 2; do
		peers+="${peers:+,}${tags[$i]}=127.0.0.1:$((PORT_BASE + 10 + i))"
		addrs+=("127.0.0.1:$((PORT_BASE + i))")
		nodes+="${nodes:+,}${addrs[$i]}"
	done
	rm -rf "$TMP/data"
	PIDS=()
	for i in 0 1 2; do
		env ${env[@]+"${env[@]}"} "$bin/idnode" --tag "${tags[$i]}" --data-dir "$TMP/data/${tags[$i]}" --grpc-addr "127.0.0.1:$((PORT_BASE + i))" \
			--metrics-addr "127.0.0.1:$((PORT_BASE + 20 + i))" --http-addr "" --peers "$peers" --log-level warn >"$TMP/node-$i.log" 2>&1 &
		PIDS+=($!)
	done
	wait_healthy "$bin/idnode" 60 "${addrs[@]}"
	local before=() after=() times entries collector_before
	for i in 0 1 2; do before+=("$(cpu "${PIDS[$i]}")"); done
	[[ -n $COLLECTOR_PID ]] && collector_before=$(cpu "$COLLECTOR_PID")
	entries=("$(commit_index 0)" "$(commit_index 1)" "$(commit_index 2)")
	# bash's time keyword gives idbench's own CPU (user, system) without another tool.
	times=$({ TIMEFORMAT='%U %S'; time "$bin/idbench" --nodes "$nodes" --via "$VIA" --strategy "$STRATEGY" \
		--concurrency "$CALLERS" --duration "${DURATION}s" --prefix ab --progress=false >"$TMP/idbench.out" 2>&1; } 2>&1) ||
		die "idbench failed: $(cat "$TMP/idbench.out")"
	for i in 0 1 2; do after+=("$(cpu "${PIDS[$i]}")"); done
	echo "== $1, tracing ${!trace}, load average $(cut -d' ' -f1 /proc/loadavg)"
	grep -E '^  (IDs|latency|errors)' "$TMP/idbench.out"
	local line="  CPU s   idbench $(awk '{ printf "%.2f", $1 + $2 }' <<<"$times")"
	for i in 0 1 2; do
		line+="  ${tags[$i]} $(since "${before[$i]}" "${after[$i]}")"
		if metric "$i" '^idnode_raft_state{state="leader"} 1' >/dev/null; then
			line+=" (leader, $(($(commit_index "$i") - ${entries[$i]})) entries)"
		fi
	done
	[[ -n $COLLECTOR_PID ]] && line+="  collector $(since "$collector_before" "$(cpu "$COLLECTOR_PID")")"
	echo "$line"
	stop_pids "${PIDS[@]}"
	PIDS=()
	if [[ -n $COLLECTOR_PID ]]; then
		local seen
		seen=$(spans_received)
		echo "  spans   the Collector received $((seen - SPANS_SEEN)) from this run's nodes"
		SPANS_SEEN=$seen
	fi
}

echo "$(date -u '+%Y-%m-%d %H:%M') UTC: A is $1 (tracing $TRACE_A), B is $2 (tracing $TRACE_B); $VIA, $STRATEGY, $CALLERS callers, ${DURATION}s a run, $ROUNDS rounds"
for _ in $(seq "$ROUNDS"); do
	one A
	one B
done
