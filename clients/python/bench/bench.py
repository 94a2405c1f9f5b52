"""Benchmark of the Python client, beside the Go client's idbench in one run:

    /usr/bin/python3 bench/bench.py --nodes A,B,C [--concurrency 64] [--duration 15]

prints one JSON line per figure: HiLo IDs/s on one thread (the generator's hot path, ranges
prefetched in the background), and identities/s with ``--concurrency`` threads through the
nodes (each call one Raft round), with latency percentiles and the process's CPU time per
identity (every thread's, gRPC's included: on a machine the cluster shares, it is what the
client takes from the cluster); then the same with asyncio tasks. Every ID is checked for
duplicates. Run it from clients/python or with the package installed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
import time
import uuid
from typing import Any, List, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import idnode  # noqa: E402
import idnode.aio  # noqa: E402


HILO_CHECKED = 1_000_000


def emit(figure: str, **fields: Any) -> None:
    print(json.dumps({"client": "python", "figure": figure, **fields}), flush=True)


def percentile(sorted_ms: List[float], p: float) -> float:
    if not sorted_ms:
        return 0.0
    return round(sorted_ms[min(len(sorted_ms) - 1, int(p / 100 * len(sorted_ms)))], 2)


def hilo_one_thread(nodes: List[str], seconds: float) -> None:
    tag = f"bench-{uuid.uuid4().hex[:8]}"
    with idnode.Client(nodes) as c:
        g = c.hilo_generator(tag)
        g.next_id()  # the first range: a cold start waits for it, steady state does not
        take = g.next_id
        n, batch = 0, 100_000
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            for _ in range(batch):
                take()
            n += batch
        took = time.perf_counter() - started
        # Checked apart from the timed loop, whose IDs are not kept (millions a second).
        sample = [take() for _ in range(HILO_CHECKED)]
        g.close()
    if len(set(sample)) != len(sample):
        raise SystemExit(f"hilo: {len(sample) - len(set(sample))} duplicate IDs in {len(sample)}")
    emit("hilo_ids_per_second", threads=1, value=round(n / took), ids=n, seconds=round(took, 3), fetches=g.fetches)


def identities_threads(nodes: List[str], threads: int, seconds: float) -> None:
    name = f"bench-{uuid.uuid4().hex[:8]}"
    values: List[List[int]] = [[] for _ in range(threads)]
    lat: List[List[float]] = [[] for _ in range(threads)]
    errors: List[str] = []
    with idnode.Client(nodes) as c:
        c.next_identity(name)  # the counter exists and the leader is known before timing
        start = threading.Barrier(threads + 1)
        stop = threading.Event()

        def work(i: int) -> None:
            start.wait()
            while not stop.is_set():
                t0 = time.perf_counter()
                try:
                    block = c.next_identity(name)
                except idnode.IdnodeError as e:
                    errors.append(repr(e))
                    return
                lat[i].append((time.perf_counter() - t0) * 1000)
                values[i].append(block.first)

        ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
        for t in ts:
            t.start()
        start.wait()
        began, cpu = time.perf_counter(), cpu_seconds()
        stop.wait(seconds)  # the measurement's length, not a synchronisation
        stop.set()
        for t in ts:
            t.join(60)
        took, cpu = time.perf_counter() - began, cpu_seconds() - cpu
    report("identities_per_second", threads, values, lat, errors, took, cpu, mode="threads")


def identities_tasks(nodes: List[str], tasks: int, seconds: float) -> None:
    name = f"bench-{uuid.uuid4().hex[:8]}"
    values: List[List[int]] = [[] for _ in range(tasks)]
    lat: List[List[float]] = [[] for _ in range(tasks)]
    errors: List[str] = []

    async def main() -> Tuple[float, float]:
        async with idnode.aio.Client(nodes) as c:
            await c.next_identity(name)
            loop = asyncio.get_running_loop()
            end = loop.time() + seconds

            async def work(i: int) -> None:
                while loop.time() < end:
                    t0 = time.perf_counter()
                    try:
                        block = await c.next_identity(name)
                    except idnode.IdnodeError as e:
                        errors.append(repr(e))
                        return
                    lat[i].append((time.perf_counter() - t0) * 1000)
                    values[i].append(block.first)

            began, cpu = time.perf_counter(), cpu_seconds()
            await asyncio.gather(*[work(i) for i in range(tasks)])
            return time.perf_counter() - began, cpu_seconds() - cpu

    took, cpu = asyncio.run(main())
    report("identities_per_second", tasks, values, lat, errors, took, cpu, mode="asyncio")


def cpu_seconds() -> float:
    """CPU seconds the process spent so far, in every thread, user and system."""
    t = os.times()
    return t.user + t.system


def report(figure: str, callers: int, values: List[List[int]], lat: List[List[float]], errors: List[str], took: float, cpu: float, mode: str) -> None:
    flat = [v for chunk in values for v in chunk]
    if len(flat) != len(set(flat)):
        raise SystemExit(f"{figure}: {len(flat) - len(set(flat))} duplicate identities")
    ms = sorted(x for chunk in lat for x in chunk)
    emit(figure, callers=callers, mode=mode, value=round(len(flat) / took), calls=len(flat), seconds=round(took, 3),
         p50_ms=percentile(ms, 50), p99_ms=percentile(ms, 99), cpu_us_per_identity=round(cpu / max(len(flat), 1) * 1e6, 2),
         errors=len(errors))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", required=True, help="node gRPC addresses, comma-separated")
    ap.add_argument("--concurrency", type=int, default=64, help="identity callers (threads, then tasks); 1..1024")
    ap.add_argument("--duration", type=float, default=15.0, help="seconds per figure; 0.5..600")
    ap.add_argument("--hilo-duration", type=float, default=3.0, help="seconds of the HiLo figure; 0.5..600")
    a = ap.parse_args()
    if not 1 <= a.concurrency <= 1024:
        ap.error("--concurrency must be 1..1024")
    for flag, v in (("--duration", a.duration), ("--hilo-duration", a.hilo_duration)):
        if not 0.5 <= v <= 600:
            ap.error(f"{flag} must be 0.5..600 seconds")
    nodes = [n for n in a.nodes.split(",") if n]
    hilo_one_thread(nodes, a.hilo_duration)
    identities_threads(nodes, a.concurrency, a.duration)
    identities_tasks(nodes, a.concurrency, a.duration)


if __name__ == "__main__":
    main()
