#!/usr/bin/env bash
# Fails when git tracks a build output or a large file: an executable (ELF, Mach-O, PE) or
# anything over 1 MB. Binaries are built from the source (make build, make dist); a committed
# one goes stale (an idctl older than its source was once tracked at the root).
# One python3 process reads every file's size and first bytes: a stat and an od per file were
# some 4,500 processes, 100 s of a busy CI run.
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files -z | /usr/bin/python3 -c '
import os, sys
limit = 1000000
# ELF; Mach-O (32, 64, either byte order; fat); PE ("MZ").
magics = (b"\x7fELF", b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xfe\xed\xfa\xcf", b"\xfe\xed\xfa\xce", b"\xca\xfe\xba\xbe", b"MZ")
status = 0
for name in sys.stdin.buffer.read().split(b"\0"):
    if not name or not os.path.isfile(name):
        continue
    f = name.decode(errors="replace")
    size = os.path.getsize(name)
    if size > limit:
        print(f"{f}: {size} bytes, over the {limit}-byte limit for a tracked file")
        status = 1
    with open(name, "rb") as fh:
        head = fh.read(4)
    if head.startswith(magics):
        print(f"{f}: an executable (build output): delete it from git (git rm --cached) and ignore it")
        status = 1
if status == 0:
    print(f"tracked files: no build output, none over {limit} bytes")
sys.exit(status)
'
