"""A program that forgets to close gives its HiLo numbers back at interpreter exit."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

import idnode
from cluster import Control

SRC = pathlib.Path(__file__).resolve().parents[1] / "src"

SYNC = """
import sys, idnode
c = idnode.Client(sys.argv[1])
print([c.next_id("exit-sync") for _ in range(5)][-1])
"""

ASYNCIO = """
import asyncio, sys, idnode.aio
async def main():
    c = idnode.aio.Client(sys.argv[1])
    print([await c.next_id("exit-aio") for _ in range(5)][-1])
asyncio.run(main())
"""


@pytest.mark.topology({"nodes": 1, "hiloPools": False})
@pytest.mark.parametrize("program,tag", [(SYNC, "exit-sync"), (ASYNCIO, "exit-aio")], ids=["sync", "asyncio"])
def test_unused_numbers_come_back_at_exit(cluster: Control, program: str, tag: str) -> None:
    addr = cluster.addrs()[0]
    env = dict(os.environ, PYTHONPATH=str(SRC))
    done = subprocess.run([sys.executable, "-c", program, addr], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{tag}/5-A"
    with idnode.Client(addr) as c:
        assert c.next_id(tag) == f"{tag}/6-A", "the range's rest came back when the program exited"
