#!/usr/bin/env bash
# bench/compare.sh — idnode identities side by side with what users would otherwise build on
# etcd (a compare-and-swap counter), and with etcd's raw Put as "one replicated write".
#
# It installs etcd from Debian if it is missing, builds idnode and idbench, starts a 3-member
# etcd cluster and a 3-node idnode cluster on loopback (both fsync every commit, their
# defaults), runs the same callers against each for $DURATION, stops everything it started and
# writes the results into the "Identities vs etcd" section of docs/BENCHMARKS.md (other
# sections are left as they are).
#
#   bench/compare.sh                         # defaults below; ~3 minutes with DURATION=10s
#   DURATION=20s CALLERS="16 64" bench/compare.sh
#
# Settings (environment):
#   DURATION   length of each run, whole seconds, 1s–40s (default 10s; 14 runs in all)
#   CALLERS    concurrent callers, one run each per workload (default "1 16 64 256")
#   CONNS      gRPC connections per node / etcd clients, shared by the callers (default 1)
#   PORT_BASE  first of the loopback ports used: etcd clients +0..2, etcd peers +10..12,
#              idnode gRPC +20..22, idnode Raft +30..32 (default 32300)
#   DOC        the file to update (default docs/BENCHMARKS.md)
#   WRITE_DOC  0 prints the section instead of writing it (default 1)
set -euo pipefail

DURATION=${DURATION:-10s}
CALLERS=${CALLERS:-"1 16 64 256"}
CONNS=${CONNS:-1}
PORT_BASE=${PORT_BASE:-32300}
WRITE_DOC=${WRITE_DOC:-1}
HEALTH_TIMEOUT=60 # seconds for both clusters to become healthy
SECTION="## Identities vs etcd"

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
DOC=${DOC:-$ROOT/docs/BENCHMARKS.md}

log() { printf 'compare: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

[[ $DURATION =~ ^([0-9]+)s$ ]] || die "DURATION must be whole seconds like 10s, got '$DURATION'"
SECS=${BASH_REMATCH[1]}
((SECS >= 1 && SECS <= 40)) || die "DURATION must be 1s–40s (the whole run stays under ~10 minutes), got $DURATION"
for c in $CALLERS; do
	[[ $c =~ ^[0-9]+$ ]] && ((c >= 1 && c <= 1024)) || die "CALLERS must be numbers 1–1024, got '$c'"
done
[[ $CONNS =~ ^[0-9]+$ ]] && ((CONNS >= 1 && CONNS <= 64)) || die "CONNS must be 1–64, got '$CONNS'"
[[ $PORT_BASE =~ ^[0-9]+$ ]] && ((PORT_BASE >= 1024 && PORT_BASE <= 65000)) || die "PORT_BASE must be 1024–65000"

# --- etcd from Debian, if missing -------------------------------------------------------------
if ! command -v etcd >/dev/null || ! command -v etcdctl >/dev/null; then
	log "etcd not found: installing etcd-server and etcd-client from Debian"
	SUDO=
	if [[ $(id -u) != 0 ]]; then
		command -v sudo >/dev/null || die "need root (or sudo) to apt-get install etcd-server etcd-client"
		SUDO=sudo
	fi
	$SUDO env DEBIAN_FRONTEND=noninteractive sh -c 'apt-get update -qq && apt-get install -y -qq etcd-server etcd-client' >&2
	command -v etcd >/dev/null && command -v etcdctl >/dev/null || die "etcd still missing after apt-get install"
fi

# --- everything we start is tracked here and stopped on exit ----------------------------------
TMP=$(mktemp -d -t idnode-compare.XXXXXX)
PIDS=()
SAMPLER=
cleanup() {
	local rc=$?
	set +e
	[[ -n $SAMPLER ]] && kill "$SAMPLER" 2>/dev/null
	if ((rc != 0)); then
		for f in "$TMP"/*.log; do
			[[ -f $f ]] || continue
			log "last lines of $(basename "$f"):"
			tail -n 15 "$f" >&2
		done
	fi
	for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
	for pid in "${PIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ETCD_CLIENT=() ETCD_PEER=() ID_GRPC=() ID_RAFT=()
for i in 0 1 2; do
	ETCD_CLIENT+=($((PORT_BASE + i))) ETCD_PEER+=($((PORT_BASE + 10 + i)))
	ID_GRPC+=($((PORT_BASE + 20 + i))) ID_RAFT+=($((PORT_BASE + 30 + i)))
done
for p in "${ETCD_CLIENT[@]}" "${ETCD_PEER[@]}" "${ID_GRPC[@]}" "${ID_RAFT[@]}"; do
	port_free "$p" || die "port 127.0.0.1:$p is in use; pick another PORT_BASE"
done

# --- build --------------------------------------------------------------------------------------
log "building idnode and idbench"
mkdir -p "$TMP/bin"
go build -o "$TMP/bin/idnode" ./cmd/idnode
# idbench is a module of its own (cmd/idbench/go.mod), so it is built from its directory.
go -C cmd/idbench build -o "$TMP/bin/idbench" .
IDNODE=$TMP/bin/idnode
IDBENCH=$TMP/bin/idbench

# --- etcd: 3 members, default durability (the WAL is fsynced on every commit) ---------------
CLUSTER=""
for i in 0 1 2; do CLUSTER+="${CLUSTER:+,}e$i=http://127.0.0.1:${ETCD_PEER[$i]}"; done
ETCD_PIDS=()
for i in 0 1 2; do
	etcd --name "e$i" --data-dir "$TMP/etcd-e$i" \
		--listen-client-urls "http://127.0.0.1:${ETCD_CLIENT[$i]}" --advertise-client-urls "http://127.0.0.1:${ETCD_CLIENT[$i]}" \
		--listen-peer-urls "http://127.0.0.1:${ETCD_PEER[$i]}" --initial-advertise-peer-urls "http://127.0.0.1:${ETCD_PEER[$i]}" \
		--initial-cluster "$CLUSTER" --initial-cluster-token idbench --initial-cluster-state new \
		--logger zap --log-outputs stderr --log-level warn >"$TMP/etcd-e$i.log" 2>&1 &
	PIDS+=($!) ETCD_PIDS+=($!)
done
ENDPOINTS=""
for i in 0 1 2; do ENDPOINTS+="${ENDPOINTS:+,}127.0.0.1:${ETCD_CLIENT[$i]}"; done

# --- idnode: 3 nodes, static peers, fsync on (the default) -----------------------------------
PEERS="A=127.0.0.1:${ID_RAFT[0]},B=127.0.0.1:${ID_RAFT[1]},C=127.0.0.1:${ID_RAFT[2]}"
TAGS=(A B C)
ID_PIDS=()
for i in 0 1 2; do
	"$IDNODE" --tag "${TAGS[$i]}" --data-dir "$TMP/idnode-${TAGS[$i]}" --grpc-addr "127.0.0.1:${ID_GRPC[$i]}" \
		--peers "$PEERS" --log-level warn >"$TMP/idnode-${TAGS[$i]}.log" 2>&1 &
	PIDS+=($!) ID_PIDS+=($!)
done
NODES=""
for i in 0 1 2; do NODES+="${NODES:+,}127.0.0.1:${ID_GRPC[$i]}"; done

# --- wait until both clusters are healthy, bounded --------------------------------------------
log "waiting (at most ${HEALTH_TIMEOUT}s) for etcd and idnode to be healthy"
deadline=$((SECONDS + HEALTH_TIMEOUT))
while :; do
	for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null || die "a cluster process (pid $pid) exited during start-up"; done
	ok=1
	ETCDCTL_API=3 etcdctl --endpoints "$ENDPOINTS" --command-timeout 2s endpoint health >/dev/null 2>&1 || ok=0
	for i in 0 1 2; do "$IDNODE" health --addr "127.0.0.1:${ID_GRPC[$i]}" --timeout 2s >/dev/null 2>&1 || ok=0; done
	((ok)) && break
	((SECONDS < deadline)) || die "clusters not healthy after ${HEALTH_TIMEOUT}s"
	sleep 0.5
done
log "both clusters healthy"

rss_of() { ps -o rss= -p "$1" 2>/dev/null | tr -d ' ' || true; }

# sample_peak PIDS... : sample RSS every 0.5 s until killed, keeping each pid's peak in $TMP/peak.<pid>.
sample_peak() {
	local pid v
	for pid in "$@"; do echo 0 >"$TMP/peak.$pid"; done
	for _ in $(seq $((SECS * 2 + 20))); do # bounded even if nobody kills it
		for pid in "$@"; do
			v=$(rss_of "$pid")
			[[ -n $v ]] && ((v > $(<"$TMP/peak.$pid"))) && echo "$v" >"$TMP/peak.$pid"
		done
		sleep 0.5
	done
}

# --- machine details and idle memory ----------------------------------------------------------
sleep 2 # let start-up allocations settle
declare -A IDLE
for pid in "${ID_PIDS[@]}" "${ETCD_PIDS[@]}"; do IDLE[$pid]=$(rss_of "$pid"); done
CPU=$(awk -F': *' '/^model name/ && !seen++ { print $2 }' /proc/cpuinfo)
MEM=$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)
LOADAVG=$(cut -d' ' -f1-3 /proc/loadavg)
ETCD_VERSION=$(etcd --version 2>/dev/null | awk 'NR == 1 { sub(/^etcd Version: /, ""); print }')
GO_VERSION=$(go version | cut -d' ' -f3-)
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ $COMMIT != unknown ]] && [[ -n $(git -C "$ROOT" status --porcelain 2>/dev/null) ]]; then COMMIT+=" + uncommitted changes"; fi
STARTED=$(date -u '+%Y-%m-%d %H:%M UTC')

# --- the runs -----------------------------------------------------------------------------------
RESULTS=$TMP/results.jsonl
: >"$RESULTS"
# bench LABEL ARGS... : one idbench run, appended to $RESULTS, one summary line on stderr.
bench() {
	local label=$1 out rc=0
	shift
	out=$(timeout $((SECS + 90)) "$IDBENCH" --duration "$DURATION" --conns "$CONNS" --json --progress=false --label "$label" "$@") || rc=$?
	if [[ -z $out ]]; then
		log "$label: idbench failed (exit $rc), no result"
		return 0
	fi
	echo "$out" >>"$RESULTS"
	printf '%s\n' "$out" | "$IDBENCH" table --brief - | sed 's/^/compare: /' >&2
	((rc == 0)) || log "$label: idbench exit $rc (see the notes column)"
}

log "runs of $DURATION each at callers: $CALLERS"
for c in $CALLERS; do
	if [[ $c == 64 ]]; then
		sample_peak "${ID_PIDS[@]}" &
		SAMPLER=$!
	fi
	bench "idnode identity" --nodes "$NODES" --strategy identity --concurrency "$c" --prefix "cmp$c"
	if [[ $c == 64 ]]; then
		kill "$SAMPLER" 2>/dev/null || true
		wait "$SAMPLER" 2>/dev/null || true
		SAMPLER=
		for pid in "${ID_PIDS[@]}"; do cp "$TMP/peak.$pid" "$TMP/load.$pid"; done
	fi
	bench "etcd CAS counter" --target etcd --endpoints "$ENDPOINTS" --strategy identity --concurrency "$c" --prefix "cas$c"
	if [[ $c == 64 ]]; then
		sample_peak "${ETCD_PIDS[@]}" &
		SAMPLER=$!
	fi
	bench "etcd Put" --target etcd --endpoints "$ENDPOINTS" --strategy put --concurrency "$c" --prefix "put$c"
	if [[ $c == 64 ]]; then
		kill "$SAMPLER" 2>/dev/null || true
		wait "$SAMPLER" 2>/dev/null || true
		SAMPLER=
		for pid in "${ETCD_PIDS[@]}"; do cp "$TMP/peak.$pid" "$TMP/load.$pid"; done
	fi
done
for n in 1 1000; do
	bench "idnode server-side users/ count=$n" --nodes "127.0.0.1:${ID_GRPC[0]}" --strategy server-side --count "$n" --concurrency 64 --prefix users
done

for i in 0 1 2; do
	pid=${ID_PIDS[$i]}
	printf '{"kind":"rss","process":"idnode %s","idle_kb":%s,"load_kb":%s,"load":"64-caller identity"}\n' \
		"${TAGS[$i]}" "${IDLE[$pid]:-0}" "$(cat "$TMP/load.$pid" 2>/dev/null || echo 0)" >>"$RESULTS"
done
for i in 0 1 2; do
	pid=${ETCD_PIDS[$i]}
	printf '{"kind":"rss","process":"etcd e%s","idle_kb":%s,"load_kb":%s,"load":"64-caller Put"}\n' \
		"$i" "${IDLE[$pid]:-0}" "$(cat "$TMP/load.$pid" 2>/dev/null || echo 0)" >>"$RESULTS"
done

# --- the doc section ----------------------------------------------------------------------------
NPROC=$(nproc)
COMMAND="DURATION=$DURATION CALLERS=\"$CALLERS\" CONNS=$CONNS bench/compare.sh"
{
	echo "$SECTION"
	echo
	echo "Written by \`bench/compare.sh\`, which replaces this section on every run. To reproduce, from the"
	echo "repository root (needs Go, and root or sudo the first time, to \`apt-get install etcd-server etcd-client\`):"
	echo
	echo '```sh'
	echo "$COMMAND"
	echo '```'
	echo
	echo "What runs: a 3-member etcd cluster and a 3-node idnode cluster (\`--peers\`, fsync on, the"
	echo "default), all on 127.0.0.1, both up during every run. etcd always fsyncs its WAL before it"
	echo "acknowledges a write (etcd 3.4 has no setting to turn that off), so both sides pay an fsync per replicated"
	echo "commit. Each run is \`idbench --duration $DURATION\` with N concurrent callers, each making one call at a"
	echo "time over $CONNS connection(s) per node; idnode callers are spread round-robin over the three nodes"
	echo "(a follower relays identity calls to the leader), the etcd client balances over the three members."
	echo "On a busy machine the numbers are noisy: the load average below says how busy it was."
	echo
	echo "- **idnode identity**: \`Generate{id: \"cmpN|\"}\`, one ID per call, committed through Raft."
	echo "- **etcd CAS counter**: the consecutive counter users build on etcd: \`Get(key)\`, then"
	echo "  \`Txn(If(ModRevision(key) == rev)).Then(Put(key, n+1))\`, and on a failed compare read again"
	echo "  and retry. One ID per success; latency is per ID, retries included. At the end idbench checks"
	echo "  that the successes equal the counter's advance (no duplicates, no gaps)."
	echo "- **etcd Put**: \`Put\` of distinct keys, the cost of one replicated write in etcd."
	echo "- **idnode server-side users/**: \`Generate{id: \"users/\"}\` on one node (no Raft), count 1 and 1000."
	echo
	echo "| machine | |"
	echo "|---|---|"
	echo "| date | $STARTED |"
	echo "| CPU | $CPU, $NPROC cores (nproc) |"
	echo "| memory | $MEM |"
	echo "| kernel | $(uname -sr) |"
	echo "| Go | $GO_VERSION |"
	echo "| etcd | $ETCD_VERSION (Debian package; Go client go.etcd.io/etcd/client/v3 v3.5) |"
	echo "| idnode | commit $COMMIT |"
	echo "| load average at start | $LOADAVG |"
	echo
	"$IDBENCH" table "$RESULTS"
	echo "Reading it: every etcd CAS attempt, won or lost, is a replicated, fsynced write (a Txn with a"
	echo "Put in it goes through etcd's Raft log even when its compare fails), and of the callers that"
	echo "read the same revision only one can win. More callers therefore do not add IDs: they add"
	echo "losing writes (the conflicts per ID in the notes) that slow every round down, so the counter's"
	echo "IDs/s falls as callers are added while its latency grows to seconds. idnode's leader"
	echo "coalesces concurrent identity requests into one Raft entry, so one fsync serves many callers."
	echo
} >"$TMP/section.md"

if [[ $WRITE_DOC == 1 ]]; then
	mkdir -p "$(dirname "$DOC")"
	[[ -f $DOC ]] || printf '# Benchmarks\n' >"$DOC"
	# Replace our section (from its heading to the next "## " heading) or append it.
	awk -v section="$SECTION" -v file="$TMP/section.md" '
		function emit() { while ((getline line < file) > 0) print line; close(file); done = 1 }
		$0 == section { emit(); skip = 1; next }
		skip && /^## / { skip = 0 }
		!skip { print }
		END { if (!done) { print ""; emit() } }
	' "$DOC" >"$DOC.tmp.$$"
	mv "$DOC.tmp.$$" "$DOC"
	log "wrote section \"${SECTION#\#\# }\" of ${DOC#"$ROOT"/}"
else
	cat "$TMP/section.md"
fi
log "done"
