#!/usr/bin/env bash
# The full exhaustive power-cut run (test/e2e/crashstates): the workload's every fsync point,
# each explored twice (the node whose fsync it is cut alone, and the whole cluster cut), where
# go test explores a few spread over the recording. Needs /dev/fuse and root, as the test does.
#
#   scripts/crashstates.sh                           # every fsync point
#   IDNODE_CRASHSTATES=100 scripts/crashstates.sh    # 100 of them, spread evenly
#   CRASHSTATES_TIMEOUT=6h scripts/crashstates.sh    # a slower machine
set -euo pipefail
cd "$(dirname "$0")/.."
export IDNODE_CRASHSTATES=${IDNODE_CRASHSTATES:-all}
exec go test -count=1 -timeout "${CRASHSTATES_TIMEOUT:-3h}" -run '^TestCrashStatesAtFsyncPoints$' -v ./test/e2e/crashstates
