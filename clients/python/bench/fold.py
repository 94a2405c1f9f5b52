"""What the identity fold costs on its own, without a network: callers (threads or asyncio
tasks) each taking one identity after another through the fold, whose send waits as a Raft
round would and then answers; and, with ``--floor``, what any fold must pay at least, the same
callers handing a turn round a ring with nothing else to do.

    /usr/bin/python3 bench/fold.py --mode asyncio --seconds 3             # figures a second
    /usr/bin/python3 bench/fold.py --mode threads --seconds 3 --floor     # the ring's figures
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        /usr/bin/python3 bench/fold.py --mode asyncio --rounds 200        # instructions

With ``--seconds`` it prints one JSON line: identities a second, the process's CPU time and
context switches an identity, and callers a batch. With ``--rounds`` every caller takes that
many identities, the send answers at once and each batch waits for all its callers to be
back, so two runs with different ``--rounds`` under callgrind give the instructions an
identity (the difference of their totals over the difference of identities), free of the
machine's load. Run it from clients/python.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sys
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from idnode import _fold, _fold_tasks, _fold_threads  # noqa: E402
from idnode._calls import IdentityBlock  # noqa: E402

NAME = "bench"


class Counts:
    """The blocks handed out, as the cluster would number them, and each batch's size."""

    def __init__(self) -> None:
        self.next = 1
        self.batches: List[int] = []

    def block(self, n: int) -> IdentityBlock:
        self.batches.append(n)
        b = IdentityBlock(self.next, self.next + n - 1)
        self.next += n
        return b


def usage() -> Tuple[float, int]:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime, r.ru_nvcsw + r.ru_nivcsw


def run_tasks(callers: int, rounds: Optional[int], seconds: float, round_s: float, counts: Counts) -> int:
    async def send(name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
        await asyncio.sleep(0 if rounds else round_s)
        return counts.block(n)

    async def main() -> int:
        folder = _fold_tasks.AsyncFolder(send)
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        taken = [0]

        async def caller() -> None:
            mine = 0
            while (mine < rounds) if rounds else loop.time() < end:
                await folder.next_identity(NAME, 30.0)
                mine += 1
            taken[0] += mine

        await asyncio.gather(*[caller() for _ in range(callers)])
        return taken[0]

    return asyncio.run(main())


def run_threads(callers: int, seconds: float, round_s: float, counts: Counts) -> int:
    def send(name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
        time.sleep(round_s)
        return counts.block(n)

    folder = _fold_threads.SyncFolder(send)
    end = time.monotonic() + seconds
    taken = [0] * callers

    def caller(i: int) -> None:
        while time.monotonic() < end:
            folder.next_identity(NAME, 30.0)
            taken[i] += 1

    threads = [threading.Thread(target=caller, args=(i,)) for i in range(callers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(taken)


def ring_tasks(callers: int, seconds: float) -> int:
    """Tasks in a ring, each awaiting a future of its own and, woken, waking the next."""

    async def main() -> int:
        loop = asyncio.get_running_loop()
        turns: List["asyncio.Future[None]"] = [loop.create_future() for _ in range(callers)]
        end = loop.time() + seconds
        passed = [0]

        async def member(i: int) -> None:
            while True:
                await turns[i]
                turns[i] = loop.create_future()
                passed[0] += 1
                turns[(i + 1) % callers].set_result(None)
                if loop.time() >= end:
                    return

        tasks = [loop.create_task(member(i)) for i in range(callers)]
        turns[0].set_result(None)
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for t in tasks:
            t.cancel()
        return passed[0]

    return asyncio.run(main())


def ring_threads(callers: int, seconds: float) -> int:
    """Threads in a ring, each waiting on a lock of its own and, woken, releasing the next's."""
    turns = [threading.Lock() for _ in range(callers)]
    for lock in turns:
        lock.acquire()
    end = time.monotonic() + seconds
    passed = [0]
    stop = [False]

    def member(i: int) -> None:
        mine, following = turns[i], turns[(i + 1) % callers]
        while True:
            mine.acquire()
            if stop[0] or time.monotonic() >= end:
                stop[0] = True
                following.release()
                return
            passed[0] += 1
            following.release()

    threads = [threading.Thread(target=member, args=(i,)) for i in range(callers)]
    for t in threads:
        t.start()
    turns[0].release()
    for t in threads:
        t.join()
    return passed[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=("asyncio", "threads"), required=True)
    ap.add_argument("--callers", type=int, default=64, help="1..1024")
    ap.add_argument("--seconds", type=float, default=3.0, help="how long callers take identities; 0.5..600")
    ap.add_argument("--rounds", type=int, default=0, help="identities each caller takes instead (1..100000): for instruction counts")
    ap.add_argument("--round-ms", type=float, default=1.5, help="how long the send waits, in ms (0..100; not with --rounds)")
    ap.add_argument("--floor", action="store_true", help="measure the ring of callers instead of the fold")
    a = ap.parse_args()
    if not 1 <= a.callers <= 1024:
        ap.error("--callers must be 1..1024")
    if not 0.5 <= a.seconds <= 600:
        ap.error("--seconds must be 0.5..600")
    if not 0 <= a.rounds <= 100_000:
        ap.error("--rounds must be 1..100000")
    if a.rounds and (a.mode != "asyncio" or a.floor):
        ap.error("--rounds counts the asyncio fold's instructions (under valgrind, threads run one at a time)")
    if not 0 <= a.round_ms <= 100:
        ap.error("--round-ms must be 0..100")
    if a.rounds:
        # Each batch waits for all its callers, full whatever the machine's speed (under
        # valgrind too); only the last waits the whole second for a caller that has finished.
        _fold.REGATHER_MAX = 1.0
        _fold_tasks.REGATHER_SHARE_TASKS = 1e9
    counts = Counts()
    cpu, switches = usage()
    began = time.perf_counter()
    if a.floor:
        n = (ring_tasks if a.mode == "asyncio" else ring_threads)(a.callers, a.seconds)
    elif a.mode == "asyncio":
        n = run_tasks(a.callers, a.rounds or None, a.seconds, a.round_ms / 1000, counts)
    else:
        n = run_threads(a.callers, a.seconds, a.round_ms / 1000, counts)
    took = time.perf_counter() - began
    cpu_end, switches_end = usage()
    out: Dict[str, object] = {
        "mode": a.mode, "floor": a.floor, "callers": a.callers, "identities": n,
        "identities_per_second": round(n / took), "cpu_us_per_identity": round((cpu_end - cpu) / max(n, 1) * 1e6, 2),
        "switches_per_identity": round((switches_end - switches) / max(n, 1), 2),
        "load": os.getloadavg()[0],
    }
    if counts.batches:
        out["callers_per_batch"] = round(sum(counts.batches) / len(counts.batches), 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
