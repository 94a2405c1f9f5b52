#!/usr/bin/env bash
# bench/clients.sh — every client's figures side by side in one run, on one three-node cluster:
# HiLo IDs/s on one thread (the generator's hot path, ranges fetched ahead)
# and identities/s with 64 concurrent callers through the three nodes (one Raft round per call,
# to the leader each client learned). The Go client through idbench, then each other client's
# own benchmark; clients whose toolchain is missing are left out, and say so.
#
#   bench/clients.sh                     # ~3 minutes
#   DURATION=15 CALLERS=64 bench/clients.sh
#   CLIENTS=go,python bench/clients.sh   # only the Go and the Python clients
#
# Settings (environment): DURATION seconds per figure (1–60, default 10), CALLERS concurrent
# identity callers (1–1024, default 64), CLIENTS the clients to measure, comma-separated, of
# go, python, java and typescript (default all; the ÷ Go column needs go among them). The cluster comes from test/conformance's idcluster
# (HiLo pools on, fsync on), on free loopback ports; it is torn down when the script ends.
# Prints one JSON line per figure ({"client", "figure", "value", …}) and then a table.
set -euo pipefail

DURATION=${DURATION:-10}
CALLERS=${CALLERS:-64}
[[ $DURATION =~ ^[0-9]+$ ]] && ((DURATION >= 1 && DURATION <= 60)) || { echo "DURATION must be 1–60 seconds" >&2; exit 1; }
[[ $CALLERS =~ ^[0-9]+$ ]] && ((CALLERS >= 1 && CALLERS <= 1024)) || { echo "CALLERS must be 1–1024" >&2; exit 1; }
CLIENTS=${CLIENTS:-go,python,java,typescript}
for c in ${CLIENTS//,/ }; do
	[[ $c =~ ^(go|python|java|typescript)$ ]] || { echo "CLIENTS: unknown client '$c' (go, python, java, typescript)" >&2; exit 1; }
done
[[ -n ${CLIENTS//,/} ]] || { echo "CLIENTS names no client (go, python, java, typescript)" >&2; exit 1; }
# wanted reports whether CLIENTS names the client $1.
wanted() { [[ ,$CLIENTS, == *,$1,* ]]; }

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BIN=$(mktemp -d)
RESULTS=$BIN/results.jsonl
trap 'exec {IDC[1]}>&- 2>/dev/null; wait 2>/dev/null; rm -rf "$BIN"' EXIT
log() { printf 'clients: %s\n' "$*" >&2; }

log "building idnode, idcluster and idbench"
go build -o "$BIN/idnode" ./cmd/idnode
go build -o "$BIN/idcluster" ./test/conformance/idcluster
go -C cmd/idbench build -o "$BIN/idbench" .

coproc IDC { "$BIN/idcluster" --idnode "$BIN/idnode" 2>"$BIN/idcluster.log"; }
echo '{"cmd":"start","topology":{"nodes":3}}' >&"${IDC[1]}"
read -r answer <&"${IDC[0]}"
field() { python3 -c 'import json,sys; c=json.loads(sys.argv[1])["cluster"]; print(",".join(n[sys.argv[2]] for n in c["nodes"]))' "$answer" "$1"; }
GRPC=$(field grpc) || { echo "idcluster: $answer" >&2; exit 1; }
HTTP=$(field http)
log "cluster: gRPC $GRPC, HTTP $HTTP; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

tag() { echo "bench$RANDOM$RANDOM"; }
# idbench's JSON result, as one line of this script's shape.
go_figure() {
	local figure=$1
	shift
	"$BIN/idbench" --nodes "$GRPC" --duration "${DURATION}s" --json "$@" |
		python3 -c 'import json,sys
r=json.loads(sys.stdin.read())
if r["errors"]: sys.exit("go %s: %d errors: %s" % (sys.argv[1], r["errors"], r["errors_by_code"]))
print(json.dumps({"client":"go","figure":sys.argv[1],"value":round(r["ids"]/r["duration_s"]),"ids":r["ids"],"seconds":r["duration_s"]}))' "$figure"
}

if ! wanted go; then
	log "go: not in CLIENTS (the ÷ Go column stays empty)"
else
	log "go: identities, $CALLERS callers"
	go_figure identities_per_second --strategy identity --via go-client --concurrency "$CALLERS" --prefix "$(tag)" >>"$RESULTS"
	# The generator alone, on one goroutine, as the other clients' benchmarks measure theirs
	# (idbench's client-hilo strategy adds idbench's own per-call accounting to every ID).
	log "go: HiLo, one thread"
	"$BIN/idbench" generator --nodes "$GRPC" --duration "${DURATION}s" --prefix "$(tag)" |
		python3 -c 'import json,sys
r=json.loads(sys.stdin.read())
print(json.dumps({"client":"go","figure":"hilo_ids_per_second","value":round(r["ids_per_second"]),"ids":r["ids"],"seconds":round(r["seconds"],3),"fetches":r["fetches"]}))' >>"$RESULTS"
fi

if ! wanted python; then
	log "python: not in CLIENTS"
elif /usr/bin/python3 -c 'import grpc' 2>/dev/null; then
	log "python"
	/usr/bin/python3 clients/python/bench/bench.py --nodes "$GRPC" --concurrency "$CALLERS" --duration "$DURATION" >>"$RESULTS"
else
	log "python: left out (apt-get install python3-grpcio python3-protobuf)"
fi

if ! wanted java; then
	log "java: not in CLIENTS"
elif command -v mvn >/dev/null && [ -d /usr/share/maven-repo/io/grpc/grpc-netty ]; then
	log "java"
	(cd clients/java && mvn -o -q test -Dtest=BenchmarkTest -DexcludedGroups= -Didnode.bench.nodes="$GRPC" -Didnode.bench.callers="$CALLERS") | grep '^{' >>"$RESULTS" || log "java: failed"
else
	log "java: left out (see clients/java/README.md for its Debian packages)"
fi

if ! wanted typescript; then
	log "typescript: not in CLIENTS"
elif command -v node >/dev/null && command -v tsc >/dev/null && [ -f clients/typescript/bench/bench.mjs ]; then
	log "typescript"
	(cd clients/typescript && tsc -p . >/dev/null && node bench/bench.mjs --nodes "$HTTP" --concurrency "$CALLERS" --duration "$DURATION") | grep '^{' >>"$RESULTS" || log "typescript: failed"
else
	log "typescript: left out (apt-get install node-typescript)"
fi

cat "$RESULTS"
python3 - "$RESULTS" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def kind(r):
    """The figure a row compares with Go's: the clients name theirs in their own words."""
    name = r.get("figure") or r.get("metric")
    return next((k for k in ("hilo", "identit", "numeric") if k in name), name)
go = {kind(r): r["value"] for r in rows if r["client"] == "go"}
print("\n| client | figure | value | ÷ Go |\n|---|---|--:|--:|")
for r in rows:
    name = r.get("figure") or r.get("metric")
    extra = f" ({r['mode']})" if r.get("mode") else ""
    ratio = f"{r['value'] / go[kind(r)]:.2f}" if go.get(kind(r)) else ""
    print(f"| {r['client']}{extra} | {name} | {r['value']:,} | {ratio} |")
PY
