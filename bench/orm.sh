#!/usr/bin/env bash
# bench/orm.sh — what a key from idnode costs an application that saves rows through its ORM,
# beside PostgreSQL's own bigserial: rows/s inserted by the same application code (the drill's
# two programs, contrib/gorm/cmd/ormapp through GORM and clients/python/examples/ormapp.py
# through SQLAlchemy, in their --quiet mode), at the same workers and batch size, one table per
# key form:
#   - counters: idnode HiLo integers (the numbers of HiLo IDs, tag "counters");
#   - serials:  PostgreSQL's bigserial, the baseline;
#   - orders:   RavenDB-style HiLo strings (orders/17-A) in a text primary key;
#   - invoices: idnode identities (through Raft, a block per batch);
#   - events:   numeric 64-bit IDs minted in-process on a leased worker.
# The target: HiLo integers at 0.95× bigserial or better, in each language.
#
# It builds idnode and the Go program, starts a three-node idnode cluster (fsync on, its
# default) and a private PostgreSQL server (initdb in a temp dir; fsync and synchronous_commit
# on, its defaults) on loopback, runs each program against each table in turn for $DURATION
# (the tables emptied before each run), stops everything it started and writes the "ORM
# inserts" section of docs/BENCHMARKS-ORM.md.
#
#   bench/orm.sh                               # defaults below; about 4 minutes
#   DURATION=20s WORKERS=16 BATCH=50 bench/orm.sh
#
# Settings (environment):
#   DURATION   length of each run, whole seconds, 1s–60s (default 15s; 10 runs)
#   WORKERS    concurrent inserters per program, 1–64 (default 8)
#   BATCH      rows per transaction, 1–1000 (default 10)
#   PORT_BASE  first loopback port: idnode gRPC +0..2, Raft +10..12, PostgreSQL +20 (default 32500)
#   DOC        the file to update (default docs/BENCHMARKS-ORM.md)
#   WRITE_DOC  0 prints the section instead of writing it (default 1)
set -euo pipefail

DURATION=${DURATION:-15s}
WORKERS=${WORKERS:-8}
BATCH=${BATCH:-10}
PORT_BASE=${PORT_BASE:-32500}
WRITE_DOC=${WRITE_DOC:-1}
HEALTH_TIMEOUT=60 # seconds for the cluster and PostgreSQL to serve
SECTION="## ORM inserts: idnode keys beside bigserial"
# The tables in the order they run, and the key form each holds.
TABLES=(counters serials orders invoices events)
declare -A FORM=(
	[counters]="idnode HiLo integers"
	[serials]="PostgreSQL bigserial"
	[orders]="idnode HiLo strings (orders/17-A)"
	[invoices]="idnode identities"
	[events]="idnode numeric 64-bit IDs"
)
PYTHON=/usr/bin/python3 # Debian's, which sees Debian's grpcio, SQLAlchemy and psycopg2

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
DOC=${DOC:-$ROOT/docs/BENCHMARKS-ORM.md}

BENCH=orm
# shellcheck source=bench/lib.sh
source bench/lib.sh

[[ $DURATION =~ ^([0-9]+)s$ ]] || die "DURATION must be whole seconds like 15s, got '$DURATION'"
SECS=${BASH_REMATCH[1]}
((SECS >= 1 && SECS <= 60)) || die "DURATION must be 1s–60s, got $DURATION"
[[ $WORKERS =~ ^[0-9]+$ ]] && ((WORKERS >= 1 && WORKERS <= 64)) || die "WORKERS must be 1–64, got '$WORKERS'"
[[ $BATCH =~ ^[0-9]+$ ]] && ((BATCH >= 1 && BATCH <= 1000)) || die "BATCH must be 1–1000, got '$BATCH'"
[[ $PORT_BASE =~ ^[0-9]+$ ]] && ((PORT_BASE >= 1024 && PORT_BASE <= 65000)) || die "PORT_BASE must be 1024–65000"
for tool in jq "$PYTHON"; do command -v "$tool" >/dev/null || die "needs $tool"; done
"$PYTHON" -c 'import grpc, google.protobuf, sqlalchemy, psycopg2' 2>/dev/null ||
	die "the Python program needs python3-grpcio, python3-protobuf, python3-sqlalchemy and python3-psycopg2 (apt-get install them)"
PGBIN=$(pg_bindir)
[[ -n $PGBIN ]] || die "PostgreSQL is not installed (apt-get install postgresql)"
# initdb and postgres refuse to run as root: as root they run as Debian's postgres user.
AS_PG=()
if [[ $(id -u) == 0 ]]; then
	id postgres >/dev/null 2>&1 || die "running as root but there is no postgres user to run PostgreSQL as (apt-get install postgresql creates it)"
	AS_PG=(setpriv --reuid=postgres --regid=postgres --init-groups --)
fi

ID_GRPC=() ID_RAFT=()
for i in 0 1 2; do ID_GRPC+=($((PORT_BASE + i))) ID_RAFT+=($((PORT_BASE + 10 + i))); done
PG_PORT=$((PORT_BASE + 20))
for p in "${ID_GRPC[@]}" "${ID_RAFT[@]}" "$PG_PORT"; do
	port_free "$p" || die "port 127.0.0.1:$p is in use; pick another PORT_BASE"
done

# --- everything started is tracked here and stopped on exit -----------------------------------
TMP=$(mktemp -d -t idnode-orm.XXXXXX)
PIDS=()
cleanup() {
	local rc=$?
	set +e
	((rc == 0)) || last_lines 15
	stop_pids "${PIDS[@]}"
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "building idnode and the Go program"
mkdir -p "$TMP/bin"
go build -o "$TMP/bin/idnode" ./cmd/idnode
go -C contrib/gorm build -o "$TMP/bin/ormapp" ./cmd/ormapp # a module of its own
IDNODE=$TMP/bin/idnode

# --- idnode: three nodes, static peers, fsync on ------------------------------------------------
PEERS="A=127.0.0.1:${ID_RAFT[0]},B=127.0.0.1:${ID_RAFT[1]},C=127.0.0.1:${ID_RAFT[2]}"
TAGS=(A B C)
NODES="" ADDRS=()
for i in 0 1 2; do
	"$IDNODE" --tag "${TAGS[$i]}" --data-dir "$TMP/idnode-${TAGS[$i]}" --grpc-addr "127.0.0.1:${ID_GRPC[$i]}" \
		--peers "$PEERS" --log-level warn >"$TMP/idnode-${TAGS[$i]}.log" 2>&1 &
	PIDS+=($!)
	NODES+="${NODES:+,}127.0.0.1:${ID_GRPC[$i]}" ADDRS+=("127.0.0.1:${ID_GRPC[$i]}")
done

# --- PostgreSQL: one private server, its default durability -------------------------------------
PG_DATA=$TMP/postgres
if ((${#AS_PG[@]})); then
	chmod 711 "$TMP" # the postgres user reaches its data dir, nothing else
	install -d -o postgres -g postgres -m 700 "$PG_DATA"
fi
"${AS_PG[@]}" "$PGBIN/initdb" -D "$PG_DATA" -U idnode --auth=trust -E UTF8 --no-locale --no-sync >"$TMP/initdb.log" 2>&1 ||
	die "initdb failed: $(tail -n 5 "$TMP/initdb.log")"
"${AS_PG[@]}" "$PGBIN/postgres" -D "$PG_DATA" -p "$PG_PORT" -c listen_addresses=127.0.0.1 -c unix_socket_directories= \
	-c max_connections=$((2 * WORKERS + 20)) >"$TMP/postgres.log" 2>&1 &
PIDS+=($!)
PG_DSN="postgres://idnode@127.0.0.1:$PG_PORT/postgres?sslmode=disable"
psql_c() { "$PGBIN/psql" "$PG_DSN" -XAtq -v ON_ERROR_STOP=1 -c "$1"; }

log "waiting (at most ${HEALTH_TIMEOUT}s) for idnode and PostgreSQL"
deadline=$((SECONDS + HEALTH_TIMEOUT))
until "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -t 2; do
	((SECONDS < deadline)) || die "PostgreSQL does not accept connections after ${HEALTH_TIMEOUT}s"
	sleep 0.2
done
wait_healthy "$IDNODE" "$HEALTH_TIMEOUT" "${ADDRS[@]}"
for table in "${TABLES[@]}"; do
	key="id bigint PRIMARY KEY"
	[[ $table == orders ]] && key="id text PRIMARY KEY"
	[[ $table == serials ]] && key="id bigserial PRIMARY KEY"
	psql_c "CREATE TABLE $table ($key, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL)"
done

# --- the runs: each program, each table, one after the other ------------------------------------
declare -A RATE ERRS
run() { # run LANG TABLE: one run; its rows/s into RATE, its errors into ERRS
	local lang=$1 table=$2 out
	local cmd=("$TMP/bin/ormapp")
	[[ $lang == python ]] && cmd=(env "PYTHONPATH=$ROOT/clients/python/src" "$PYTHON" "$ROOT/clients/python/examples/ormapp.py")
	psql_c "TRUNCATE $table"
	others
	out=$(timeout $((SECS + 60)) "${cmd[@]}" --nodes "$NODES" --dsn "$PG_DSN" --tables "$table" --workers "$WORKERS" \
		--batch "$BATCH" --duration "$DURATION" --max-rows 100000000 --quiet 2>>"$TMP/$lang.log" | tail -n 1) ||
		die "the $lang program failed on $table"
	RATE[$lang.$table]=$(jq -r '.rows_per_second | floor' <<<"$out")
	ERRS[$lang.$table]=$(jq -r '[.errors[]] | add' <<<"$out")
	log "$lang $table (${FORM[$table]}): ${RATE[$lang.$table]} rows/s, ${ERRS[$lang.$table]} failed batches"
}
MACHINE=$(machine_table)
for lang in go python; do
	for table in "${TABLES[@]}"; do run "$lang" "$table"; done
done

FAILED=0
for k in "${!ERRS[@]}"; do FAILED=$((FAILED + ERRS[$k])); done
ratio() { awk -v a="${RATE[$1.counters]}" -v b="${RATE[$1.serials]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
PG_VERSION=$("$PGBIN/postgres" --version | awk '{ print $3 }')
{
	echo "$SECTION"
	echo
	echo "Written by \`bench/orm.sh\`, which replaces this section on every run. Rows/s inserted by the"
	echo "ORM drill's two programs ([docs/orm.md](orm.md)): Go through GORM (\`contrib/gorm/cmd/ormapp\`)"
	echo "and Python through SQLAlchemy (\`clients/python/examples/ormapp.py\`), $WORKERS workers each,"
	echo "$BATCH rows per transaction, $DURATION per run, one table at a time, against a three-node idnode"
	echo "cluster and one PostgreSQL $PG_VERSION server (fsync and synchronous_commit on), all on loopback:"
	echo
	echo '```sh'
	echo "DURATION=$DURATION WORKERS=$WORKERS BATCH=$BATCH bench/orm.sh"
	echo '```'
	echo
	echo "$MACHINE"
	echo
	echo "| key | table | Go rows/s | Python rows/s |"
	echo "|---|---|---:|---:|"
	for table in "${TABLES[@]}"; do
		echo "| ${FORM[$table]} | \`$table\` | ${RATE[go.$table]} | ${RATE[python.$table]} |"
	done
	echo "| **HiLo integers / bigserial** (target ≥ 0.95) | | **$(ratio go)** | **$(ratio python)** |"
	echo
	echo "Failed batches (a key idnode could not give, given up after a backoff; or a PostgreSQL error) in all runs: $FAILED."
	others_line
	echo
} >"$TMP/section.md"

if [[ $WRITE_DOC == 1 ]]; then
	write_section "$SECTION" "$TMP/section.md" "$DOC"
	log "wrote section \"${SECTION#\#\# }\" of ${DOC#"$ROOT"/}"
else
	cat "$TMP/section.md"
fi
log "done"
