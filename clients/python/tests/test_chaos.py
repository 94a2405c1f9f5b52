"""Eight processes, each with HiLo generators and identity callers, through a 3-node cluster
while the leader is killed twice: no ID twice, and every process's unused HiLo range comes
back (a fresh client's next ID of its tag is the one right after its last)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
from typing import Any, Dict, List

import pytest

import idnode
from cluster import Control

PROCESSES = 8
HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def number(id: str) -> int:
    return int(id.split("/")[1].split("-")[0])


def ask(proc: subprocess.Popen, cmd: str) -> str:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(cmd + "\n")
    proc.stdin.flush()
    return proc.stdout.readline().strip()


# Every range through the leader (no per-node pools), so that "the next range starts right
# after the last ID" is exact: a pool's range need not sit right above the range before it.
@pytest.mark.topology({"nodes": 3, "hiloPools": False})
def test_eight_processes_through_two_leader_kills(cluster: Control) -> None:
    addrs = ",".join(cluster.addrs())
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])))
    procs = [
        subprocess.Popen([sys.executable, str(HERE / "chaos_worker.py"), addrs, str(i)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, env=env)
        for i in range(PROCESSES)
    ]
    try:
        for p in procs:
            assert ask(p, "mark") == "ok", "every process got going"
        for round_ in range(2):
            if round_:
                cluster.send({"cmd": "restart", "node": "all"})  # two of three up for the next kill
            killed = cluster.send({"cmd": "kill", "node": "leader"})["nodes"]
            cluster.send({"cmd": "leader"})
            for p in procs:
                assert ask(p, "mark") == "ok", f"a process got through the kill of {killed}"
        results: List[Dict[str, Any]] = []
        for p in procs:
            assert p.stdin is not None and p.stdout is not None
            p.stdin.write("stop\n")
            p.stdin.close()
            results.append(json.loads(p.stdout.readline()))
            assert p.wait(60) == 0
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()

    assert [r["errors"] for r in results] == [[]] * PROCESSES
    identities = [v for r in results for v in r["identities"]]
    shared = [i for r in results for i in r["shared"]]
    own = [i for r in results for i in r["own"]]
    assert len(identities) == len(set(identities)), "an identity was handed out twice"
    assert len(shared) == len(set(shared)), "a HiLo ID of the shared tag was handed out twice"
    assert len(own) == len(set(own))
    assert len(identities) > PROCESSES * 3 and len(shared) > PROCESSES * 3 * 50

    with idnode.Client(addrs) as fresh:
        for i, r in enumerate(results):
            assert r["ownReturned"], f"process {i}'s close gave nothing back"
            last = max(number(x) for x in r["own"])
            assert number(fresh.next_id(f"chaos-own-{i}")) == last + 1, f"process {i}'s unused range came back"
