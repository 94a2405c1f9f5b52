# bench/lib.sh — what the benchmark scripts share. Sourced, not run; set BENCH (the name
# progress lines start with) before sourcing.
#
# Every script: log, die, port_free, stop_pids, last_lines, and others/others_line (how shared
# the machine was). The three-node scripts (bench/compare.sh, bench/hilo_pools.sh,
# bench/series.sh, bench/opaque.sh) start their own clusters and stop them with stop_pids;
# hilo_pools.sh, series.sh and opaque.sh set up through cluster_init, and series.sh and
# opaque.sh start their nodes with cluster_start.
#
# bench/regions.sh starts no process of its own: it runs the benchmarks of test/regions, whose
# clusters are in-process, and uses log, die, others, others_line and machine_table.
#
# The single-node benchmarks of state (bench/claims.sh, bench/state_growth.sh,
# bench/memory_run.sh): one idnode on loopback, started, measured, snapshotted, restarted and
# stopped the same way. They call bench_init, which
# reads PORT_BASE (loopback ports PORT_BASE..+2: gRPC, Raft, metrics; default 32400), builds
# idnode, idctl and idbench into a temp dir, and makes sure the node and the temp dir go away
# on exit, Ctrl-C included.

START_TIMEOUT=120    # seconds for a node to serve (a restart restores the snapshot first)
SNAPSHOT_TIMEOUT=150 # seconds for raft's timer (SnapshotInterval, randomised up to 2×) and the snapshot
STOP_TIMEOUT=30      # seconds for a node to exit after SIGTERM

log() { printf '%s: %s\n' "$BENCH" "$*" >&2; }
die() {
	log "$*"
	exit 1
}

now() { echo "${EPOCHREALTIME/./}"; } # microseconds
secs() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1e6 }'; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; } # VmRSS, VmHWM of pid
alive() { [[ -n $NODE ]] && kill -0 "$NODE" 2>/dev/null; }
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; } # nothing listens on 127.0.0.1:PORT

# stop_pids PID...: SIGTERM to each, SIGKILL to any still running 10 s later, and reap them.
# A process that has exited already is stopped: under set -e (an EXIT trap's call included) a
# kill or wait that finds it gone must not end the script with their status.
stop_pids() {
	local pid
	for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "$@"; do
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
}

# rss_record PROCESS IDLE_KB LOAD_KB LOAD: one "rss" line of a results file, as `idbench table`
# reads it. A sample that is not a whole number (a process that had exited, a sampler stopped
# before its first write) is written as null, which the table shows as "–", so one missed
# sample never makes the whole file unreadable.
rss_record() {
	local idle=$2 load=$3
	[[ $idle =~ ^[0-9]+$ ]] || idle=null
	[[ $load =~ ^[0-9]+$ ]] || load=null
	printf '{"kind":"rss","process":"%s","idle_kb":%s,"load_kb":%s,"load":"%s"}\n' "$1" "$idle" "$load" "$4"
}

# wait_healthy IDNODE SECS ADDR...: until the node at each gRPC ADDR passes `idnode health`,
# dying when SECS seconds pass first.
wait_healthy() {
	local bin=$1 secs=$2 addr
	local deadline=$((SECONDS + secs))
	shift 2
	for addr in "$@"; do
		until "$bin" health --addr "$addr" --timeout 2s >/dev/null 2>&1; do
			((SECONDS < deadline)) || die "the node at $addr is not healthy after $secs s"
			sleep 0.2
		done
	done
}

# last_lines N: the last N lines of every log in $TMP, on stderr: what a failed run leaves.
last_lines() {
	local f
	for f in "$TMP"/*.log; do
		[[ -f $f ]] || continue
		log "last lines of $(basename "$f"):"
		tail -n "$1" "$f" >&2
	done
}

# cluster_init LINES: for the scripts that start their own clusters: makes the temp dir TMP,
# builds idnode and idbench into it (IDNODE, IDBENCH), and makes sure every process in the array
# PIDS (empty at first; the script adds what it starts) and the temp dir go away on exit,
# Ctrl-C included. A failed run shows the last LINES lines of every log in $TMP first.
cluster_init() {
	TMP=$(mktemp -d -t "idnode-$BENCH.XXXXXX")
	PIDS=()
	# shellcheck disable=SC2064 # LINES is expanded now, on purpose
	trap "cluster_cleanup $1" EXIT
	trap 'exit 130' INT TERM

	log "building idnode and idbench"
	mkdir -p "$TMP/bin"
	go build -o "$TMP/bin/idnode" ./cmd/idnode
	go -C cmd/idbench build -o "$TMP/bin/idbench" . # a module of its own
	IDNODE=$TMP/bin/idnode IDBENCH=$TMP/bin/idbench
}

# cluster_start [FLAG...]: after cluster_init, starts three nodes A, B and C on loopback with
# static peers (fsync on, the default): gRPC on PORT_BASE+0..2, Raft on PORT_BASE+10..12, data
# in $TMP/node-TAG and the log in $TMP/node-TAG.log, each node with the flags FLAG... as well.
# It adds their pids to PIDS, sets ADDRS (their gRPC addresses) and NODES (the same joined by
# commas, as idbench and idctl take them), and waits at most 60 s until every node is healthy.
cluster_start() {
	local tags=(A B C) peers="" i
	ADDRS=() NODES=""
	for i in 0 1 2; do
		port_free $((PORT_BASE + i)) && port_free $((PORT_BASE + 10 + i)) || die "ports of PORT_BASE=$PORT_BASE are in use; pick another"
		peers+="${peers:+,}${tags[$i]}=127.0.0.1:$((PORT_BASE + 10 + i))"
		ADDRS+=("127.0.0.1:$((PORT_BASE + i))")
		NODES+="${NODES:+,}${ADDRS[$i]}"
	done
	for i in 0 1 2; do
		"$IDNODE" --tag "${tags[$i]}" --data-dir "$TMP/node-${tags[$i]}" --grpc-addr "${ADDRS[$i]}" \
			--peers "$peers" --log-level warn "$@" >"$TMP/node-${tags[$i]}.log" 2>&1 &
		PIDS+=($!)
	done
	log "waiting (at most 60 s) for the cluster"
	wait_healthy "$IDNODE" 60 "${ADDRS[@]}"
}

# cluster_cleanup LINES: cluster_init's exit trap: stops the processes in PIDS, shows the last
# LINES lines of the logs when the script failed, and removes the temp dir.
cluster_cleanup() {
	local rc=$?
	set +e
	stop_pids "${PIDS[@]}"
	((rc == 0)) || last_lines "$1"
	rm -rf "$TMP"
	exit "$rc"
}

# bench_init: checks the settings and tools, builds the binaries (IDNODE, IDCTL, IDBENCH),
# and sets ROOT, TMP, GRPC, METRICS and THRESHOLD.
bench_init() {
	cd "$(dirname "${BASH_SOURCE[0]}")/.."
	ROOT=$PWD
	PORT_BASE=${PORT_BASE:-32400}
	[[ $PORT_BASE =~ ^[0-9]+$ ]] && ((PORT_BASE >= 1024 && PORT_BASE <= 65000)) || die "PORT_BASE must be 1024–65000"
	for tool in curl jq; do command -v $tool >/dev/null || die "needs $tool"; done

	# raft snapshots when the log holds SnapshotThreshold entries past the last snapshot: read
	# it from the source, so the padding follows the node's setting.
	THRESHOLD=$(awk '/^var DefaultTiming/ { in_t = 1 } in_t && /SnapshotThreshold:/ { gsub(/[^0-9]/, "", $2); print $2; exit }' cluster/config.go)
	[[ $THRESHOLD =~ ^[0-9]+$ ]] && ((THRESHOLD > 0 && THRESHOLD <= 100000)) || die "cannot read SnapshotThreshold from cluster/config.go (got '$THRESHOLD')"

	GRPC=127.0.0.1:$PORT_BASE RAFT=127.0.0.1:$((PORT_BASE + 1)) METRICS=127.0.0.1:$((PORT_BASE + 2))
	for p in $PORT_BASE $((PORT_BASE + 1)) $((PORT_BASE + 2)); do
		port_free "$p" || die "port 127.0.0.1:$p is in use; pick another PORT_BASE"
	done

	TMP=$(mktemp -d -t "idnode-$BENCH.XXXXXX")
	NODE=
	trap cleanup EXIT
	trap 'exit 130' INT TERM

	log "building idnode, idctl and idbench"
	mkdir -p "$TMP/bin"
	go build -o "$TMP/bin/idnode" ./cmd/idnode
	go build -o "$TMP/bin/idctl" ./cmd/idctl
	go -C cmd/idbench build -o "$TMP/bin/idbench" .
	IDNODE=$TMP/bin/idnode IDCTL=$TMP/bin/idctl IDBENCH=$TMP/bin/idbench
}

# cleanup stops the node (SIGTERM, then SIGKILL after 10 s), shows the logs' last lines when
# the script failed, and removes the temp dir.
cleanup() {
	local rc=$?
	set +e
	[[ -n $NODE ]] && stop_pids "$NODE"
	((rc == 0)) || last_lines 10
	rm -rf "$TMP"
	exit "$rc"
}

# start DATADIR LOG: starts the node in the background (NODE=its pid), with the flags in the
# array NODE_FLAGS if the script set one.
start() {
	"$IDNODE" --tag A --data-dir "$1" --grpc-addr "$GRPC" --raft-addr "$RAFT" \
		--metrics-addr "$METRICS" --pprof --log-format json --log-level info ${NODE_FLAGS[@]+"${NODE_FLAGS[@]}"} >"$2" 2>&1 &
	NODE=$!
}

# wait_for WHAT TIMEOUT CMD...: runs CMD every 50 ms until it succeeds, the node dies or
# TIMEOUT seconds pass.
wait_for() {
	local what=$1 timeout=$2 deadline
	shift 2
	deadline=$((SECONDS + timeout))
	until "$@" >/dev/null 2>&1; do
		alive || die "the node exited while waiting for $what"
		((SECONDS < deadline)) || die "no $what after ${timeout}s"
		sleep 0.05
	done
}

serving() { "$IDNODE" health --addr "$GRPC" --timeout 1s; }

# heap: the live heap in bytes after a forced collection.
heap() {
	curl -fsS --max-time 30 "http://$METRICS/debug/pprof/heap?gc=1" -o /dev/null
	curl -fsS --max-time 10 "http://$METRICS/metrics" | awk '$1 == "go_memstats_heap_alloc_bytes" { printf "%d\n", $2 }'
}

# stop: SIGTERM and wait (in this shell, which reaps the node); STOP_S is the seconds it took.
stop() {
	local t0 deadline
	t0=$(now)
	kill -TERM "$NODE"
	deadline=$((SECONDS + STOP_TIMEOUT))
	while kill -0 "$NODE" 2>/dev/null; do
		((SECONDS < deadline)) || die "the node did not exit within ${STOP_TIMEOUT}s of SIGTERM"
		sleep 0.05
	done
	wait "$NODE" 2>/dev/null || true
	NODE=
	STOP_S=$(secs $(($(now) - t0)))
}

# log_ms LOG MSG: the time of raft's last log line MSG, in Unix milliseconds.
log_ms() {
	local t
	t=$(jq -rR --arg m "$2" 'fromjson? | select(.msg == $m) | .time' "$1" | tail -n 1)
	[[ -n $t ]] || return 1
	date -d "$t" +%s%3N
}

# log_count LOG MSG: how many of raft's log lines are MSG.
log_count() { jq -rR --arg m "$2" 'fromjson? | select(.msg == $m) | .msg' "$1" | wc -l; }

# more_lines LOG MSG N: whether LOG has more than N lines MSG.
more_lines() { (($(log_count "$1" "$2") > $3)); }

# snapshot DATADIR LOG: has raft take a snapshot and measures it. The log is padded with single
# identities of the counter "pad" (an entry each, state unchanged but for that counter) just
# past SnapshotThreshold entries after the last snapshot, then raft's timer takes it. Sets
# SNAP_MS (raft's "starting snapshot" → "snapshot complete": create, Persist, fsync,
# compaction), SNAP_BYTES (its state.bin) and SNAP_PEAK (VmHWM while it ran, reset through
# /proc/PID/clear_refs once the padding is done; "–" when it began during the padding).
snapshot() {
	local data=$1 logf=$2 index last=0 m pad t0 before hwm state early=0
	index=$("$IDCTL" --addr "$GRPC" status --json | jq -r '[.nodes[].commit_index] | max')
	[[ $index =~ ^[0-9]+$ ]] || die "no commit index from idctl status: '$index'"
	for m in "$data"/raft/snapshots/*/meta.json; do
		[[ -f $m ]] && last=$(jq -r --argjson l "$last" '[.Index, $l] | max' "$m")
	done
	pad=$((THRESHOLD - (index - last) + 16))
	((pad > 0)) || pad=1
	before=$(log_count "$logf" "snapshot complete up to")
	log "padding the log (index $index, last snapshot at $last) with $pad identities, then waiting for raft's snapshot"
	t0=$(now)
	timeout 300 "$IDBENCH" --nodes "$GRPC" --strategy identity --concurrency 1 --ops "$pad" \
		--prefix pad --json --progress=false >"$TMP/pad.json" || die "padding failed: $(cat "$TMP/pad.json")"
	log "padded in $(secs $(($(now) - t0)))s"
	echo 5 >"/proc/$NODE/clear_refs" # resets VmHWM to the current resident set
	more_lines "$logf" "starting snapshot up to" "$before" && early=1
	wait_for "snapshot" "$SNAPSHOT_TIMEOUT" more_lines "$logf" "snapshot complete up to" "$before"
	SNAP_MS=$(($(log_ms "$logf" "snapshot complete up to") - $(log_ms "$logf" "starting snapshot up to")))
	state=$(ls -td "$data"/raft/snapshots/*/ | head -n 1)state.bin
	[[ -f $state ]] || die "raft logged a snapshot but there is no $state"
	SNAP_BYTES=$(stat -c %s "$state")
	hwm=$(status_kb "$NODE" VmHWM)
	SNAP_PEAK=$(mb $((hwm * 1024)))
	((early == 0)) || SNAP_PEAK="– (began during the padding)"
}

# restart DATADIR LOG PROBE...: stops the node and starts it again on the same data dir,
# timed from the exec to SERVING (`idnode health`, polled every 50 ms) and to the first
# success of the command PROBE (which reads the state back). Sets STOP_S, RAFTDB_BYTES (after
# the stop), T_SERVING and T_PROBE (microseconds), RESTORE_MS (raft's "starting restore" →
# "restored from snapshot") and RSS_AFTER (kB).
restart() {
	local data=$1 logf=$2 t0 r0 r1
	shift 2
	stop
	RAFTDB_BYTES=$(stat -c %s "$data/raft/raft.db")
	t0=$(now)
	start "$data" "$logf"
	wait_for "SERVING after the restart" "$START_TIMEOUT" serving
	T_SERVING=$(($(now) - t0))
	wait_for "the probe after the restart ($*)" "$START_TIMEOUT" "$@"
	T_PROBE=$(($(now) - t0))
	RSS_AFTER=$(status_kb "$NODE" VmRSS)
	r0=$(log_ms "$logf" "starting restore from snapshot") && r1=$(log_ms "$logf" "restored from snapshot") ||
		die "the restart did not restore the snapshot (no raft restore lines in $logf)"
	RESTORE_MS=$((r1 - r0))
}

# others: notes the most docker containers and the highest load average seen so far, so the
# report says whether the machine was shared while it ran (times are then upper bounds).
MAX_CONTAINERS=0 MAX_LOAD=0
others() {
	local c=0 l
	command -v docker >/dev/null && c=$(docker ps -q 2>/dev/null | wc -l)
	((c > MAX_CONTAINERS)) && MAX_CONTAINERS=$c
	l=$(cut -d' ' -f1 /proc/loadavg)
	MAX_LOAD=$(awk -v a="$MAX_LOAD" -v b="$l" 'BEGIN { print (b > a ? b : a) }')
}

# machine_table: the markdown table of the machine, the build and the load at the start.
machine_table() {
	local commit gc_note="GOGC the node's own (400, lowered as its live heap passes 16 MiB)"
	commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
	if [[ $commit != unknown ]] && [[ -n $(git -C "$ROOT" status --porcelain 2>/dev/null) ]]; then commit+=" + uncommitted changes"; fi
	[[ -n ${GOGC:-} ]] && gc_note="GOGC=$GOGC from the environment"
	others
	echo "| machine | |"
	echo "|---|---|"
	echo "| date | $(date -u '+%Y-%m-%d %H:%M UTC') |"
	echo "| CPU | $(awk -F': *' '/^model name/ && !seen++ { print $2 }' /proc/cpuinfo), $(nproc) cores (nproc) |"
	echo "| memory | $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo) |"
	echo "| Go | $(go version | cut -d' ' -f3-) |"
	echo "| idnode | commit $commit, $gc_note |"
	echo "| load average at start | $(cut -d' ' -f1-3 /proc/loadavg) |"
}

# others_line: the closing line on how shared the machine was.
others_line() {
	echo "Other work while it ran: at most $MAX_CONTAINERS docker containers up, highest 1-minute load average $MAX_LOAD (sampled at each step; $(nproc) cores)."
}

# write_section SECTION FILE DOC: replaces the section of DOC that starts with the heading
# SECTION (up to the next "## " heading) with FILE's text, or appends it.
write_section() {
	local section=$1 file=$2 doc=$3
	[[ -f $doc ]] || printf '# Benchmarks\n' >"$doc"
	awk -v section="$section" -v file="$file" '
		function emit() { while ((getline line < file) > 0) print line; close(file); done = 1 }
		$0 == section { emit(); skip = 1; next }
		skip && /^## / { skip = 0 }
		!skip { print }
		END { if (!done) { print ""; emit() } }
	' "$doc" >"$doc.tmp.$$"
	mv "$doc.tmp.$$" "$doc"
}

# pg_bindir: the newest installed PostgreSQL's server programs (Debian keeps them out of PATH).
pg_bindir() { find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/initdb' 2>/dev/null | sort -V | tail -n 1 | xargs -r dirname; }
