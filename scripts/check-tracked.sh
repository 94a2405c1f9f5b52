#!/usr/bin/env bash
# Fails when git tracks a build output or a large file: an executable (ELF, Mach-O, PE) or
# anything over 1 MB. Binaries are built from the source (make build, make dist); a committed
# one goes stale (an idctl older than its source was once tracked at the root).
set -euo pipefail
cd "$(dirname "$0")/.."
limit=1000000
status=0
while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue
  size=$(stat -c %s "$f")
  if ((size > limit)); then
    echo "$f: $size bytes, over the $limit-byte limit for a tracked file"
    status=1
  fi
  case "$(od -An -tx1 -N4 "$f" | tr -d ' \n')" in
  7f454c46 | cffaedfe | cefaedfe | feedfacf | feedface | cafebabe | 4d5a*)
    echo "$f: an executable (build output): delete it from git (git rm --cached) and ignore it"
    status=1
    ;;
  esac
done < <(git ls-files -z)
((status == 0)) && echo "tracked files: no build output, none over $limit bytes"
exit "$status"
