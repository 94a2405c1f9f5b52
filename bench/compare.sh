#!/usr/bin/env bash
# bench/compare.sh — what one cluster-wide, consecutive ID costs: idnode identities side by side
# with what users would otherwise build on, at the same callers.
#
# It measures, for each caller count, one ID per call:
#   - idnode identities (Generate "cmpN|", through Raft) two ways: round-robin, each caller on a
#     raw gRPC connection to one of the three nodes, followers relaying to the leader (what ghz,
#     grpcurl or a client in another language does); and through the Go client, which sends
#     identities to the leader it learned;
#   - the etcd compare-and-swap counter users build on etcd, and etcd's raw Put as "one
#     replicated write";
#   - a PostgreSQL sequence (SELECT nextval), one connection per caller: a single server, NOT
#     replicated, with fsync=on and synchronous_commit=on (PostgreSQL's defaults);
# errors by code for every run, plus server-side IDs on one node and the nodes' memory.
#
# It installs etcd and PostgreSQL from Debian if they are missing, builds idnode and idbench,
# starts a 3-member etcd cluster, a 3-node idnode cluster (both fsync every commit, their
# defaults) and a private PostgreSQL server (initdb in a temp dir), all on loopback, runs the
# same callers against each for $DURATION, stops everything it started and writes the results
# into the "Identities vs etcd" section of docs/BENCHMARKS-HISTORY.md (other sections are left as they
# are).
#
#   bench/compare.sh                         # defaults below; ~5 minutes with DURATION=10s
#   DURATION=20s CALLERS="16 64" bench/compare.sh
#
# Settings (environment):
#   DURATION   length of each run, whole seconds, 1s–25s (default 10s; 22 runs in all)
#   CALLERS    concurrent callers, one run each per workload (default "1 16 64 256")
#   CONNS      gRPC connections per node / etcd clients / Go clients, shared by the callers
#              (default 1; PostgreSQL callers each have their own connection)
#   PORT_BASE  first of the loopback ports used: etcd clients +0..2, etcd peers +10..12,
#              idnode gRPC +20..22, idnode Raft +30..32, PostgreSQL +40 (default 32300)
#   DOC        the file to update (default docs/BENCHMARKS-HISTORY.md, the log of runs; copy the figures
#              that change the answer to a question into docs/BENCHMARKS.md by hand)
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
DOC=${DOC:-$ROOT/docs/BENCHMARKS-HISTORY.md}

BENCH=compare
# shellcheck source=bench/lib.sh
source bench/lib.sh

[[ $DURATION =~ ^([0-9]+)s$ ]] || die "DURATION must be whole seconds like 10s, got '$DURATION'"
SECS=${BASH_REMATCH[1]}
((SECS >= 1 && SECS <= 25)) || die "DURATION must be 1s–25s (the whole run stays under ~12 minutes), got $DURATION"
MAX_CALLERS=0
for c in $CALLERS; do
	[[ $c =~ ^[0-9]+$ ]] && ((c >= 1 && c <= 1024)) || die "CALLERS must be numbers 1–1024, got '$c'"
	((c > MAX_CALLERS)) && MAX_CALLERS=$c
done
[[ $CONNS =~ ^[0-9]+$ ]] && ((CONNS >= 1 && CONNS <= 64)) || die "CONNS must be 1–64, got '$CONNS'"
[[ $PORT_BASE =~ ^[0-9]+$ ]] && ((PORT_BASE >= 1024 && PORT_BASE <= 65000)) || die "PORT_BASE must be 1024–65000"

# --- etcd and PostgreSQL from Debian, if missing ---------------------------------------------
# debian_install PKG... : apt-get install, as root or through sudo.
debian_install() {
	local sudo=
	if [[ $(id -u) != 0 ]]; then
		command -v sudo >/dev/null || die "need root (or sudo) to apt-get install $*"
		sudo=sudo
	fi
	$sudo env DEBIAN_FRONTEND=noninteractive sh -c "apt-get update -qq && apt-get install -y -qq $*" >&2
}
if ! command -v etcd >/dev/null || ! command -v etcdctl >/dev/null; then
	log "etcd not found: installing etcd-server and etcd-client from Debian"
	debian_install etcd-server etcd-client
	command -v etcd >/dev/null && command -v etcdctl >/dev/null || die "etcd still missing after apt-get install"
fi
# Debian keeps the server programs out of PATH, under /usr/lib/postgresql/<major>/bin. (Its
# package may also create and start a cluster of its own on port 5432: this script does not use it.)
PGBIN=$(pg_bindir)
if [[ -z $PGBIN ]]; then
	log "PostgreSQL not found: installing postgresql from Debian"
	debian_install postgresql
	PGBIN=$(pg_bindir)
	[[ -n $PGBIN ]] || die "PostgreSQL still missing after apt-get install postgresql (no /usr/lib/postgresql/*/bin/initdb)"
fi
# initdb and postgres refuse to run as root: as root they run as Debian's postgres user.
AS_PG=()
if [[ $(id -u) == 0 ]]; then
	id postgres >/dev/null 2>&1 || die "running as root but there is no postgres user to run PostgreSQL as (apt-get install postgresql creates it)"
	AS_PG=(setpriv --reuid=postgres --regid=postgres --init-groups --)
fi

# --- everything we start is tracked here and stopped on exit ----------------------------------
TMP=$(mktemp -d -t idnode-compare.XXXXXX)
PIDS=()
SAMPLER=
cleanup() {
	local rc=$?
	set +e
	[[ -n $SAMPLER ]] && kill "$SAMPLER" 2>/dev/null
	((rc == 0)) || last_lines 15
	stop_pids "${PIDS[@]}"
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ETCD_CLIENT=() ETCD_PEER=() ID_GRPC=() ID_RAFT=()
for i in 0 1 2; do
	ETCD_CLIENT+=($((PORT_BASE + i))) ETCD_PEER+=($((PORT_BASE + 10 + i)))
	ID_GRPC+=($((PORT_BASE + 20 + i))) ID_RAFT+=($((PORT_BASE + 30 + i)))
done
PG_PORT=$((PORT_BASE + 40))
for p in "${ETCD_CLIENT[@]}" "${ETCD_PEER[@]}" "${ID_GRPC[@]}" "${ID_RAFT[@]}" "$PG_PORT"; do
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

# --- PostgreSQL: one server, not replicated; fsync=on and synchronous_commit=on (its defaults) --
# A private cluster in $TMP: trust authentication on 127.0.0.1 only, no Unix socket, room for
# one connection per caller. (initdb --no-sync skips syncing initdb's own files; the server
# syncs as configured.)
PG_DATA=$TMP/postgres
if ((${#AS_PG[@]})); then
	chmod 711 "$TMP" # the postgres user reaches its data dir, nothing else
	install -d -o postgres -g postgres -m 700 "$PG_DATA"
fi
"${AS_PG[@]}" "$PGBIN/initdb" -D "$PG_DATA" -U idbench --auth=trust -E UTF8 --no-sync >"$TMP/initdb.log" 2>&1 ||
	die "initdb failed: $(tail -n 5 "$TMP/initdb.log")"
"${AS_PG[@]}" "$PGBIN/postgres" -D "$PG_DATA" -p "$PG_PORT" -c listen_addresses=127.0.0.1 -c unix_socket_directories= \
	-c max_connections=$((MAX_CALLERS + 10)) >"$TMP/postgres.log" 2>&1 &
PIDS+=($!) PG_PID=$!
PG_DSN="postgres://idbench@127.0.0.1:$PG_PORT/postgres?sslmode=disable"
pg_show() { "$PGBIN/psql" "$PG_DSN" -XAtc "SHOW $1"; }

# --- wait until both clusters are healthy, bounded --------------------------------------------
log "waiting (at most ${HEALTH_TIMEOUT}s) for etcd, idnode and PostgreSQL to be healthy"
deadline=$((SECONDS + HEALTH_TIMEOUT))
while :; do
	for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null || die "a cluster process (pid $pid) exited during start-up"; done
	ok=1
	ETCDCTL_API=3 etcdctl --endpoints "$ENDPOINTS" --command-timeout 2s endpoint health >/dev/null 2>&1 || ok=0
	for i in 0 1 2; do "$IDNODE" health --addr "127.0.0.1:${ID_GRPC[$i]}" --timeout 2s >/dev/null 2>&1 || ok=0; done
	"$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -t 2 || ok=0
	((ok)) && break
	((SECONDS < deadline)) || die "not all healthy after ${HEALTH_TIMEOUT}s"
	sleep 0.5
done
log "etcd, idnode and PostgreSQL healthy"

rss_of() { ps -o rss= -p "$1" 2>/dev/null | tr -d ' ' || true; }

# sample_peak PIDS... : sample RSS every 0.5 s until killed, keeping each pid's peak in $TMP/peak.<pid>.
sample_peak() {
	local pid v
	for pid in "$@"; do echo 0 >"$TMP/peak.$pid"; done
	for _ in $(seq $((SECS * 2 + 20))); do # bounded even if nobody kills it
		for pid in "$@"; do
			v=$(rss_of "$pid")
			# Written aside and renamed, so that a sampler killed mid-write leaves the last
			# peak whole rather than an empty file.
			[[ -n $v ]] && ((v > $(<"$TMP/peak.$pid"))) && echo "$v" >"$TMP/peak.$pid.new" && mv "$TMP/peak.$pid.new" "$TMP/peak.$pid"
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
PG_VERSION=$(pg_show server_version)
PG_SETTINGS="fsync=$(pg_show fsync), synchronous_commit=$(pg_show synchronous_commit), wal_sync_method=$(pg_show wal_sync_method)"
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
	out=$(timeout $((SECS + 90)) "$IDBENCH" --duration "$DURATION" --json --progress=false --label "$label" "$@") || rc=$?
	if [[ -z $out ]]; then
		log "$label: idbench failed (exit $rc), no result"
		return 0
	fi
	echo "$out" >>"$RESULTS"
	printf '%s\n' "$out" | "$IDBENCH" table --brief - | sed 's/^/compare: /' >&2
	((rc == 0)) || log "$label: idbench exit $rc (see the notes column)"
}

IDNODE_ARGS=(--nodes "$NODES" --conns "$CONNS" --strategy identity)
ETCD_ARGS=(--target etcd --endpoints "$ENDPOINTS" --conns "$CONNS")
PG_ARGS=(--target postgres --dsn "$PG_DSN" --strategy identity)
log "runs of $DURATION each at callers: $CALLERS"
for c in $CALLERS; do
	if [[ $c == 64 ]]; then
		sample_peak "${ID_PIDS[@]}" &
		SAMPLER=$!
	fi
	bench "idnode identity, round-robin" "${IDNODE_ARGS[@]}" --via round-robin --concurrency "$c" --prefix "cmp$c"
	if [[ $c == 64 ]]; then
		kill "$SAMPLER" 2>/dev/null || true
		wait "$SAMPLER" 2>/dev/null || true
		SAMPLER=
		for pid in "${ID_PIDS[@]}"; do cp "$TMP/peak.$pid" "$TMP/load.$pid"; done
	fi
	bench "idnode identity, Go client" "${IDNODE_ARGS[@]}" --via go-client --concurrency "$c" --prefix "cmpgo$c"
	bench "etcd CAS counter" "${ETCD_ARGS[@]}" --strategy identity --concurrency "$c" --prefix "cas$c"
	if [[ $c == 64 ]]; then
		sample_peak "${ETCD_PIDS[@]}" &
		SAMPLER=$!
	fi
	bench "etcd Put" "${ETCD_ARGS[@]}" --strategy put --concurrency "$c" --prefix "put$c"
	if [[ $c == 64 ]]; then
		kill "$SAMPLER" 2>/dev/null || true
		wait "$SAMPLER" 2>/dev/null || true
		SAMPLER=
		for pid in "${ETCD_PIDS[@]}"; do cp "$TMP/peak.$pid" "$TMP/load.$pid"; done
	fi
	bench "PostgreSQL nextval" "${PG_ARGS[@]}" --concurrency "$c" --prefix "ids$c"
done
# Server-side IDs are one idnode node's own work: etcd and PostgreSQL, done with, no longer
# share the two CPUs with it: idle, they still cost it CPU (docs/BENCHMARKS.md, server-side IDs).
stop_pids "${ETCD_PIDS[@]}" "$PG_PID"
for n in 1 1000; do
	bench "idnode server-side users/ count=$n" --nodes "127.0.0.1:${ID_GRPC[0]}" --conns "$CONNS" --strategy server-side --count "$n" --concurrency 64 --prefix users
done

for i in 0 1 2; do
	pid=${ID_PIDS[$i]}
	rss_record "idnode ${TAGS[$i]}" "${IDLE[$pid]}" "$(cat "$TMP/load.$pid" 2>/dev/null)" "64-caller identity, round-robin" >>"$RESULTS"
done
for i in 0 1 2; do
	pid=${ETCD_PIDS[$i]}
	rss_record "etcd e$i" "${IDLE[$pid]}" "$(cat "$TMP/load.$pid" 2>/dev/null)" "64-caller Put" >>"$RESULTS"
done

# --- the doc section ----------------------------------------------------------------------------
NPROC=$(nproc)
COMMAND="DURATION=$DURATION CALLERS=\"$CALLERS\" CONNS=$CONNS bench/compare.sh"
{
	echo "$SECTION"
	echo
	echo "Written by \`bench/compare.sh\`, which replaces this section on every run. To reproduce, from the"
	echo "repository root (needs Go, and root or sudo the first time, to \`apt-get install etcd-server etcd-client"
	echo "postgresql\`):"
	echo
	echo '```sh'
	echo "$COMMAND"
	echo '```'
	echo
	echo "What runs: a 3-member etcd cluster, a 3-node idnode cluster (\`--peers\`, fsync on, the default)"
	echo "and one PostgreSQL server, all on 127.0.0.1, all up during every run. etcd always fsyncs its WAL"
	echo "before it acknowledges a write (etcd 3.4 has no setting to turn that off), so etcd and idnode pay"
	echo "an fsync per replicated commit. PostgreSQL runs with its defaults, \`fsync=on\` and"
	echo "\`synchronous_commit=on\` (read back from the server, below), and is a single server: **not"
	echo "replicated**: its answers survive a crash or power loss (the WAL is on disk), not the loss of"
	echo "its machine or disk, which the other two survive with one node of three gone. Each run"
	echo "is \`idbench --duration $DURATION\` with N concurrent callers, each making one call at a time. On a"
	echo "busy machine the numbers are noisy: the load average below says how busy it was."
	echo
	echo "- **idnode identity, round-robin**: \`Generate{id: \"cmpN|\"}\`, one ID per call, committed through"
	echo "  Raft; caller i on a raw gRPC connection to node i mod 3 ($CONNS connection(s) per node), as ghz or"
	echo "  a client in another language would send them: two callers in three reach a follower, which"
	echo "  relays to the leader."
	echo "- **idnode identity, Go client**: one value per call through the Go client (\`client.NextIdentity\`, $CONNS"
	echo "  client(s) shared by the callers), which sends identities to the leader it learned from the"
	echo "  nodes' \`idnode-leader\` header (no relay hop) and retries \`UNAVAILABLE\` on another node."
	echo "- **etcd CAS counter**: the consecutive counter users build on etcd: \`Get(key)\`, then"
	echo "  \`Txn(If(ModRevision(key) == rev)).Then(Put(key, n+1))\`, and on a failed compare read again"
	echo "  and retry. One ID per success; latency is per ID, retries included. At the end idbench checks"
	echo "  that the successes equal the counter's advance (no duplicates, no gaps)."
	echo "- **etcd Put**: \`Put\` of distinct keys, the cost of one replicated write in etcd ($CONNS client(s)"
	echo "  balancing over the three members)."
	echo "- **PostgreSQL nextval**: \`SELECT nextval('idsN')\` on a sequence with the defaults (what an"
	echo "  IDENTITY or SERIAL column uses), one connection per caller, autocommit. At the end idbench checks"
	echo "  that the successes equal the sequence's advance (no duplicates, no gaps)."
	echo "- **idnode server-side users/**: \`Generate{id: \"users/\"}\` on one node (no Raft), count 1 and 1000."
	echo
	echo "Errors are counted by code (gRPC code, or PostgreSQL's SQLSTATE) in the errors column; a call"
	echo "cut off by the end of its own run is not an error."
	echo
	echo "| machine | |"
	echo "|---|---|"
	echo "| date | $STARTED |"
	echo "| CPU | $CPU, $NPROC cores (nproc) |"
	echo "| memory | $MEM |"
	echo "| kernel | $(uname -sr) |"
	echo "| Go | $GO_VERSION |"
	echo "| etcd | $ETCD_VERSION (Debian package; Go client go.etcd.io/etcd/client/v3 v3.5) |"
	echo "| PostgreSQL | $PG_VERSION (Debian package; one server, not replicated; $PG_SETTINGS; Go driver github.com/jackc/pgx/v5) |"
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
	echo "A PostgreSQL sequence is cheap for another reason: \`nextval\` writes a WAL record only for"
	echo "every 32nd value (and the first after a checkpoint), logging the sequence 32 values ahead; only"
	echo "those calls wait for a WAL flush when they commit, and after a crash the sequence resumes past"
	echo "the logged value, skipping what was not handed out. It is the reserve-ahead idnode's"
	echo "server-side etag uses, on one machine, with no second copy."
	echo
} >"$TMP/section.md"

if [[ $WRITE_DOC == 1 ]]; then
	mkdir -p "$(dirname "$DOC")"
	write_section "$SECTION" "$TMP/section.md" "$DOC"
	log "wrote section \"${SECTION#\#\# }\" of ${DOC#"$ROOT"/}"
else
	cat "$TMP/section.md"
fi
log "done"
