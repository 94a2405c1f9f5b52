"""What the client logs through the ``idnode`` logger: a failover on a real cluster with a node
killed, and, against fakes, a range the cluster did not take back and a lease renewal that
failed."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Iterator, List

import grpc
import pytest

import idnode
import idnode.aio
from cluster import Control
from fake import FakeNode, HiLoServer, refuse
from idnode.v1 import idnode_pb2 as pb


def idnode_lines(caplog: pytest.LogCaptureFixture) -> List[str]:
    return [r.getMessage() for r in caplog.records if r.name == "idnode"]


@pytest.mark.topology({"nodes": 3})
@pytest.mark.parametrize("flavour", ["sync", "asyncio"])
def test_a_failover_is_logged_from_which_node_to_which_and_why(cluster: Control, flavour: str, caplog: pytest.LogCaptureFixture) -> None:
    dead = cluster.cluster["nodes"][0]["tag"]
    (dead_addr,) = cluster.addrs([dead])
    alive = [a for a in cluster.addrs() if a != dead_addr]
    cluster.send({"cmd": "kill", "node": dead})
    nodes = [dead_addr] + alive  # in order: the first attempt goes to the dead node
    caplog.set_level(logging.WARNING, logger="idnode")
    if flavour == "sync":
        with idnode.Client(nodes, nodes_in_order=True) as c:
            (uuid,) = c.generate("")
    else:
        async def generate() -> str:
            async with idnode.aio.Client(nodes, nodes_in_order=True) as c:
                (uuid,) = await c.generate("")
                return uuid
        uuid = asyncio.run(generate())
    assert uuid
    lines = idnode_lines(caplog)
    assert any(f"failing over from {dead_addr} to {alive[0]}: UNAVAILABLE" in line for line in lines), lines
    assert all(uuid not in line for line in lines), "nothing is logged per ID"


@pytest.fixture
def node() -> Iterator[FakeNode]:
    n = FakeNode()
    yield n
    n.stop()


def test_every_node_failing_logs_the_retry_round(node: FakeNode, caplog: pytest.LogCaptureFixture) -> None:
    calls = 0

    def busy_once(req, ctx, node):
        nonlocal calls
        calls += 1
        if calls == 1:
            refuse(ctx, grpc.StatusCode.UNAVAILABLE, "NO_QUORUM", "no leader")
        return pb.GenerateResponse(ids=["a"])
    node.handlers["Generate"] = busy_once
    caplog.set_level(logging.WARNING, logger="idnode")
    with idnode.Client([node.addr]) as c:
        assert c.generate("") == ["a"]
    lines = idnode_lines(caplog)
    assert len(lines) == 1 and "ids.Generate: every node failed; retry round 2" in lines[0], lines
    assert f"last error from {node.addr}: UNAVAILABLE/NO_QUORUM: no leader" in lines[0]


def test_a_range_the_cluster_did_not_take_back_is_logged(node: FakeNode, caplog: pytest.LogCaptureFixture) -> None:
    src = HiLoServer(32)
    src.install(node)
    caplog.set_level(logging.WARNING, logger="idnode")
    with idnode.Client([node.addr]) as c:
        g = c.hilo_generator("orders")
        g.next_id()
        src.max += 100  # another client's range: this one is no longer the newest
        g.close()
    assert g.returned == []
    assert idnode_lines(caplog) == ["HiLo 'orders': the cluster did not take back the numbers 2..32 (another range of the tag was granted since); they stay a gap"]


def test_a_failed_lease_renewal_is_logged(node: FakeNode, caplog: pytest.LogCaptureFixture) -> None:
    now = time.time_ns() // 1_000_000

    def acquire(req, ctx, node):
        return pb.WorkerLease(worker=5, epoch=1, min_ms=now - 1000, max_ms=now + 3_600_000, expires_at_ms=now + 30_000)

    def renew(req, ctx, node):
        refuse(ctx, grpc.StatusCode.FAILED_PRECONDITION, "FAILED_PRECONDITION", "the lease is not current")
    node.handlers.update(AcquireWorker=acquire, RenewWorker=renew, ReleaseWorker=lambda req, ctx, node: pb.ReleaseWorkerResponse())
    caplog.set_level(logging.WARNING, logger="idnode")
    with idnode.Client([node.addr]) as c:
        g = c.numeric_generator()
        with pytest.raises(idnode.FailedPrecondition) as refused:
            c._run(g._renew_call())
        g._renewal_failed(refused.value)  # the renewal loop's step, driven here
    assert idnode_lines(caplog) == [
        "numeric worker 5 (epoch 1): the lease is lost (FAILED_PRECONDITION: the lease is not current); "
        "no IDs until a new worker is leased, tried in 3.0 s"]
