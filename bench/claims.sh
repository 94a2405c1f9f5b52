#!/usr/bin/env bash
# bench/claims.sh — what claims cost one idnode node (issue 14, "Bounded cost"): for each size
# N, a fresh single node on loopback is filled with N claims by `idbench --strategy claim`
# (1000 IDs per Claim, "users/<caller>-<seq>", no owner), and the script records
#
#   - the resident set (/proc/PID/status VmRSS) before and after, and the live heap after a
#     forced GC (GET /debug/pprof/heap?gc=1, then go_memstats_heap_alloc_bytes on /metrics);
#   - a Raft snapshot: the log is padded past SnapshotThreshold with single identities (an
#     entry each, state unchanged but for one counter), raft takes the snapshot on its own
#     timer, and its time is read from raft's "starting snapshot" / "snapshot complete" log
#     lines, its size from snapshots/*/state.bin, the peak resident set while it ran from VmHWM
#     (reset first through /proc/PID/clear_refs);
#   - a restart: SIGTERM, then the node again on the same data dir, timed to SERVING (gRPC
#     health, `idnode health`) and to the first answered GetClaims of a claimed ID
#     (`idctl claims users/<caller>-0`), and the resident set after it.
#
# Then, unless IDENTITY=0: `users|` identities at 16 callers on a fresh node, before and after
# 10^5 claims of identity-shaped `users/<n>` IDs (which every identity of users then looks up),
# and `orders|` (no claims on that prefix) after.
#
# It prints markdown (the machine, one table row per N, the identity lines) on stdout; progress
# goes to stderr. Every process it starts and its temp dir go away on exit, Ctrl-C included.
#
#   bench/claims.sh                                 # ~6 minutes on 2 cores
#   SIZES=100000 IDENTITY=0 bench/claims.sh          # one size, no identity lines
#
# Settings (environment):
#   SIZES              claims per run, multiples of 1000, at most 2000000 (default "100000 1000000")
#   CALLERS            idbench callers filling the claims (default 8)
#   IDENTITY           1: also the identity lines (default 1)
#   IDENTITY_DURATION  length of each identity run, whole seconds 1s–30s (default 10s)
#   PORT_BASE          loopback ports PORT_BASE..+2: gRPC, Raft, metrics (default 32400)
set -euo pipefail

SIZES=${SIZES:-"100000 1000000"}
CALLERS=${CALLERS:-8}
IDENTITY=${IDENTITY:-1}
IDENTITY_DURATION=${IDENTITY_DURATION:-10s}
PORT_BASE=${PORT_BASE:-32400}
START_TIMEOUT=120    # seconds for a node to serve (a restart restores the snapshot first)
SNAPSHOT_TIMEOUT=150 # seconds for raft's timer (SnapshotInterval, randomised up to 2×) and the snapshot
STOP_TIMEOUT=30      # seconds for a node to exit after SIGTERM

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

log() { printf 'claims: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

for n in $SIZES; do
	[[ $n =~ ^[0-9]+$ ]] && ((n >= 1000 && n <= 2000000 && n % 1000 == 0)) || die "SIZES must be multiples of 1000 up to 2000000, got '$n'"
done
[[ $CALLERS =~ ^[0-9]+$ ]] && ((CALLERS >= 1 && CALLERS <= 64)) || die "CALLERS must be 1–64, got '$CALLERS'"
[[ $IDENTITY == 0 || $IDENTITY == 1 ]] || die "IDENTITY must be 0 or 1"
[[ $IDENTITY_DURATION =~ ^([0-9]+)s$ ]] && ((BASH_REMATCH[1] >= 1 && BASH_REMATCH[1] <= 30)) || die "IDENTITY_DURATION must be 1s–30s"
IDENTITY_SECS=${IDENTITY_DURATION%s}
[[ $PORT_BASE =~ ^[0-9]+$ ]] && ((PORT_BASE >= 1024 && PORT_BASE <= 65000)) || die "PORT_BASE must be 1024–65000"
for tool in curl jq; do command -v $tool >/dev/null || die "needs $tool"; done

# raft snapshots when the log holds SnapshotThreshold entries past the last snapshot: read it
# from the source, so the padding follows the node's setting.
THRESHOLD=$(awk '/^var DefaultTiming/ { in_t = 1 } in_t && /SnapshotThreshold:/ { gsub(/[^0-9]/, "", $2); print $2; exit }' cluster/config.go)
[[ $THRESHOLD =~ ^[0-9]+$ ]] && ((THRESHOLD > 0 && THRESHOLD <= 100000)) || die "cannot read SnapshotThreshold from cluster/config.go (got '$THRESHOLD')"

GRPC=127.0.0.1:$PORT_BASE RAFT=127.0.0.1:$((PORT_BASE + 1)) METRICS=127.0.0.1:$((PORT_BASE + 2))
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for p in $PORT_BASE $((PORT_BASE + 1)) $((PORT_BASE + 2)); do
	port_free "$p" || die "port 127.0.0.1:$p is in use; pick another PORT_BASE"
done

# --- the node we run, stopped on exit --------------------------------------------------------
TMP=$(mktemp -d -t idnode-claims.XXXXXX)
NODE=
cleanup() {
	local rc=$?
	set +e
	if [[ -n $NODE ]]; then
		kill -TERM "$NODE" 2>/dev/null
		for _ in $(seq 100); do kill -0 "$NODE" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$NODE" 2>/dev/null
		wait "$NODE" 2>/dev/null
	fi
	if ((rc != 0)); then
		for f in "$TMP"/*.log; do
			[[ -f $f ]] || continue
			log "last lines of $(basename "$f"):"
			tail -n 10 "$f" >&2
		done
	fi
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "building idnode, idctl and idbench"
mkdir -p "$TMP/bin"
go build -o "$TMP/bin/idnode" ./cmd/idnode
go build -o "$TMP/bin/idctl" ./cmd/idctl
go -C cmd/idbench build -o "$TMP/bin/idbench" .
IDNODE=$TMP/bin/idnode IDCTL=$TMP/bin/idctl IDBENCH=$TMP/bin/idbench

now() { echo "${EPOCHREALTIME/./}"; } # microseconds
secs() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1e6 }'; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; } # VmRSS, VmHWM of pid
alive() { [[ -n $NODE ]] && kill -0 "$NODE" 2>/dev/null; }

# start DATADIR LOG: starts the node in the background (NODE=its pid).
start() {
	"$IDNODE" --tag A --data-dir "$1" --grpc-addr "$GRPC" --raft-addr "$RAFT" \
		--metrics-addr "$METRICS" --pprof --log-format json --log-level info >"$2" 2>&1 &
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
# claimed ID: GetClaims answers with ID among the claims.
claimed() { "$IDCTL" --addr "$GRPC" claims "$1" --json 2>/dev/null | jq -e --arg id "$1" 'any(.[]; .id == $id)'; }

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

# log_ms LOG MSG: the time of raft's first log line MSG, in Unix milliseconds.
log_ms() {
	local t
	t=$(jq -rR --arg m "$2" 'fromjson? | select(.msg == $m) | .time' "$1" | head -n 1)
	[[ -n $t ]] || return 1
	date -d "$t" +%s%3N
}

# --- machine --------------------------------------------------------------------------------
CPU=$(awk -F': *' '/^model name/ && !seen++ { print $2 }' /proc/cpuinfo)
MEM=$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ $COMMIT != unknown ]] && [[ -n $(git -C "$ROOT" status --porcelain 2>/dev/null) ]]; then COMMIT+=" + uncommitted changes"; fi
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
others
echo "| machine | |"
echo "|---|---|"
echo "| date | $(date -u '+%Y-%m-%d %H:%M UTC') |"
echo "| CPU | $CPU, $(nproc) cores (nproc) |"
echo "| memory | $MEM |"
echo "| Go | $(go version | cut -d' ' -f3-) |"
GC_NOTE="GOGC=400 (the node's default)"
[[ -n ${GOGC:-} ]] && GC_NOTE="GOGC=$GOGC from the environment"
echo "| idnode | commit $COMMIT, $GC_NOTE |"
echo "| load average at start | $(cut -d' ' -f1-3 /proc/loadavg) |"
echo
echo "| claims | fill | RSS empty → filled | live heap after GC (per claim) | snapshot bytes (per claim) | snapshot written | RSS peak while snapshotting | stop | restart → SERVING (snapshot restore) | → first GetClaims | RSS after restart | raft.db |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"

for N in $SIZES; do
	DATA=$TMP/data-$N
	log "N=$N: fresh node"
	start "$DATA" "$TMP/node-$N.log"
	wait_for "SERVING" "$START_TIMEOUT" serving
	rss0=$(status_kb "$NODE" VmRSS) heap0=$(heap)

	log "N=$N: filling $N claims ($((N / 1000)) Claim calls of 1000, $CALLERS callers)"
	fill=$(timeout 660 "$IDBENCH" --nodes "$GRPC" --strategy claim --count 1000 --concurrency "$CALLERS" \
		--ops $((N / 1000)) --prefix users --timeout 30s --json --progress=false) || die "idbench claim failed: $fill"
	ids=$(jq -r .ids <<<"$fill") errs=$(jq -r .errors <<<"$fill") fill_s=$(jq -r .duration_s <<<"$fill")
	((ids == N && errs == 0)) || die "the fill claimed $ids IDs with $errs errors, want $N and none: $fill"
	# The ID a restart is probed with: the first ID of a caller that made a call.
	firsts=()
	for ((c = 0; c < CALLERS; c++)); do firsts+=("users/$c-0"); done
	probe=$("$IDCTL" --addr "$GRPC" claims "${firsts[@]}" --json | jq -r '.[0].id // empty')
	[[ -n $probe ]] || die "none of ${firsts[*]} is claimed after the fill"
	rss1=$(status_kb "$NODE" VmRSS) heap1=$(heap)
	others
	log "N=$N: filled in ${fill_s}s; RSS ${rss0} → ${rss1} kB, live heap $heap0 → $heap1 bytes"

	# The snapshot: pad the log just past the threshold (one identity at a time, an entry each),
	# then wait for raft's timer. The padding ends as the log crosses the threshold, so the
	# snapshot starts after it: the peak resident set is the snapshot's alone.
	index=$("$IDCTL" --addr "$GRPC" status --json | jq -r '[.nodes[].commit_index] | max')
	[[ $index =~ ^[0-9]+$ ]] || die "no commit index from idctl status: '$index'"
	pad=$((THRESHOLD - index + 16))
	((pad > 0)) || pad=1
	log "N=$N: padding the log (index $index) with $pad identities, then waiting for raft's snapshot"
	t0=$(now)
	timeout 300 "$IDBENCH" --nodes "$GRPC" --strategy identity --concurrency 1 --ops "$pad" \
		--prefix pad --json --progress=false >"$TMP/pad-$N.json" || die "padding failed: $(cat "$TMP/pad-$N.json")"
	log "N=$N: padded in $(secs $(($(now) - t0)))s"
	echo 5 >"/proc/$NODE/clear_refs" # resets VmHWM to the current resident set
	early=0
	log_ms "$TMP/node-$N.log" "starting snapshot up to" >/dev/null && early=1
	wait_for "snapshot" "$SNAPSHOT_TIMEOUT" log_ms "$TMP/node-$N.log" "snapshot complete up to"
	snap_start=$(log_ms "$TMP/node-$N.log" "starting snapshot up to")
	snap_end=$(log_ms "$TMP/node-$N.log" "snapshot complete up to")
	state=$(find "$DATA/raft/snapshots" -name state.bin | head -n 1)
	[[ -n $state ]] || die "raft logged a snapshot but there is no state.bin under $DATA/raft/snapshots"
	snap_bytes=$(stat -c %s "$state")
	hwm=$(status_kb "$NODE" VmHWM)
	others
	peak=$(mb $((hwm * 1024)))
	((early == 0)) || peak="– (began during the padding)"

	stop
	stop_s=$STOP_S
	raftdb=$(stat -c %s "$DATA/raft/raft.db")
	log "N=$N: snapshot $snap_bytes bytes in $((snap_end - snap_start)) ms; stopped in ${stop_s}s; restarting"

	t0=$(now)
	start "$DATA" "$TMP/restart-$N.log"
	wait_for "SERVING after the restart" "$START_TIMEOUT" serving
	t_serving=$(($(now) - t0))
	wait_for "GetClaims after the restart" "$START_TIMEOUT" claimed "$probe"
	t_claims=$(($(now) - t0))
	rss2=$(status_kb "$NODE" VmRSS)
	restore_ms=-1
	if r0=$(log_ms "$TMP/restart-$N.log" "starting restore from snapshot") && r1=$(log_ms "$TMP/restart-$N.log" "restored from snapshot"); then
		restore_ms=$((r1 - r0))
	fi
	((restore_ms >= 0)) || die "the restart did not restore the snapshot (no raft restore lines in its log)"
	log "N=$N: SERVING after $(secs "$t_serving")s, GetClaims after $(secs "$t_claims")s; snapshot restored in ${restore_ms} ms"
	others
	stop
	rm -rf "$DATA"

	per_claim=$(((heap1 - heap0) / N))
	printf '| %s | %ss (%s claims/s) | %s → %s | %s (%d B) | %s (%.1f B) | %.2fs | %s | %ss | %ss (%.2fs) | %ss | %s | %s |\n' \
		"$N" "$(printf %.1f "$fill_s")" "$(jq -r '.ids_per_sec | floor' <<<"$fill")" \
		"$(mb $((rss0 * 1024)))" "$(mb $((rss1 * 1024)))" "$(mb "$heap1")" "$per_claim" \
		"$(mb "$snap_bytes")" "$(awk -v b="$snap_bytes" -v n="$N" 'BEGIN { print b / n }')" \
		"$(awk -v ms=$((snap_end - snap_start)) 'BEGIN { print ms / 1000 }')" "$peak" \
		"$stop_s" "$(secs "$t_serving")" "$(awk -v ms="$restore_ms" 'BEGIN { print ms / 1000 }')" "$(secs "$t_claims")" "$(mb $((rss2 * 1024)))" "$(mb "$raftdb")"
done

if ((IDENTITY)); then
	DATA=$TMP/data-identity
	log "identities: fresh node; users| at 16 callers for $IDENTITY_DURATION, before and after 100000 claims of users/<n>"
	start "$DATA" "$TMP/node-identity.log"
	wait_for "SERVING" "$START_TIMEOUT" serving
	ident() { # LABEL PREFIX: one identity run, one markdown line (a | in LABEL is escaped: \|)
		local out
		out=$(timeout $((IDENTITY_SECS + 60)) "$IDBENCH" --nodes "$GRPC" --strategy identity --concurrency 16 \
			--duration "$IDENTITY_DURATION" --prefix "$2" --json --progress=false) || die "identity run failed: $out"
		jq -r --arg l "$1" 'def ms: . * 100 | round / 100;
			"| \($l) | \(.ids_per_sec | floor) | \(.latency_ms.p50 | ms) | \(.latency_ms.p99 | ms) | \(.errors) |"' <<<"$out"
		others
	}
	echo
	echo "| identities, 16 callers, $IDENTITY_DURATION | IDs/s | p50 ms | p99 ms | errors |"
	echo "|---|--:|--:|--:|--:|"
	ident '`users\|`, no claims' users
	fill=$(timeout 300 "$IDBENCH" --nodes "$GRPC" --strategy claim --claim-ids numbers --count 1000 --concurrency "$CALLERS" \
		--ops 100 --prefix users --timeout 30s --json --progress=false) || die "idbench claim failed: $fill"
	[[ $(jq -r '.ids == 100000 and .errors == 0' <<<"$fill") == true ]] || die "the numbers fill went wrong: $fill"
	ident '`users\|`, 100,000 claims `users/<n>` (n ≥ 10¹²)' users
	ident '`orders\|`, same node, no claims on the prefix' orders
	others
	stop
fi
echo
echo "Other work while it ran: at most $MAX_CONTAINERS docker containers up, highest 1-minute load average $MAX_LOAD (sampled at each step; $(nproc) cores)."
log "done"
