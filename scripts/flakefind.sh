#!/usr/bin/env bash
# Runs the tests of chosen packages N times under a load it makes, and reports every test that
# failed in any run: how often, and the last lines of its first failure (internal/cmd/flakefind;
# docs/testing.md, "Finding flaky tests"). Exits 1 when a test failed, 2 on a wrong command line.
#
#   scripts/flakefind.sh -n 20 -busy 2 -race ./test/e2e/cluster
#   scripts/flakefind.sh -n 5 -run TestPowerCutLeaderAlone -beside './server' -race ./test/e2e/powercut
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/flakefind" ./internal/cmd/flakefind
status=0
"$bin/flakefind" "$@" || status=$?
exit "$status"
