#!/usr/bin/env bash
# Runs every native Go fuzz target of the root module for a bounded time each, so CI exercises
# what the committed seed corpora alone do not reach. A target that finds a crasher fails the
# run and leaves the input under its package's testdata/fuzz/<Target>/: commit it as a seed.
#
#   scripts/fuzz.sh                  # every target, FUZZTIME each (default 15s)
#   FUZZTIME=5m scripts/fuzz.sh fsm  # the targets of the packages in these folders, longer
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-15s}

# Go 1.26's fuzzing coordinator can fail a target that found nothing at the end of -fuzztime:
# it tells the deadline from a failure by comparing the timeout's error with that of a context
# derived from it, which a busy machine can read before the cancellation reaches the child
# (go.dev/issue/75804, "context deadline exceeded" with no input written). Go 1.27 compares
# both, so the targets are fuzzed with Go 1.27.3, which the go command fetches from the module
# proxy like a module (76 MB, once per machine). FUZZ_GOTOOLCHAIN=local fuzzes with the
# machine's own Go.
export GOTOOLCHAIN=${FUZZ_GOTOOLCHAIN:-go1.27.3}
echo "fuzzing with $(go version)"

# The folders whose tests declare a target; cmd/idbench is a module of its own and has none.
if (($#)); then
  dirs=("$@")
else
  mapfile -t dirs < <(git ls-files '*_test.go' | grep -v '^cmd/idbench/' |
    xargs grep -l '^func Fuzz' | xargs -n1 dirname | sort -u)
fi

status=0
ran=0
for dir in "${dirs[@]}"; do
  for target in $(cat "$dir"/*_test.go | sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p'); do
    echo "-- ./$dir $target ($fuzztime)"
    ran=$((ran + 1))
    # A short minimisation: with Go's default of 60 s a target that keeps finding new inputs
    # spends its whole time minimising them and reports 0 execs/s.
    corpus="$dir/testdata/fuzz/$target"
    before=$(ls "$corpus" 2>/dev/null | sort || true)
    out=$(mktemp)
    for attempt in 1 2; do
      go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 5s "./$dir" 2>&1 | tee "$out" && break
      after=$(ls "$corpus" 2>/dev/null | sort || true)
      # A worker starved on a busy machine can still miss the coordinator's stop. Such a
      # failure writes no input and names no panic, and is run once more; a crasher, or a
      # second failure, fails the run.
      if ((attempt == 1)) && [ "$before" = "$after" ] && ! grep -q -e 'Failing input written' -e '^panic:' "$out"; then
        echo "-- ./$dir $target failed with no input written and no panic (the fuzzing coordinator, not the target?); once more"
        continue
      fi
      status=1
      break
    done
    rm -f "$out"
  done
done

if ((ran == 0)); then
  echo "no fuzz target found in ${dirs[*]:-the module}"
  exit 1
fi
echo "fuzz targets run: $ran"
exit "$status"
